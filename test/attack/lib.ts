import { spawn } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { BIN, baseEnv } from '../helpers/svc.js';
import { useTempDir } from '../helpers/temp.js';

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

/** Code points below the surrogates (U+0000–U+D7FF), then those above them (U+E000–U+10FFFF). */
const BELOW_SURROGATES = 0xd800;
const ABOVE_SURROGATES = 0xe000;

/**
 * One character of any code point but a lone surrogate: fast-check's `unit: 'binary'`, built as
 * fast-check builds it (a nat over the 1,112,064 code points, U+i below the surrogates and
 * U+(i + 0x800) above), so a seed gives the same strings. fast-check's own unit maps a character
 * back to its index (to try its dangerous strings such as `__proto__`) through a Map of all
 * 1,112,064 it fills when the first binary string arbitrary is made: 0.8 s of a worker's CPU.
 * This one computes the index. `fc.string({ unit: anyCodePoint })` for `unit: 'binary'`.
 */
export const anyCodePoint: fc.Arbitrary<string> = fc
  .nat({ max: BELOW_SURROGATES + (0x10ffff - ABOVE_SURROGATES + 1) - 1 })
  .map(
    (i) => String.fromCodePoint(i < BELOW_SURROGATES ? i : i - BELOW_SURROGATES + ABOVE_SURROGATES),
    (value) => {
      const code = typeof value === 'string' ? value.codePointAt(0) : undefined;
      if (
        code === undefined ||
        String.fromCodePoint(code) !== value ||
        (code >= BELOW_SURROGATES && code < ABOVE_SURROGATES)
      ) {
        throw new Error('not one code point');
      }
      return code < BELOW_SURROGATES ? code : code - ABOVE_SURROGATES + BELOW_SURROGATES;
    },
  );

/** Private SVC_CONFIG_DIR / SVC_STATE_DIR / SVC_CACHE_DIR for one test file, removed afterwards. */
export function attackDirs(): { root: string; env: Record<string, string> } {
  // Made before the file's tests, not when it is collected (test/helpers/temp.ts).
  const root = useTempDir('svc-attack-');
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
