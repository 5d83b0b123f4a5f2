import { describe, expect, it } from 'vitest';
import { runProfilesUse } from '../../../src/commands/profiles/use.js';
import { runInProcess, testContext } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();

describe('svc profiles use', () => {
  it.each([
    ['a pipe', {}, '', '✓ Now using profile "staging"\n'],
    ['--json', { json: true }, '{\n  "active_profile": "staging"\n}\n', ''],
  ])('makes a profile the active one (%s)', async (_mode, globals, stdout, stderr) => {
    const made = testContext({ env: env(), globals });
    await runProfilesUse(made.ctx, 'staging');
    expect([made.stdout(), made.stderr()]).toEqual([stdout, stderr]);
    expect(made.ctx.store().activeProfile()).toBe('staging');
  });

  it('exits 5 for a profile that does not exist, and changes nothing', async () => {
    expect(await runInProcess(['profiles', 'use', 'nope'], env())).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'error: no profile named "nope"; see `svc profiles ls`; create one with `svc -p nope config set base_url URL` (or `svc -p nope login --base-url URL`)\n',
    });
    expect(testContext({ env: env() }).ctx.store().activeProfile()).toBe('default');
  });
});
