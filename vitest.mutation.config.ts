// The test selection Stryker runs (`npm run mutation`, stryker.config.mjs). Stryker mutates src/ in
// its sandbox and sees a mutant only in code that runs in the test's own process. Files made only or
// mostly of spawned tests (test/e2e, the contract and docs checks, the bulk and config-race attacks
// that kill or race processes, the webhooks CLI files that drive the binary) run the built dist/
// bundle instead: they cannot kill a mutant and are left out. Files with a stray spawned test stay
// in; the global setup builds dist/ for it (from the sandbox's src/, whose mutants stay inactive in
// a child process).
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** Files whose tests start the binary (all of them, or all that matter to the six folders). */
const SPAWNED_ONLY = [
  'test/e2e/**',
  'test/contract/**',
  'test/docs/**',
  'test/attack/config-races.test.ts',
  'test/attack/pipe-close.test.ts',
  'test/attack/sigkill.test.ts',
  'test/attack/apply-sigkill.test.ts',
  'test/webhooks/cli.test.ts',
  'test/commands/webhooks/listen-webhook.test.ts',
];

/**
 * `SVC_MUTATION_FOLDER=<folder>` narrows the run to the tests aimed at that folder (its unit tests,
 * the attacks on it, a verb or two that are its main users): with every in-process test, a mutant
 * in code each command runs (the config store, the HTTP client, the output layer) is covered by
 * hundreds of tests and a folder takes hours on two cores. A score measured this way is a lower bound: a mutant that
 * survives it might still be killed by a test outside the selection.
 */
const FOLDER_TESTS: Record<string, string[]> = {
  config: [
    'test/unit/config-*.test.ts',
    // Not tilde-dir.test.ts: it changes the working directory, which Stryker's worker threads cannot.
    'test/config/store-*.test.ts',
    'test/config/{private-group,parent-fix}.test.ts',
    // Root for $HOME's owner (session 19): the journals, the lock and its pid file given to them
    // (store-directory.ts heirOf, lock.ts). Not root-for-owner.test.ts: its run as uid 4242 cannot
    // reach Stryker's sandbox (failed the initial run).
    'test/config/state-for-owner.test.ts',
    'test/unit/env-numbers.test.ts',
    'test/auth/refresh.test.ts',
    'test/commands/config/**',
    'test/commands/profiles/**',
  ],
  output: ['test/unit/{output,format,reflow,errors}.test.ts', 'test/unit/output-*.test.ts', 'test/output/**'],
  http: [
    'test/unit/{retry,path,redact,errors}.test.ts',
    'test/unit/http-*.test.ts',
    'test/http/**',
    'test/attack/hostile-server.test.ts',
    'test/attack/secrets.test.ts',
    // Other servers' paging shapes (src/http/paging.ts), through the list verbs in-process.
    'test/commands/paging-shapes.test.ts',
  ],
  // src/http/paging.ts alone (session 25: measured by line range, the http selection takes an hour
  // for it): its unit tests and every list verb's paging test in-process (the repeats, &printed=,
  // --limit cuts and numbered pages are told through the verbs there, not in the http selection).
  paging: [
    'test/unit/http-paging*.test.ts',
    'test/unit/other-server-rules.test.ts',
    'test/commands/paging-*.test.ts',
    'test/commands/list-shapes.test.ts',
    'test/commands/audit/ls-unknown-ids.test.ts',
    'test/commands/tenants/api-keys-get-paged.test.ts',
  ],
  // With the login verbs tested in-process (test/commands/auth, oauth): the browser login of
  // src/auth/flow.ts runs there against the sandbox's consent page and svc's loopback.
  auth: [
    'test/auth/**',
    'test/unit/auth-*.test.ts',
    'test/attack/origin.test.ts',
    'test/commands/auth/**',
    'test/commands/oauth/**',
  ],
  // With the bulk verbs that drive it in-process: grants and revokes from files (their readers,
  // journal and resume), the dead-letter replay and discard, and svc apply.
  bulk: [
    'test/bulk/**',
    'test/unit/bulk-*.test.ts',
    'test/commands/roles/{assign-file,revoke-file,rows}.test.ts',
    // Session 20's inputs and outcomes through the verbs: rows as spreadsheets and svc's own outputs
    // write them, JSON arrays, files not UTF-8 or past the bounds, a CSV on stdin cut short, the
    // words of a run's outcomes and of a journal left by an earlier run.
    'test/commands/roles/{own-output-input,rows-as-typed,json-array-file,stdin-cut,not-utf8-file}.test.ts',
    'test/commands/roles/{bulk-input-limit,bulk-truth,unknown-status-words,journal-then}.test.ts',
    'test/commands/webhooks/replay.test.ts',
    'test/commands/webhooks/dlq/discard.test.ts',
    // The DLQ window's start on the platform's clock (Journal.platformStart), new in session 16.
    'test/commands/webhooks/dlq/{window-clock,clock,resume-clock}.test.ts',
    'test/commands/apply/**',
  ],
  // Not test/webhooks/{api,delivery,fair*}: they test the sandbox's delivery engine (src/sandbox),
  // which signs with src/webhooks/signature.ts but takes seconds of retries per mutant.
  // With the in-process listen and verify/sign verbs (sessions 15–16: line-first answering, a
  // closed stdout, the masked start line; the secret and header files' encodings).
  webhooks: [
    'test/webhooks/signature.test.ts',
    'test/unit/webhooks-*.test.ts',
    'test/attack/fuzzed-inputs.test.ts',
    'test/commands/webhooks/listen-*.test.ts',
    'test/commands/webhooks/verify*.test.ts',
  ],
};
const folder = process.env.SVC_MUTATION_FOLDER;
if (folder !== undefined && !(folder in FOLDER_TESTS)) {
  throw new Error(`SVC_MUTATION_FOLDER must be one of ${Object.keys(FOLDER_TESTS).join(', ')}`);
}

// Spread, not mergeConfig: mergeConfig would append to the base include list instead of replacing it.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: folder === undefined ? ['test/**/*.test.ts'] : FOLDER_TESTS[folder]!,
    exclude: ['**/node_modules/**', ...SPAWNED_ONLY],
    setupFiles: ['test/mutation/worker-setup.ts', 'test/helpers/temp-setup.ts'],
    // Stryker runs one vitest per worker and one test file at a time inside it.
    maxWorkers: 1,
    fileParallelism: false,
    // No V8 flags: Stryker's vitest runner runs the tests in worker threads, and a Worker refuses
    // the base's --interrupt-budget (ERR_WORKER_INVALID_EXEC_ARGV), so every run failed its initial
    // test run (session 27, after 3c761974).
    execArgv: [],
  },
});
