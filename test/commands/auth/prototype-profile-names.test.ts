/**
 * Profile names that are also names on every JavaScript object (`constructor`, `toString`,
 * `valueOf`): the config and credential stores look profiles up as their own entries only, so
 * such a name is an ordinary profile when it was made, and "no profile named …" (exit 5) when it
 * was not — never a crash, and never a logout that says it removed a credential it did not have.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox();
const dirs = useTempDirs();
const env = (extra: Record<string, string> = {}) => ({ ...dirs(), ...extra });
const svc = (argv: string[], extra: Record<string, string> = {}) =>
  runInProcess(argv, env(extra), { now: Date.now() });

beforeAll(async () => {
  const { token } = sandbox().issueToken('usr_admin');
  const login = await runInProcess(
    ['-p', 'main', 'login', '--with-token', '--base-url', sandbox().url],
    env(),
    { now: Date.now(), stdin: token },
  );
  if (login.code !== 0) throw new Error(login.stderr);
  const made = await svc(['-p', 'constructor', 'config', 'set', 'base_url', sandbox().url]);
  if (made.code !== 0) throw new Error(made.stderr);
});

const notFound = (name: string, from = '') =>
  `error: no profile named "${name}"${from}; see \`svc profiles ls\`; create one with \`svc -p ${name} config set base_url URL\` (or \`svc -p ${name} login --base-url URL\`)\n`;

describe('profile names that every object has', () => {
  it('a profile named constructor is listed like any other', async () => {
    const r = await svc(['profiles', 'ls', '--json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(
      JSON.parse(r.stdout).map((p: { name: string; credential: string | null }) => [p.name, p.credential]),
    ).toEqual([
      ['constructor', null],
      ['main', expect.stringMatching(/^token eyJ/)],
    ]);
  });

  it('profiles rm of a name nobody made says so (exit 5)', async () => {
    const r = await svc(['profiles', 'rm', 'nonexistent', '--yes']);
    expect([r.code, r.stdout]).toEqual([5, '']);
    expect(r.stderr).toMatch(/^error: no profile named "nonexistent"/);
  });

  it('auth status of the profile named constructor: not logged in (exit 3), no crash', async () => {
    const r = await svc(['-p', 'constructor', 'auth', 'status']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).not.toContain('a bug in svc');
  });

  it.each([
    [['-p', 'toString', 'logout'], {}, notFound('toString')],
    [['-p', 'valueOf', 'me'], {}, notFound('valueOf')],
    [['-p', 'hasOwnProperty', 'auth', 'status'], {}, notFound('hasOwnProperty')],
    [
      ['auth', 'status'],
      { SVC_PROFILE: 'toString' },
      notFound('toString', ' (from SVC_PROFILE) among your profiles'),
    ],
    [['profiles', 'use', 'valueOf'], {}, notFound('valueOf')],
  ])('%j %j: no profile named … (exit 5)', async (argv, extra, expected) => {
    const r = await svc(argv, extra);
    expect([r.code, r.stdout, r.stderr]).toEqual([5, '', expected]);
  });

  it('logout of the profile named constructor removes nothing and says so, without ✓', async () => {
    const r = await svc(['-p', 'constructor', 'logout']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      'profile "constructor" has no stored credential; nothing to do\n',
    ]);
  });
});

// Review s9 L1: `-p __proto__` said "no profile named" with a hint (`svc -p __proto__ config set …`)
// that then failed with a rule (letters, digits, '.', '_' or '-') the name met. One answer now:
// the name cannot be a profile's, by the whole rule, wherever it comes from (exit 2).
describe('names that cannot be profile names', () => {
  const invalid = (name: string) =>
    `error: invalid profile name ${JSON.stringify(name)}: a profile name starts with a letter or digit, then letters, digits, '.', '_' or '-' (at most 64 characters in all)\n`;
  it.each([
    [['-p', '__proto__', 'me'], {}, '__proto__'],
    [['-p', '__proto__', 'config', 'set', 'base_url', 'http://x'], {}, '__proto__'],
    [['-p', '__proto__', 'config', 'get', 'base_url'], {}, '__proto__'],
    [['profiles', 'show', '__proto__'], {}, '__proto__'],
    [['profiles', 'use', '__proto__'], {}, '__proto__'],
    [['profiles', 'rm', '__proto__', '--yes'], {}, '__proto__'],
    [['auth', 'status'], { SVC_PROFILE: '__proto__' }, '__proto__'],
    [['-p', '=', 'me'], {}, '='],
  ])('%j %j: invalid profile name, the rule it breaks (exit 2)', async (argv, extra, name) => {
    const r = await svc(argv, extra);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', invalid(name)]);
  });
});
