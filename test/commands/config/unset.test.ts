import { describe, expect, it } from 'vitest';
import { runInProcess, testContext } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();

describe('svc config unset', () => {
  it.each([
    ['in a pipe', [], '', '✓ unset tenant for profile "default" (https://api.example.com)\n'],
    [
      'with --json',
      ['--json'],
      '{\n  "profile": "default",\n  "key": "tenant",\n  "value": null,\n  "changed": true\n}\n',
      '',
    ],
  ])('removes a setting from the profile %s', async (_what, flags, stdout, stderr) => {
    expect(await runInProcess(['config', 'unset', 'tenant', ...flags], env())).toEqual({
      code: 0,
      stdout,
      stderr,
    });
    expect(testContext({ env: env() }).ctx.store().profile('default')?.tenant).toBeUndefined();
  });
});

describe('svc config unset of a key that is no setting', () => {
  it('is invalid input (exit 2) naming the settings, with --json as one object', async () => {
    expect(await runInProcess(['config', 'unset', 'colour', '--json'], env())).toEqual({
      code: 2,
      stdout: '',
      stderr:
        '{"error":{"code":"usage","message":"unknown setting \\"colour\\"","exit_code":2,"hint":"settings are base_url, app_url, tenant, org, client_id"}}\n',
    });
  });
});
