/**
 * A character past U+007F in a value svc sends as a header (session 25, fixin's "noticed"): the
 * org (--org, SVC_ORG, the profile's, `config set org`) in X-SVC-Org-Id, the idempotency key
 * (--idempotency-key, a body's own `idempotency_key`) in Idempotency-Key. undici sends
 * U+0080–U+00FF as one Latin-1 byte (obs-text, RFC 9110 §5.5), where curl and gh send UTF-8, and
 * refuses what is past U+00FF: the org went out as `org\xe9`, exit 0. One rule with `svc api -H`'s
 * (src/api/characters.ts nonAsciiIn): refused before any request, exit 2, naming where the value
 * came from. The tenant in X-Tenant-Id is a UUID or an id the platform gave; the OAuth client id
 * goes in a form or a URL, percent-encoded, never in a header of svc's.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();

const sent = () => requestCount(svc.sandbox());

const LATIN =
  'which a header carries only as one Latin-1 byte (obs-text), that servers and proxies read differently';

/** Runs `argv` and expects the one-line refusal, exit 2, and no request. */
async function refused(argv: string[], env: Record<string, string | undefined>, message: string) {
  const before = await sent();
  const r = await svc.run(argv, { env });
  expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `error: ${message}\n`]);
  expect(await sent()).toBe(before);
}

const API_KEY = ['tenants', 'api-keys', 'create', 'acme-treasury', '--kind', 'publishable', '--name', 'dash'];

describe('a character past U+007F in a value svc sends as a header', () => {
  it.each([
    [{}, ['--org', 'orgé'], `--org "orgé" holds é (U+00E9) at 4, ${LATIN}: type the id again`],
    [{ SVC_ORG: 'orgé' }, [], `SVC_ORG "orgé" holds é (U+00E9) at 4, ${LATIN}: set SVC_ORG again`],
    [
      { SVC_ORG: 'org\u00a0demo' },
      [],
      `SVC_ORG "org\u00a0demo" holds \u00a0 (U+00A0) at 4, ${LATIN}: set SVC_ORG again`,
    ],
    [
      { SVC_ORG: 'org☃' },
      [],
      'SVC_ORG "org☃" holds ☃ (U+2603) at 4, which a header cannot carry: set SVC_ORG again',
    ],
  ])('the org %j %j: refused before any request, exit 2', async (env, flags, message) => {
    await refused([...flags, 'roles', 'ls'], env, message);
  });

  it("the profile's org: refused with the command that mends it", async () => {
    const dir = join(svc.env().SVC_CONFIG_DIR!, 'own-org');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ active_profile: 'default', profiles: { default: { org: 'orgé' } } }),
    );
    await refused(
      ['roles', 'ls'],
      { SVC_CONFIG_DIR: dir, SVC_ORG: undefined },
      `org in profile "default" "orgé" holds é (U+00E9) at 4, ${LATIN}: set it again with \`svc config set org ID\``,
    );
  });

  it('config set org refuses it and saves nothing', async () => {
    const r = await svc.run(['config', 'set', 'org', 'orgé']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: org "orgé" holds é (U+00E9) at 4, ${LATIN}: type the id again; svc did not save it\n`,
    ]);
    const file = join(svc.env().SVC_CONFIG_DIR!, 'config.json');
    expect(existsSync(file) ? readFileSync(file, 'utf8') : '').not.toContain('org');
  });

  it.each([
    [
      API_KEY,
      'ké',
      `--idempotency-key "ké" holds é (U+00E9) at 2, ${LATIN}: give the key in ASCII; nothing was sent`,
    ],
    [
      ['webhooks', 'rotate-secret', 'wh_1', '--yes', '--show-secret'],
      'k€y',
      '--idempotency-key "k€y" holds € (U+20AC) at 2, which a header cannot carry: give the key in ASCII; nothing was sent',
    ],
  ])('%j --idempotency-key %j: refused, nothing made', async (argv, key, message) => {
    await refused([...argv, '--idempotency-key', key], {}, message);
  });

  it.each([
    [['api', 'POST', '/v1/roles', '-f', 'name=r', '-f', 'idempotency_key=ké']],
    [['records', 'create', 'exceptions', '--data', '{"title":"a","idempotency_key":"ké"}']],
  ])("a body's own idempotency_key (%j): refused before it is sent", async (argv) => {
    await refused(
      argv,
      {},
      `the body's idempotency_key "ké" holds é (U+00E9) at 2, ${LATIN}: give the key in ASCII; svc did not send it`,
    );
  });

  it('a body\'s own idempotency_key with a control character: refused, not "cannot reach"', async () => {
    await refused(
      ['api', 'POST', '/v1/roles', '-f', 'name=r', '-f', 'idempotency_key=k\u0007'],
      {},
      `the body's idempotency_key "k\\u0007" holds a control character (U+0007) at 2: give the key without it; svc did not send it`,
    );
  });

  it('an ASCII org and key still go', async () => {
    const r = await svc.run([...API_KEY, '--idempotency-key', 'k-1'], { env: { SVC_ORG: 'org_demo' } });
    expect(r.code, r.stderr).toBe(0);
  });
});
