/**
 * The modes of the files svc writes, under the umask of the shell it runs in: a 0700 config
 * directory, 0600 config, credential and secret files, whatever the umask says (022, or 000 for
 * a secret file). Spawned through `sh -c 'umask …'`: the umask belongs to a process. What the
 * commands print is tested in-process (test/commands/auth, config, oauth).
 */
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TREASURY } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { svc, tempConfigDir } from '../helpers/svc.js';

const sandbox = useSandbox();
const dir = tempConfigDir();
// A --secret-file's request is recorded in the state directory while in flight (SecretFile).
const env = () => ({ SVC_CONFIG_DIR: dir, SVC_STATE_DIR: join(dir, '..', 'state') });
const mode = (path: string) => statSync(path).mode & 0o777;

describe('file modes', () => {
  it('config set under umask 022: a 0700 directory and a 0600 config.json', async () => {
    const r = await svc(['config', 'set', 'base_url', sandbox().url], { env: env(), umask: '022' });
    expect(r.code, r.stderr).toBe(0);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
  });

  it('login --with-token under umask 022: a 0600 credentials.json', async () => {
    const token = sandbox().adminToken;
    const r = await svc(['login', '--with-token'], { env: env(), input: `${token}\n`, umask: '022' });
    expect(r.code, r.stderr).toBe(0);
    expect(mode(join(dir, 'credentials.json'))).toBe(0o600);
    expect(readFileSync(join(dir, 'credentials.json'), 'utf8')).toContain(token);
  });

  it('a config file loosened by hand is 0600 again after the next write', async () => {
    chmodSync(join(dir, 'config.json'), 0o644);
    const r = await svc(['config', 'set', 'org', 'org_demo'], { env: env(), umask: '022' });
    expect(r.code, r.stderr).toBe(0);
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
  });

  it('oauth create --secret-file under umask 000: a 0600 secret file', async () => {
    const file = join(dir, '..', 'vendor.secret');
    const r = await svc(
      [
        'oauth',
        'create',
        '--name',
        'n',
        '--redirect-uri',
        'http://127.0.0.1/callback',
        '--scope',
        'read:exceptions',
        '--secret-file',
        file,
      ],
      { env: { ...env(), SVC_TOKEN: sandbox().adminToken, SVC_TENANT: TREASURY }, umask: '000' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^svc_cs_[A-Za-z0-9_-]{43}$/);
    expect(mode(file)).toBe(0o600);
  });

  it('tenants api-keys create --secret-file under umask 000: a 0600 key file', async () => {
    const file = join(dir, '..', 'sync.key');
    const r = await svc(
      ['tenants', 'api-keys', 'create', 'acme-treasury', '--kind', 'publishable', '--secret-file', file],
      {
        env: { ...env(), SVC_BASE_URL: sandbox().url, SVC_TOKEN: sandbox().adminToken, SVC_TENANT: TREASURY },
        umask: '000',
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^svc_pk_\S+\n?$/);
    expect(mode(file)).toBe(0o600);
  });
});
