/**
 * The help's own examples (`roles holders ROLE --all --ndjson`, `roles assignments --all --ndjson`)
 * printed the note of --all's old meaning on every run, with no way to silence it short of changing
 * the result (journey15 F7): --no-include-ended says "the ones in force", the same rows, no note.
 */
import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();

describe('--all with --no-include-ended', () => {
  it.each([[['roles', 'assignments']], [['roles', 'holders', 'tenant_viewer']]])(
    '%j: the same rows as --all, without the note',
    async (verb) => {
      const noted = await svc.run([...verb, '--all', '--ndjson']);
      expect(noted.code, noted.stderr).toBe(0);
      expect(noted.stderr).toMatch(/^warning: --all reads every page/);
      const quiet = await svc.run([...verb, '--all', '--no-include-ended', '--ndjson']);
      expect([quiet.code, quiet.stderr]).toEqual([0, '']);
      expect(quiet.stdout).toBe(noted.stdout);
      expect(quiet.stdout).not.toBe('');
    },
  );

  it('the help examples that read every page do not warn', async () => {
    for (const verb of [
      ['roles', 'assignments'],
      ['roles', 'holders'],
    ]) {
      const help = await svc.run([...verb, '--help']);
      const alls = help.stdout.split('\n').filter((l) => /^\s*\$ .*--all\b/.test(l));
      expect(alls.length, help.stdout).toBeGreaterThan(0);
      for (const line of alls) expect(line).toMatch(/ --(no-)?include-ended\b/);
    }
  });
});
