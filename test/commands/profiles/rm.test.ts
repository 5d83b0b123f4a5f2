import { describe, expect, it } from 'vitest';
import { runProfilesRm } from '../../../src/commands/profiles/rm.js';
import { runInProcess, testContext } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();
const names = () => Object.keys(testContext({ env: env() }).ctx.store().profiles()).sort();

describe('svc profiles rm', () => {
  it.each([
    ['with --yes', { globals: { yes: true } }, '', '✓ Removed profile "staging"\n'],
    ['with --yes --json', { globals: { yes: true, json: true } }, '{\n  "removed": "staging"\n}\n', ''],
    ['after a yes at the prompt', { tty: true, answers: [true] }, '', '✓ Removed profile "staging"\n'],
  ])('removes a profile and its credential %s', async (_how, options, stdout, stderr) => {
    const made = testContext({ ...options, env: env() });
    await runProfilesRm(made.ctx, 'staging');
    expect([made.stdout(), made.stderr()]).toEqual([stdout, stderr]);
    expect(names()).toEqual(['default']);
  });

  it('asks first on a terminal, naming the profile, and keeps it on a no', async () => {
    const made = testContext({ env: env(), tty: true, answers: [false] });
    await expect(runProfilesRm(made.ctx, 'default')).rejects.toThrow('cancelled; nothing was changed');
    expect(made.questions).toEqual(['Remove profile "default" and its stored credential?']);
    expect(names()).toEqual(['default', 'staging']);
    expect(made.ctx.store().credential('default')).toBeDefined();
  });

  it('needs --yes when nobody can be asked (exit 2)', async () => {
    expect(await runInProcess(['profiles', 'rm', 'default'], env())).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: removing profile "default" needs confirmation; pass --yes to confirm non-interactively\n',
    });
    expect(names()).toEqual(['default', 'staging']);
  });
});
