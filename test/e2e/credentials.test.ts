import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { useSandbox } from '../helpers/sandbox.js';
import { svc, tempConfigDir } from '../helpers/svc.js';

const sandbox = useSandbox();
const mode = (path: string) => statSync(path).mode & 0o777;

// What needs a process: file modes under a umask, the token read from real stdin, and --debug
// traces of the binary. The profiles and config verbs are tested in-process in
// test/commands/profiles/ and test/commands/config/.
describe('stored credentials and file modes', () => {
  const dir = tempConfigDir();
  let env: Record<string, string>;
  beforeAll(() => {
    env = { SVC_CONFIG_DIR: dir };
  });

  it('writes a 0700 directory and 0600 files under umask 022', async () => {
    const r = await svc(['config', 'set', 'base_url', sandbox().url], { env, umask: '022' });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Set base_url for profile "default"');
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
  });

  it('stores a token from stdin after checking it, and never in config.json', async () => {
    const token = sandbox().adminToken;
    const r = await svc(['login', '--with-token'], { env, input: `  ${token}\n`, umask: '022' });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Logged in to');
    expect(r.stderr).toContain('as Ada Admin (profile "default")');
    expect(mode(join(dir, 'credentials.json'))).toBe(0o600);
    expect(readFileSync(join(dir, 'credentials.json'), 'utf8')).toContain(token);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(token);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toContain(tenantId('acme-treasury'));
  });

  it('refuses a rejected token with exit 3 and keeps the stored one', async () => {
    const before = readFileSync(join(dir, 'credentials.json'), 'utf8');
    const r = await svc(['login', '--with-token'], { env, input: 'svc_pk_not_a_real_key\n' });
    expect(r.code).toBe(3);
    expect(readFileSync(join(dir, 'credentials.json'), 'utf8')).toBe(before);
  });

  it.each([
    ['no input', '', /no token on standard input/],
    ['two tokens', 'a b', /contains whitespace/],
  ])('refuses %s on stdin with exit 2', async (_name, input, message) => {
    const r = await svc(['login', '--with-token'], { env, input });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('shows the status with a masked credential and the identity', async () => {
    const r = await svc(['auth', 'status'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('status\tlogged in');
    expect(r.stdout).toContain('identity\tAda Admin <ada@acme.example> (usr_admin)');
    expect(r.stdout).toMatch(/token\teyJ\*\*\*\*.{4}\n/);
    expect(r.stdout).not.toContain(sandbox().adminToken);
    const json = JSON.parse((await svc(['auth', 'status', '--json'], { env })).stdout);
    expect(json).toMatchObject({ profile: 'default', logged_in: true, credential: { type: 'jwt' } });
  });

  it('lets SVC_TOKEN override the stored credential', async () => {
    const { token } = sandbox().issueToken('usr_viewer');
    const r = await svc(['me', '--json'], {
      env: { ...env, SVC_TOKEN: token, SVC_TENANT: tenantId('acme-treasury') },
    });
    expect(JSON.parse(r.stdout).id).toBe('usr_viewer');
    const status = await svc(['auth', 'status'], { env: { ...env, SVC_TOKEN: token } });
    expect(status.stdout).toContain('credential\tjwt from SVC_TOKEN');
  });

  it('prints a token for curl with auth token', async () => {
    const r = await svc(['auth', 'token'], { env });
    expect(r.stdout).toBe(`${sandbox().adminToken}\n`);
  });

  it('masks every credential in --debug traces', async () => {
    const canary = sandbox().issueToken('usr_admin').token;
    const r = await svc(['--debug', 'me'], { env: { ...env, SVC_TOKEN: canary } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('* GET ');
    expect(r.stderr).toContain('> authorization: Bearer [redacted]');
    expect(r.stderr).toMatch(/< 200 OK in \d+ ms/);
    expect(r.stderr).not.toContain(canary);
    expect(r.stderr).not.toContain(sandbox().adminToken);
    expect(r.stdout).not.toContain(canary);
    const post = await svc(
      ['--debug', 'api', 'POST', '/v1/exceptions', '-f', 'client_secret=canary-secret-value'],
      {
        env: { ...env, SVC_TOKEN: canary },
      },
    );
    expect(post.stderr).toContain('"client_secret":"[redacted]"');
    expect(post.stderr).not.toContain('canary-secret-value');
  });

  it('logs out (exit 3 afterwards) and is idempotent about it', async () => {
    expect((await svc(['logout'], { env })).stderr).toContain('removed the credential of profile "default"');
    expect((await svc(['logout'], { env })).stderr).toContain('has no stored credential');
    const status = await svc(['auth', 'status'], { env });
    expect(status.code).toBe(3);
    expect(status.stdout).toContain('status\tnot logged in');
    expect(status.stderr).toMatch(/^error: not logged in/);
  });

  it('tightens a loosened config file on the next write', async () => {
    chmodSync(join(dir, 'config.json'), 0o644);
    await svc(['config', 'set', 'org', 'org_demo'], { env, umask: '022' });
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
  });
});
