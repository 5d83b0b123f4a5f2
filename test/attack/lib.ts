import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { BIN, baseEnv } from '../helpers/svc.js';

/**
 * Shared pieces of the attack suite (test/attack/, one file per attack class).
 *
 * `npm test` runs every class with its fast case counts; `npm run attack` sets SVC_ATTACK_FULL=1
 * and runs them with the full counts that docs/RELIABILITY.md reports. A class that adds cases
 * (fuzzed inputs, races, rows of a bulk run) asks `cases(fast, full)` how many to try.
 *
 * A new class: add `test/attack/<class>.test.ts`, use `cases()` for counts and `attackDirs()`
 * (or the sandbox helpers) for private config/state/cache directories, and add a row to
 * docs/RELIABILITY.md.
 */
export const FULL = process.env.SVC_ATTACK_FULL === '1';

export function cases(fast: number, full: number): number {
  return FULL ? full : fast;
}

/** Private SVC_CONFIG_DIR / SVC_STATE_DIR / SVC_CACHE_DIR for one test file, removed afterwards. */
export function attackDirs(): { root: string; env: Record<string, string> } {
  const root = mkdtempSync(join(tmpdir(), 'svc-attack-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  return {
    root,
    env: {
      SVC_CONFIG_DIR: join(root, 'config'),
      SVC_STATE_DIR: join(root, 'state'),
      SVC_CACHE_DIR: join(root, 'cache'),
    },
  };
}

/**
 * Spawns svc with `env` and SIGKILLs it once stdout has more than `lines` lines (no handler runs,
 * nothing is flushed); resolves with what it printed, and rejects if it ended before the kill.
 */
export function killedAfter(env: Record<string, string>, args: string[], lines: number): Promise<string> {
  const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(env) });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
    if (!child.killed && out.split('\n').length > lines) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) =>
    child.on('close', (code, signal) =>
      signal === 'SIGKILL' ? resolve(out) : reject(new Error(`ended ${code} before the kill`)),
    ),
  );
}
