/**
 * A control character in a value svc sends as a header (attack24c F1): the org (--org, SVC_ORG,
 * `config set org`, the profile's), an --idempotency-key, an `svc api -H` value. undici refused the
 * header before anything was sent, and svc said "cannot reach … is the server running?", exit 1;
 * `config set org` saved such a value, after which every command of the profile failed so. Each is
 * refused before any request, exit 2, naming where the value came from, the character escaped.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();

const sent = () => requestCount(svc.sandbox());

describe('a control character in a header-bound value (attack24c F1)', () => {
  it('config set org refuses it and saves nothing', async () => {
    const r = await svc.run(['config', 'set', 'org', 'org_demo\nX-Evil: 1']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      'error: org "org_demo\\nX-Evil: 1" holds a control character (U+000A) at 9: type the id again; svc did not save it\n',
    );
    const file = join(svc.env().SVC_CONFIG_DIR!, 'config.json');
    expect(existsSync(file) ? readFileSync(file, 'utf8') : '').not.toContain('X-Evil');
  });

  it.each([
    [
      { SVC_ORG: 'a\u0001' },
      [],
      'SVC_ORG "a\\u0001" holds a control character (U+0001) at 2: set SVC_ORG again',
    ],
    [
      {},
      ['--org', 'a\u0007b'],
      '--org "a\\u0007b" holds a control character (U+0007) at 2: type the id again',
    ],
  ])('%j %j: refused before any request, exit 2', async (env, flags, message) => {
    const r = await svc.run([...flags, 'roles', 'ls'], { env });
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `error: ${message}\n`]);
  });

  it("the profile's org: refused with the command that mends it", async () => {
    // A config directory of its own: the profile's bad org would fail the other cases.
    const dir = join(svc.env().SVC_CONFIG_DIR!, 'own');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ active_profile: 'default', profiles: { default: { org: 'org_demo\u007f' } } }),
    );
    const r = await svc.run(['roles', 'ls'], { env: { SVC_CONFIG_DIR: dir } });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      'error: org in profile "default" "org_demo\\u007f" holds a control character (U+007F) at 9: set it again with `svc config set org ID`\n',
    );
  });

  it.each([
    [['tenants', 'api-keys', 'create', 'acme-treasury', '--kind', 'publishable', '--name', 'dash']],
    [
      [
        'oauth',
        'create',
        '--name',
        'x',
        '--redirect-uri',
        'https://a.example/cb',
        '--scope',
        'read:reconciliations',
        '--show-secret',
      ],
    ],
  ])('%j --idempotency-key with a newline: refused, nothing made', async (argv) => {
    const before = await sent();
    const r = await svc.run([...argv, '--idempotency-key', 'k\n1']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      'error: --idempotency-key "k\\n1" holds a control character (U+000A) at 2: give the key without it; nothing was sent\n',
    );
    expect(await sent()).toBe(before);
  });

  it('svc api -H with a control character, or one past U+00FF: refused; a tab is a header character', async () => {
    const bell = await svc.run(['api', '-H', 'X-A: b\u0007c', '/v1/me']);
    expect([bell.code, bell.stdout, bell.stderr]).toEqual([
      2,
      '',
      'error: -H X-A "b\\u0007c" holds a control character (U+0007) at 2: give the value without it; nothing was sent\n',
    ]);
    const snow = await svc.run(['api', '-H', 'X-A: b\u2603', '/v1/me']);
    expect([snow.code, snow.stdout, snow.stderr]).toEqual([
      2,
      '',
      'error: -H X-A "b☃" holds ☃ (U+2603) at 2, which a header cannot carry: give it as ASCII (percent- or base64-encoded, as the server expects); nothing was sent\n',
    ]);
    // U+0080–U+00FF would go as one Latin-1 byte (obs-text, RFC 9110 §5.5), not the UTF-8 bytes
    // curl and gh send for what was typed: servers and proxies read it differently. Refused too.
    for (const [value, char, at] of [
      ['café', 'é (U+00E9)', 4],
      ['a\u00a0b', '\u00a0 (U+00A0)', 2],
      ['\u00ff', 'ÿ (U+00FF)', 1],
    ] as const) {
      const before = await sent();
      const latin = await svc.run(['api', '-H', `X-A: ${value}`, '/v1/me']);
      expect([latin.code, latin.stdout, latin.stderr]).toEqual([
        2,
        '',
        `error: -H X-A ${JSON.stringify(value)} holds ${char} at ${at}, which a header carries only as one Latin-1 byte (obs-text), that servers and proxies read differently: give it as ASCII (percent- or base64-encoded, as the server expects); nothing was sent\n`,
      ]);
      expect(await sent()).toBe(before);
    }
    const tab = await svc.run(['api', '-H', 'X-A: b\tc', '/v1/me']);
    expect(tab.code, tab.stderr).toBe(0);
  });

  // attack25b M1: these two errors printed a secret header's value whole (X-Api-Key, an Authorization
  // with no scheme) while the malformed-line error masked it: every error about a header masks it.
  it('svc api -H of a secret header: the errors say the character and its place, never the value', async () => {
    const key = 'Zq8HxkVwP3m9TtLr2bQa4sYe7uWi1oZz';
    const fix = 'give it as ASCII (percent- or base64-encoded, as the server expects); nothing was sent';
    for (const [header, expected] of [
      [
        `X-Api-Key: ${key}\u0001`,
        'error: -H X-Api-Key [redacted] holds a control character (U+0001) at 33: give the value without it; nothing was sent\n',
      ],
      [
        `Authorization: ${key}\u007f`,
        'error: -H Authorization [redacted] holds a control character (U+007F) at 33: give the value without it; nothing was sent\n',
      ],
      [
        `X-Api-Key: ${key}€`,
        `error: -H X-Api-Key [redacted] holds € (U+20AC) at 33, which a header cannot carry: ${fix}\n`,
      ],
      [
        `x-api-key: ${key}é`,
        `error: -H x-api-key [redacted] holds é (U+00E9) at 33, which a header carries only as one Latin-1 byte (obs-text), that servers and proxies read differently: ${fix}\n`,
      ],
    ] as const) {
      const before = await sent();
      const r = await svc.run(['api', '-H', header, '/v1/me']);
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', expected]);
      expect(await sent()).toBe(before);
      const json = await svc.run(['--json', 'api', '-H', header, '/v1/me']);
      expect(json.code).toBe(2);
      expect(json.stderr).toContain('[redacted] holds');
      expect(json.stderr).not.toContain(key.slice(0, 12));
    }
  });
});
