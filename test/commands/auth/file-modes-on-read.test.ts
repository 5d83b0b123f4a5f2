/**
 * A credentials.json (or config directory) others can read is made private before svc uses it,
 * with one warning saying what it was and what svc made it — on any command that reads it.
 */
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { runInProcess, useTempDirs } from '../../helpers/context.js';

const dirs = useTempDirs();
const mode = (path: string) => statSync(path).mode & 0o777;

describe.skipIf(process.platform === 'win32')('a credential file open to others', () => {
  it('is tightened to 0600 (and its directory to 0700) on read, with one warning each', async () => {
    const dir = dirs().SVC_CONFIG_DIR;
    const store = new ConfigStore(dir);
    await store.setCredential('default', {
      type: 'token',
      access_token: 'svc_pk_0123456789abcdefWXYZ',
      obtained_at: '2026-01-15T12:00:00.000Z',
    });
    const file = join(dir, 'credentials.json');
    chmodSync(file, 0o644);
    chmodSync(dir, 0o755);
    const r = await runInProcess(['auth', 'token'], { ...dirs(), NO_COLOR: '1' });
    expect(r).toEqual({
      code: 0,
      stdout: 'svc_pk_0123456789abcdefWXYZ\n',
      stderr:
        `warning: ${dir} was readable by others (0755); svc made it 0700, since it holds credentials\n` +
        `warning: ${file} was readable by others (0644); svc made it 0600, since it holds credentials\n`,
    });
    expect([mode(dir), mode(file)]).toEqual([0o700, 0o600]);
    // Private now: nothing more is said.
    expect((await runInProcess(['auth', 'token'], { ...dirs(), NO_COLOR: '1' })).stderr).toBe('');
  });

  it('also on a command that only writes config.json', async () => {
    const dir = dirs().SVC_CONFIG_DIR;
    await new ConfigStore(dir).setCredential('default', {
      type: 'token',
      access_token: 'svc_pk_0123456789abcdefWXYZ',
      obtained_at: '2026-01-15T12:00:00.000Z',
    });
    const file = join(dir, 'credentials.json');
    chmodSync(file, 0o644);
    const r = await runInProcess(['config', 'set', 'org', 'org_demo'], { ...dirs(), NO_COLOR: '1' });
    expect(r.stderr).toContain(`warning: ${file} was readable by others (0644); svc made it 0600`);
    expect(mode(file)).toBe(0o600);
  });
});
