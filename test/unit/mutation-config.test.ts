/**
 * Session 27: Stryker's vitest runner runs the tests in worker threads, and a Worker refuses V8
 * flags such as the base config's --interrupt-budget (ERR_WORKER_INVALID_EXEC_ARGV): with them
 * inherited, every Stryker run failed its initial test run. The mutation config's flags must be
 * ones a Worker starts with.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import mutation from '../../vitest.mutation.config.js';

describe('vitest.mutation.config.ts', () => {
  it("gives its workers only flags a worker thread accepts (Stryker's runner uses threads)", async () => {
    const execArgv = mutation.test?.execArgv ?? [];
    // The constructor throws ERR_WORKER_INVALID_EXEC_ARGV on a flag a worker refuses.
    const worker = new Worker('', { eval: true, execArgv });
    const code = await new Promise((resolve) => {
      worker.once('exit', resolve);
      worker.once('error', () => resolve('error'));
    });
    expect(code).toBe(0);
  });
});
