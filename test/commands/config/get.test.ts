import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();

describe('svc config get', () => {
  it.each<[string, string[], Record<string, string>, string]>([
    ['the profile’s value', ['config', 'get', 'tenant'], {}, 't-123\n'],
    [
      'the environment over the profile',
      ['config', 'get', 'tenant'],
      { SVC_TENANT: 'from-env' },
      'from-env\n',
    ],
    [
      'the flag over both',
      ['--tenant', 'from-flag', 'config', 'get', 'tenant'],
      { SVC_TENANT: 'from-env' },
      'from-flag\n',
    ],
    ['another profile’s', ['-p', 'staging', 'config', 'get', 'base_url'], {}, 'https://staging.example\n'],
    [
      'the value and its source with --json',
      ['config', 'get', 'base_url', '--json'],
      {},
      '{\n  "key": "base_url",\n  "value": "https://api.example.com",\n  "source": "profile"\n}\n',
    ],
  ])('prints %s', async (_what, argv, extra, stdout) => {
    expect(await runInProcess(argv, { ...env(), ...extra })).toEqual({ code: 0, stdout, stderr: '' });
  });

  // attack25a F10: the tenant's placeholder is the one the tenant-required hint uses (was VALUE).
  it('an unset tenant: set it with the placeholder every tenant hint uses', async () => {
    expect((await runInProcess(['config', 'unset', 'tenant'], env())).code).toBe(0);
    expect(await runInProcess(['config', 'get', 'tenant'], env())).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'error: tenant is not set for profile "default"; set it with `svc config set tenant ID_OR_SLUG`\n',
    });
  });

  it.each<[string[], number, string]>([
    [
      ['config', 'get', 'org'],
      5,
      'error: org is not set for profile "default"; set it with `svc config set org VALUE`\n',
    ],
    [
      ['config', 'get', 'colour'],
      2,
      'error: unknown setting "colour"; settings are base_url, app_url, tenant, org, client_id\n',
    ],
    [
      ['config', 'get', 'tenat'],
      2,
      'error: unknown setting "tenat" (did you mean tenant?); settings are base_url, app_url, tenant, org, client_id\n',
    ],
  ])('svc %j exits %i', async (argv, code, stderr) => {
    expect(await runInProcess(argv, env())).toEqual({ code, stdout: '', stderr });
  });
});
