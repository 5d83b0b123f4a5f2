/**
 * Tests that need a system tool Node does not bring (a shell, tmux, a browser, openssl, GNU
 * time). `npm install && npm test` must pass on a machine with only Node, so such tests sit in a
 * `needs(tools).describe(...)` block:
 *
 * - every tool found on PATH: the block runs as usual;
 * - one missing, CI unset: the block is skipped, and test/reporters/missing-tools.ts prints one
 *   line at the end of the run naming the tool, how many tests it skipped and how to install it;
 * - one missing with CI=true: the block is one failing test saying what to install (.ci/run
 *   installs every tool, so CI never skips silently).
 *
 * Hooks that use the tool go inside the block (a skipped block runs none of its hooks).
 */
import { describe, it } from 'vitest';
import { missingPhrase, type SystemTool, toolPath } from './system-tools.js';

export { requiredTool, type SystemTool, toolPath } from './system-tools.js';

export interface Needs {
  /** Whether every tool is there. */
  available: boolean;
  /** A describe block that runs, is skipped with a note, or fails under CI=true (see above). */
  describe(name: string, body: () => void): void;
}

export function needs(...tools: SystemTool[]): Needs {
  const missing = tools.filter((tool) => !toolPath(tool));
  if (missing.length === 0) return { available: true, describe: (name, body) => describe(name, body) };
  if (process.env.CI === 'true') {
    return {
      available: false,
      describe: (name) =>
        describe(name, () => {
          it(`needs ${missing.join(', ')}`, () => {
            throw new Error(
              `${missingPhrase(missing)}; with CI=true these tests are required (.ci/run installs the tools)`,
            );
          });
        }),
    };
  }
  return {
    available: false,
    describe: (name, body) => describe.skip(name, { meta: { missingTools: missing } }, body),
  };
}

/** What a block needing `missing` does: run (nothing missing), fail under CI=true, else skip. */
export function setupOutcome(missing: string | undefined, ci: boolean): 'run' | 'fail' | 'skip' {
  if (missing === undefined) return 'run';
  return ci ? 'fail' : 'skip';
}

/**
 * A block that needs something of the machine other than a tool on PATH (`missing` says what is
 * lacking, undefined when nothing is; `fix` how to give it), by the rule above: it runs; with
 * CI=true it is one failing test naming what is missing and the fix; otherwise it is skipped with
 * one line saying why (review18 R18-5: the own-stdout block skipped under CI).
 */
export function needsSetup(missing: string | undefined, fix: string, ci = process.env.CI === 'true'): Needs {
  const outcome = setupOutcome(missing, ci);
  if (outcome === 'run') return { available: true, describe: (name, body) => describe(name, body) };
  if (outcome === 'fail') {
    return {
      available: false,
      describe: (name) =>
        describe(name, () => {
          it(`needs ${fix}`, () => {
            throw new Error(`${missing}: ${fix}; with CI=true these tests are required`);
          });
        }),
    };
  }
  return {
    available: false,
    describe: (name, body) => {
      console.warn(`skipped: ${name}: ${missing}`);
      describe.skip(name, body);
    },
  };
}

/**
 * A block that gives files to other users (chown), so runs only as root: otherwise skipped with one
 * line saying why, as the spawned root tests are (test/config/root-left-store.test.ts).
 */
export function asRootDescribe(name: string, body: () => void): void {
  if (process.platform !== 'win32' && process.getuid?.() === 0) {
    describe(name, body);
    return;
  }
  console.warn(`skipped: ${name}: not run as root (it gives files to other users)`);
  describe.skip(name, body);
}
