import { describe, expect, it } from 'vitest';
import { runInProcess, testContext } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();

describe('svc config unset', () => {
  it.each([
    ['in a pipe', [], '', '✓ Unset tenant for profile "default"\n'],
    ['with --json', ['--json'], '{\n  "profile": "default",\n  "key": "tenant",\n  "value": null\n}\n', ''],
  ])('removes a setting from the profile %s', async (_what, flags, stdout, stderr) => {
    expect(await runInProcess(['config', 'unset', 'tenant', ...flags], env())).toEqual({
      code: 0,
      stdout,
      stderr,
    });
    expect(testContext({ env: env() }).ctx.store().profile('default')?.tenant).toBeUndefined();
  });
});
