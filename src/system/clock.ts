import { setTimeout as sleep } from 'node:timers/promises';

/** A wait of `ms` that rejects when `signal` aborts (Ctrl-C, or the wait is no longer needed). */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * Where a run's time comes from: "now", and waiting (retries, polls). Real unless a test gives
 * its own (test/helpers/context.ts: a fixed `now`, or virtualClock(), whose waits return at once).
 */
export interface Clock {
  now(): number;
  /** Waits `ms`; rejects when `signal` aborts (Ctrl-C). Real time when a test's clock leaves it out. */
  sleep?: Sleep;
  /** Calls `expire` after `ms` unless cancelled first (a request's timeout). Real time when left out. */
  timer?: Timer;
  /**
   * Blocks for `ms` (a synchronous open polling a named pipe for its reader: user-output-file.ts).
   * Real time when left out; a test's that returns at once keeps the poll's count and bound.
   */
  sleepSync?: (ms: number) => void;
}

/** Calls `expire` once `ms` have passed; the function returned cancels it. */
export type Timer = (ms: number, expire: () => void) => () => void;

/** A real timer that keeps no process alive (unref). */
export const realTimer: Timer = (ms, expire) => {
  const timer = setTimeout(expire, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/** Real waiting, for a clock that does not bring its own: rejects when `signal` aborts. */
export const realSleep: Sleep = (ms, signal) => sleep(ms, undefined, signal ? { signal } : undefined);
