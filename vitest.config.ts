import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/**
 * The workers' V8 optimises a function (TurboFan, on the worker's background threads) only once
 * it has run for 8 times V8's default budget. A worker runs thousands of code paths a few times
 * each, and optimising them cost more CPU than it saved: 41 test/commands files (every tenth), run
 * at the same time as the default, median of 3, 17.3 s of per-file CPU -> 14.5 s (bench/RESULTS.md,
 * session 27). Hot loops (10,000-row runs, fuzzing) are still optimised, a little later. Spawned
 * svc processes start as users' do. Left out where this Node does not know the flag.
 */
const LATER_TURBOFAN = '--interrupt-budget=540672';
const workerFlags =
  spawnSync(process.execPath, [LATER_TURBOFAN, '-e', ''], { stdio: 'ignore' }).status === 0
    ? [LATER_TURBOFAN]
    : [];

export default defineConfig({
  define: { __SVC_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // One fast-check seed under CI=true, a new one elsewhere (the file says why).
    // SVC_CPU_PROBE=<file>: one line of CPU per test file (test/helpers/cpu-probe.ts), off by default.
    setupFiles: [
      'test/helpers/fast-check-seed.ts',
      // Removes the directories tempDir() made (test/helpers/temp.ts).
      'test/helpers/temp-setup.ts',
      // Loads svc's command modules before the first file that runs commands in-process, once per
      // worker, outside any test's waits and limits (test/helpers/warm-commands.ts).
      'test/helpers/warm-commands.ts',
      ...(process.env.SVC_CPU_PROBE ? ['test/helpers/cpu-probe.ts'] : []),
    ],
    // The default output, then one line per system tool whose tests were skipped (test/helpers/needs.ts).
    reporters: ['default', './test/reporters/missing-tools.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    execArgv: workerFlags,
    // Two cores, but a worker waits about half its time on the processes its tests spawn (svc,
    // tmux, shells, Chromium, Prism): on the 2-core machine, median of 3 runs, 3 workers took
    // 50.8 s, 2 took 57.0 s and 4 took 56–60 s (each worker loads src/ and its tools again).
    maxWorkers: 3,
    // A worker keeps its loaded modules from one test file to the next: each file used to import
    // src/ (the command tree, fastify, undici) afresh, 45 of the 130 s of test/commands +
    // test/sandbox. Test files share no state but the module cache: every file starts its own
    // sandbox and temporary directories, no file mocks a module or changes process.env (but TZ
    // for one call, put back after it: test/helpers/time-zone.ts), and vi.spyOn is restored
    // after each test (test/runtime/runtime.test.ts).
    isolate: false,
    fileParallelism: true,
  },
});
