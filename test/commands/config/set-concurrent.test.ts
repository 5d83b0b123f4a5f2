/**
 * attack20 F7: `xargs -P4 svc -p NEW config set …` — several processes each said "(a new profile)"
 * / `"profile_created": true`, as `created` was read before the locked write. Whether this set made
 * the profile is decided under the config lock, by the write that made it: one run of several says so.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess, useFreshDirs } from '../../helpers/context.js';

const dirs = useFreshDirs();

const SETS = [
  ['base_url', 'http://127.0.0.1:1'],
  ['org', 'o1'],
  ['client_id', 'c1'],
  ['app_url', 'http://127.0.0.1:2'],
];

describe('config set of a new profile, several at once', () => {
  it.each([1, 2, 3])('exactly one says it made the profile (round %i), and every value lands', async () => {
    const env = dirs();
    const runs = await Promise.all(
      SETS.map(([key, value]) => runInProcess(['-p', 'px', 'config', 'set', key!, value!, '--json'], env)),
    );
    expect(runs.map((r) => [r.code, r.stderr])).toEqual(SETS.map(() => [0, '']));
    const answers = runs.map(
      (r) => JSON.parse(r.stdout) as { profile_created: boolean; made_active: boolean },
    );
    expect(answers.filter((a) => a.profile_created)).toHaveLength(1);
    // The one that made it is the one made active (the first profile of the store).
    expect(answers.filter((a) => a.made_active)).toEqual(answers.filter((a) => a.profile_created));
    const shown = await runInProcess(['-p', 'px', 'config', 'ls', '--json'], env);
    for (const [, value] of SETS) expect(shown.stdout).toContain(`"${value}"`);
  });

  it('text mode: one "(a new profile, now the active one)", the others plain', async () => {
    const env = dirs();
    const runs = await Promise.all(
      SETS.map(([key, value]) => runInProcess(['-p', 'px', 'config', 'set', key!, value!], env)),
    );
    const lines = runs.map((r) => r.stdout + r.stderr).sort();
    expect(lines.filter((l) => l.includes('(a new profile'))).toHaveLength(1);
    expect(lines.join('')).toContain('(a new profile, now the active one)');
  });
});
