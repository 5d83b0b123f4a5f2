// The global flags that take a value: an empty value (`--tenant "$T"` with T unset) is a usage
// error, never read as "not given" (which would act on the profile's tenant instead); an empty
// environment variable keeps meaning unset.
import { describe, expect, it } from 'vitest';
import { valueFlags } from '../../src/cli.js';
import { ConfigStore } from '../../src/config/store.js';
import { runInProcess } from '../helpers/context.js';
import { useTwoProfiles } from '../helpers/profiles.js';

const env = useTwoProfiles();
const names = () => Object.keys(new ConfigStore(env().SVC_CONFIG_DIR!).profiles()).sort();

describe('an empty value of a global flag', () => {
  it.each([
    ['--tenant', '--tenant is empty; give a tenant id or slug, or leave the flag out'],
    ['-p', '-p/--profile is empty; give a profile name, or leave the flag out'],
    ['--profile', '-p/--profile is empty; give a profile name, or leave the flag out'],
    ['--org', '--org is empty; give an organisation id, or leave the flag out'],
    ['--base-url', '--base-url is empty; give the API base URL, or leave the flag out'],
    ['--app-url', '--app-url is empty; give the browser app URL, or leave the flag out'],
    ['--timeout', '--timeout is empty; give a number of seconds, or leave the flag out'],
  ])('%s "" is a usage error (exit 2), before or after the verb, and changes nothing', async (flag, line) => {
    for (const argv of [
      [flag, '', 'profiles', 'rm', 'staging', '--yes'],
      ['profiles', 'rm', 'staging', '--yes', flag, ''],
      ['profiles', 'rm', 'staging', '--yes', flag, '   '],
    ]) {
      expect(await runInProcess(argv, env())).toEqual({ code: 2, stdout: '', stderr: `error: ${line}\n` });
    }
    if (flag.startsWith('--')) {
      expect(await runInProcess([`${flag}=`, 'config', 'ls'], env())).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: ${line}\n`,
      });
    }
    expect(names()).toEqual(['default', 'staging']);
  });

  it('covers every global flag that takes a value', async () => {
    const flags = valueFlags();
    expect(flags.length).toBeGreaterThanOrEqual(7);
    for (const flag of flags) {
      const r = await runInProcess([flag, '', 'config', 'ls'], env());
      expect([flag, r.code, r.stdout]).toEqual([flag, 2, '']);
      expect(r.stderr).toMatch(/^error: \S+ is empty; give .+, or leave the flag out\n$/);
    }
  });

  it('is one JSON error object with --json', async () => {
    const r = await runInProcess(['--json', '--tenant', '', 'config', 'ls'], env());
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(JSON.parse(r.stderr).error.message).toBe(
      '--tenant is empty; give a tenant id or slug, or leave the flag out',
    );
  });

  it.each([
    [['roles', 'assignments', '--role', ''], '--role must not be empty'],
    [['audit', 'ls', '--actor', ''], '--actor must not be empty'],
    [['audit', 'ls', '--user', ''], '--user must not be empty'],
    [['audit', 'ls', '--target', ''], '--target must not be empty'],
    [['users', 'ls', '--id', ''], '--id must not be empty'],
    [['sandbox', 'trigger', 'role.assigned', '--webhook', ''], '--webhook must not be empty'],
    [['login', '--client-id', ' '], '--client-id must not be empty'],
    [['oauth', 'token', '--grant-type', 'refresh_token', '--client-id', ''], '--client-id must not be empty'],
    [['tenants', 'ls', '--role', ''], '--role must not be empty'],
  ])('a verb flag naming an id refuses an empty value too: %j', async (argv, line) => {
    expect(await runInProcess(argv, env())).toEqual({ code: 2, stdout: '', stderr: `error: ${line}\n` });
  });

  it('an empty environment variable still means unset (the profile’s value is used)', async () => {
    const r = await runInProcess(['config', 'get', 'tenant'], { ...env(), SVC_TENANT: '', SVC_PROFILE: '' });
    expect(r).toEqual({ code: 0, stdout: 't-123\n', stderr: '' });
  });
});
