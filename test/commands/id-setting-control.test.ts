/**
 * attack24c F1's rule (a control character in an id setting is refused where it is read, exit 2,
 * nothing sent or saved), tested for `org` in header-control.test.ts, here for the other id
 * settings it covers (src/config/settings.ts ID_SETTINGS): the tenant (--tenant, SVC_TENANT,
 * `config set tenant`, the profile's) and the OAuth client id (--client-id of `login` and `oauth
 * token`, SVC_CLIENT_ID, `config set client_id`, the profile's).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext();

const sent = () => requestCount(svc.sandbox());

/** Runs `argv` and expects the one-line refusal, exit 2, and no request. */
async function refused(argv: string[], env: Record<string, string | undefined>, message: string) {
  const before = await sent();
  // A refresh token on stdin for `oauth token`: the id is the only thing wrong.
  const r = await svc.run(argv, { env, stdin: 'not-a-real-refresh-token\n' });
  expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `error: ${message}\n`]);
  expect(await sent()).toBe(before);
}

/** A config directory of the test's own holding one profile with `values`. */
function profileWith(values: Record<string, string>): string {
  const dir = join(svc.env().SVC_CONFIG_DIR!, `own-${Object.keys(values).join('-')}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ active_profile: 'default', profiles: { default: values } }),
  );
  return dir;
}

const OAUTH_TOKEN = ['oauth', 'token', '--grant-type', 'refresh_token', '--refresh-token-stdin'];

describe('a control character in the tenant or the OAuth client id (attack24c F1)', () => {
  it.each([
    ['tenant', 'acme\ntreasury', 'U+000A', 5],
    ['client_id', 'cli\u0001ent', 'U+0001', 4],
  ])('config set %s refuses it and saves nothing', async (key, value, char, at) => {
    const r = await svc.run(['config', 'set', key, value]);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(
      `error: ${key} ${JSON.stringify(value)} holds a control character (${char}) at ${at}: type the id again; svc did not save it\n`,
    );
    const file = join(svc.env().SVC_CONFIG_DIR!, 'config.json');
    expect(existsSync(file) ? readFileSync(file, 'utf8') : '').not.toContain(key);
  });

  it.each([
    [
      ['--tenant', 'acme\u0007', 'roles', 'ls'],
      {},
      '--tenant "acme\\u0007" holds a control character (U+0007) at 5: type the id again',
    ],
    [
      ['roles', 'ls'],
      { SVC_TENANT: 'acme\r' },
      'SVC_TENANT "acme\\r" holds a control character (U+000D) at 5: set SVC_TENANT again',
    ],
    [
      ['roles', 'ls'],
      { SVC_TENANT: '\u007facme' },
      'SVC_TENANT "\\u007facme" holds a control character (U+007F) at 1: set SVC_TENANT again',
    ],
    [
      ['roles', 'ls'],
      { SVC_TENANT: 'acme\u0085' },
      'SVC_TENANT "acme\\u0085" holds a control character (U+0085) at 5: set SVC_TENANT again',
    ],
    [
      OAUTH_TOKEN,
      { SVC_CLIENT_ID: 'cli\nent' },
      'SVC_CLIENT_ID "cli\\nent" holds a control character (U+000A) at 4: set SVC_CLIENT_ID again',
    ],
    [
      ['login', '--no-browser'],
      { SVC_CLIENT_ID: 'cli\u001bent' },
      'SVC_CLIENT_ID "cli\\u001bent" holds a control character (U+001B) at 4: set SVC_CLIENT_ID again',
    ],
    [
      [...OAUTH_TOKEN, '--client-id', 'cli\u0000ent'],
      {},
      '--client-id "cli\\u0000ent" holds a control character (U+0000) at 4: type the id again',
    ],
    [
      ['login', '--no-browser', '--client-id', 'cli\tent'],
      {},
      '--client-id "cli\\tent" holds a control character (U+0009) at 4: type the id again',
    ],
    [
      // Named as the flag it came in, as login's and oauth token's are (it was CLIENT, the
      // positional id of the client lookup that refused it).
      ['oauth', 'authorize', '--client-id', 'cli\nent', '--no-browser'],
      {},
      '--client-id "cli\\nent" holds a control character (U+000A) at 4: type the id again',
    ],
    [
      ['oauth', 'authorize', '--client-id', 'cli\u200bent', '--public', '--no-browser'],
      {},
      '--client-id "cli\\u200bent" holds an invisible character (U+200B ZERO WIDTH SPACE) at 4: type the id again, or delete that character',
    ],
  ])('%j %j: refused before any request, exit 2', async (argv, env, message) => {
    await refused(argv, env, message);
  });

  it.each([
    ['tenant', 'acme\u0001', ['roles', 'ls'], 'U+0001', '"acme\\u0001"', 5],
    ['client_id', 'cli\nent', OAUTH_TOKEN, 'U+000A', '"cli\\nent"', 4],
  ])(
    "the profile's %s: refused with the command that mends it",
    async (key, value, argv, char, shown, at) => {
      const dir = profileWith({ [key]: value });
      const env = { SVC_CONFIG_DIR: dir, SVC_TENANT: undefined, SVC_CLIENT_ID: undefined };
      await refused(
        argv,
        env,
        `${key} in profile "default" ${shown} holds a control character (${char}) at ${at}: set it again with \`svc config set ${key} ID\``,
      );
    },
  );
});
