/**
 * What the running command is, for words made far below it (review21c F7: "lower --concurrency"
 * was said by commands that have no such flag): one AsyncLocalStorage store per command run, which
 * every error made in the run's async tree (a row's, the config store's, a 429's) and the error
 * line rendered at its end can read, instead of a flag threaded through every layer between. No
 * imports of svc's own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface CommandFacts {
  /** The command runs requests in parallel under --concurrency (a bulk command). */
  concurrency: boolean;
}

const running = new AsyncLocalStorage<CommandFacts>();

/** Runs one command line (runCli): what it learns of itself lasts until its error line is made. */
export function inCommand<T>(run: () => T): T {
  return running.run({ concurrency: false }, run);
}

/**
 * Runs a bulk command, which has --concurrency: from here to the command's end (its error line
 * included), words that a lower --concurrency helps say so. Called without inCommand (a test of a
 * verb's run function), the facts last for `run` alone.
 */
export function withConcurrency<T>(run: () => Promise<T>): Promise<T> {
  const facts = running.getStore();
  if (facts === undefined) return running.run({ concurrency: true }, run);
  facts.concurrency = true;
  return run();
}

/** Whether the running command has --concurrency (a bulk command), so "lower --concurrency" is advice it can take. */
export function hasConcurrency(): boolean {
  return running.getStore()?.concurrency === true;
}
