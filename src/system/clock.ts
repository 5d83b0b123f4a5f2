import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Where a run's time comes from: "now", and waiting (retries, polls). Real unless a test gives
 * its own (test/helpers/context.ts: a fixed `now`, or virtualClock(), whose waits return at once).
 */
export interface Clock {
  now(): number;
  /** Waits `ms`; rejects when `signal` aborts (Ctrl-C). Real time when a test's clock leaves it out. */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Real waiting, for a clock that does not bring its own: rejects when `signal` aborts. */
export function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return sleep(ms, undefined, signal ? { signal } : undefined);
}
