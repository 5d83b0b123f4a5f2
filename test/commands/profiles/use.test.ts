import { describe, expect, it } from 'vitest';
import { runProfilesUse } from '../../../src/commands/profiles/use.js';
import { runInProcess, testContext } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();

describe('svc profiles use', () => {
  it.each([
    ['a pipe', {}, '', '✓ now using profile "staging"\n'],
    ['--json', { json: true }, '{\n  "active_profile": "staging",\n  "in_use": "staging"\n}\n', ''],
  ])('makes a profile the active one (%s)', async (_mode, globals, stdout, stderr) => {
    const made = testContext({ env: env(), globals });
    await runProfilesUse(made.ctx, 'staging');
    expect([made.stdout(), made.stderr()]).toEqual([stdout, stderr]);
    expect(made.ctx.store().activeProfile()).toBe('staging');
  });

  it.each([
    [
      'a pipe',
      {},
      '',
      '✓ now using profile "staging"\n' +
        'warning: SVC_PROFILE=default is set and overrides the active profile in this shell: commands here still use "default" until you unset it\n',
    ],
    [
      '--json',
      { json: true },
      '{\n  "active_profile": "staging",\n  "in_use": "default"\n}\n',
      'warning: SVC_PROFILE=default is set and overrides the active profile in this shell: commands here still use "default" until you unset it\n',
    ],
  ])('warns that SVC_PROFILE overrides the active profile (%s)', async (_mode, globals, stdout, stderr) => {
    const made = testContext({ env: { ...env(), SVC_PROFILE: 'default' }, globals });
    await runProfilesUse(made.ctx, 'staging');
    expect([made.stdout(), made.stderr()]).toEqual([stdout, stderr]);
    expect(made.ctx.store().activeProfile()).toBe('staging');
  });

  it('does not warn when SVC_PROFILE names the same profile', async () => {
    const made = testContext({ env: { ...env(), SVC_PROFILE: 'staging' } });
    await runProfilesUse(made.ctx, 'staging');
    expect(made.stderr()).toBe('✓ now using profile "staging"\n');
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
