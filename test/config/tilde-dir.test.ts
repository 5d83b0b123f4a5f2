/**
 * F3 (findings-config16): SVC_CONFIG_DIR='~/.svc' as a YAML env block or a .env file leaves it
 * (no shell expanded the ~) is refused with one line naming the tilde and the fix, exit 2; no
 * folder named `~` is made in the current directory.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess, useFreshDirs } from '../helpers/context.js';

const dirs = useFreshDirs();

describe('a directory variable starting with an unexpanded ~', () => {
  it.each([
    ['SVC_CONFIG_DIR', '~/.svc', '$HOME/.svc'],
    ['SVC_STATE_DIR', '~/state/svc', '$HOME/state/svc'],
    ['SVC_CACHE_DIR', '~', '$HOME'],
  ])('%s=%s is refused, naming the tilde and the fix', async (name, value, fixed) => {
    const cwd = mkdtempSync(join(tmpdir(), 'svc-tilde-'));
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
        stderr: `error: ${name} ${value} starts with a ~ that no shell expanded; use an absolute path, e.g. ${name}=${fixed}; svc changed nothing\n`,
      });
      expect(existsSync(join(cwd, '~'))).toBe(false);
    } finally {
      process.chdir(before);
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
