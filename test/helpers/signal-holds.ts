/**
 * What an AbortSignal holds of the signals made from it: those Node lists on it for the signals
 * AbortSignal.any made from it (never pruned on Node 20: nodejs/node#55351), and its abort
 * listeners. Counts, not bytes (test/bulk/row-signal.test.ts, test/bulk/run-signals.test.ts).
 */
import { getEventListeners } from 'node:events';

/** The signals listed on `signal` by AbortSignal.any, if this Node shows them (else undefined). */
export function dependants(signal: AbortSignal): number | undefined {
  const key = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kDependantSignals');
  return key === undefined
    ? undefined
    : ((signal as unknown as Record<symbol, Set<unknown>>)[key]?.size ?? 0);
}

/** Listed dependants (0 where Node does not show them) and abort listeners of `signal`. */
export function held(signal: AbortSignal): { dependants: number; listeners: number } {
  return { dependants: dependants(signal) ?? 0, listeners: getEventListeners(signal, 'abort').length };
}
