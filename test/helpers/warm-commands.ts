/**
 * Setup file (vitest.config.ts): before a test file that runs svc's commands in-process (it
 * imported ./context.ts), load every command's modules, once per worker (isolate: false keeps
 * them for the worker's next files).
 *
 * A file's first command used to load them inside its first test: at load 35–45 on the 2-core
 * machine that took ~12 s, which used up a first `waitForStderr` (15 s) or a first case's 30 s
 * limit (session 28, report-fixflake). Here it happens under the hook's limit (hookTimeout,
 * 60 s), and no test's wait or limit counts it. Files that run no command in-process load nothing.
 */
import { beforeAll } from 'vitest';

const slot = globalThis as { __svcWarmCommands?: () => Promise<void> };

beforeAll(async () => {
  await slot.__svcWarmCommands?.();
});
