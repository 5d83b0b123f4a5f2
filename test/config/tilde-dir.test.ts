/**
 * F3 (findings-config16): SVC_CONFIG_DIR='~/.svc' as a YAML env block or a .env file leaves it
 * (no shell expanded the ~) is refused with one line naming the tilde and the fix, exit 2; no
 * folder named `~` is made in the current directory.
 */
import { readdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runInProcess, useFreshDirs } from '../helpers/context.js';
import { tempDir } from '../helpers/temp.js';

const dirs = useFreshDirs();

// R7 (review16c): `$HOME/…` is left as it is by the same YAML blocks and .env files, so it is
// refused too, and the example is an absolute path (the user's home), never another unexpanded form.
const HOME = homedir();
describe('a directory variable starting with an unexpanded ~ or variable', () => {
  it.each([
    ['SVC_CONFIG_DIR', '~/.svc', 'a ~ that no shell expanded', ` (e.g. SVC_CONFIG_DIR=${HOME}/.svc)`],
    ['SVC_STATE_DIR', '~/state/svc', 'a ~ that no shell expanded', ` (e.g. SVC_STATE_DIR=${HOME}/state/svc)`],
    ['SVC_CACHE_DIR', '~', 'a ~ that no shell expanded', ` (e.g. SVC_CACHE_DIR=${HOME})`],
    [
      'SVC_CONFIG_DIR',
      '$HOME/.svc',
      'a variable ($HOME) that no shell expanded',
      ` (e.g. SVC_CONFIG_DIR=${HOME}/.svc)`,
    ],
    [
      'SVC_STATE_DIR',
      `\${HOME}/s`,
      `a variable (\${HOME}) that no shell expanded`,
      ` (e.g. SVC_STATE_DIR=${HOME}/s)`,
    ],
    ['SVC_CONFIG_DIR', '~alice/.svc', 'a ~ that no shell expanded', ''],
    // review17 F4: `docker run --env-file` and several .env loaders keep the quotes as part of the
    // value; taken as a relative path, it made `./"$HOME/.config/svc"/config.json`.
    [
      'SVC_CONFIG_DIR',
      '"$HOME/.config/svc"',
      'a quote and a variable ($HOME) that no shell took off or expanded',
      ` (e.g. SVC_CONFIG_DIR=${HOME}/.config/svc)`,
    ],
    [
      'SVC_STATE_DIR',
      "'~/state'",
      'a quote and a ~ that no shell took off or expanded',
      ` (e.g. SVC_STATE_DIR=${HOME}/state)`,
    ],
    [
      'SVC_CACHE_DIR',
      '"/srv/svc/cache"',
      'a quote that no shell took off',
      ' (e.g. SVC_CACHE_DIR=/srv/svc/cache)',
    ],
  ])(
    '%s=%s is refused, naming what no shell expanded (or took off) and the fix',
    async (name, value, what, example) => {
      const cwd = tempDir('svc-tilde-');
      const before = process.cwd();
      process.chdir(cwd);
      try {
        const r = await runInProcess(['-p', 'ci', 'config', 'set', 'base_url', 'http://127.0.0.1:9'], {
          ...dirs(),
          [name]: value,
        });
        expect(r).toEqual({
          code: 2,
          stdout: '',
          stderr: `error: ${name} ${value} starts with ${what}; use an absolute path${example}; svc changed nothing\n`,
        });
        expect(readdirSync(cwd)).toEqual([]);
      } finally {
        process.chdir(before);
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );
});
