// The test selection Stryker runs (`npm run mutation`, stryker.config.mjs). Stryker mutates src/ in
// its sandbox and sees a mutant only in code that runs in the test's own process. Files made only of
// spawned tests (test/e2e, the contract and docs checks, the bulk and config-race attacks that kill
// or race processes) run the built dist/ bundle instead: they cannot kill a mutant and are left out.
// Files that mix in-process and spawned tests stay in; the global setup builds dist/ for their
// spawned half (from the sandbox's src/, whose mutants stay inactive in a child process).
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/** Files whose every test starts the binary. */
const SPAWNED_ONLY = [
  'test/e2e/**',
  'test/contract/**',
  'test/docs/**',
  'test/attack/config-races.test.ts',
  'test/bulk/attack-pipe-close.test.ts',
  'test/bulk/attack-sigkill.test.ts',
];

export default mergeConfig(
  base,
  defineConfig({
    test: {
      include: ['test/**/*.test.ts'],
      setupFiles: ['test/mutation/worker-setup.ts'],
      exclude: ['**/node_modules/**', ...SPAWNED_ONLY],
      // Stryker runs one vitest per worker and one test file at a time inside it.
      maxWorkers: 1,
      fileParallelism: false,
    },
  }),
);
