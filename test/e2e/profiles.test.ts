import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tenantId } from '../../src/sandbox/seed.js';
import { useSandbox } from '../helpers/sandbox.js';
import { svc, tempConfigDir } from '../helpers/svc.js';

const sandbox = useSandbox();
const mode = (path: string) => statSync(path).mode & 0o777;

describe('profiles, config and stored credentials', () => {
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

  it('reads settings flag > env > profile, and says where each comes from', async () => {
    await svc(['config', 'set', 'tenant', 'from-profile'], { env });
    expect((await svc(['config', 'get', 'tenant'], { env })).stdout).toBe('from-profile\n');
    expect((await svc(['config', 'get', 'tenant'], { env: { ...env, SVC_TENANT: 'from-env' } })).stdout).toBe(
      'from-env\n',
    );
    expect(
      (
        await svc(['--tenant', 'from-flag', 'config', 'get', 'tenant'], {
          env: { ...env, SVC_TENANT: 'from-env' },
        })
      ).stdout,
    ).toBe('from-flag\n');
    const ls = await svc(['config', 'ls'], { env: { ...env, SVC_TENANT: 'from-env' } });
    expect(ls.stdout).toContain('tenant\tfrom-env\tSVC_TENANT');
    expect(ls.stdout).toContain(`base_url\t${sandbox().url}\tprofile`);
    expect(ls.stdout).toContain(`app_url\t${sandbox().url}\tdefault`);
  });

  it.each([
    [
      ['config', 'set', 'colour', 'x'],
      2,
      /unknown setting "colour"; settings are base_url, app_url, tenant, org, client_id/,
    ],
    [['config', 'set', 'base_url', 'localhost:4010'], 2, /must be an absolute http\(s\) URL/],
    [['config', 'get', 'org'], 5, /org is not set for profile "default"/],
    [['profiles', 'use', 'nope'], 5, /no profile named "nope"/],
    [['profiles', 'rm', 'default'], 2, /needs confirmation; pass --yes/],
  ])('svc %j → exit %i', async (args, code, message) => {
    const r = await svc(args, { env });
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
  });

  it('lists, switches, shows and removes profiles', async () => {
    await svc(['-p', 'staging', 'config', 'set', 'base_url', 'https://staging.example'], { env });
    const ls = await svc(['profiles', 'ls', '--json'], { env });
    expect(JSON.parse(ls.stdout).map((p: { name: string; active: boolean }) => [p.name, p.active])).toEqual([
      ['default', true],
      ['staging', false],
    ]);
    expect((await svc(['profiles', 'use', 'staging'], { env })).code).toBe(0);
    expect((await svc(['profiles', 'show'], { env })).stdout).toContain('name\tstaging (active)');
    expect((await svc(['profiles', 'rm', 'staging', '--yes'], { env })).code).toBe(0);
    expect(JSON.parse((await svc(['profiles', 'ls', '--json'], { env })).stdout)).toHaveLength(1);
  });

  it('tightens a loosened config file on the next write', async () => {
    chmodSync(join(dir, 'config.json'), 0o644);
    await svc(['config', 'set', 'org', 'org_demo'], { env, umask: '022' });
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
  });

  it('reports a corrupt config file by name with exit 2 and leaves it alone', async () => {
    const file = join(dir, 'config.json');
    writeFileSync(file, '{ not json', { mode: 0o600 });
    const r = await svc(['tenants', 'ls'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: cannot read ${file}: it is not valid JSON; fix or remove the file; svc never resets it on its own\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe('{ not json');
  });
});
