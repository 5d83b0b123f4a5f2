import { isoSeconds } from '../api/time.js';

/**
 * The sandbox's clock: real time (or a base a test gives and moves itself) plus an offset that
 * tests (and `POST /_sandbox/clock`) can move forward, so expiries, purges and retry schedules can
 * be observed without waiting.
 */
export class SandboxClock {
  static readonly LIMIT_MS = Date.parse('9999-01-01T00:00:00Z');
  #offsetMs = 0;
  readonly #base: () => number;

  constructor(base: () => number = Date.now) {
    this.#base = base;
  }

  now(): number {
    return this.#base() + this.#offsetMs;
  }

  /** ISO 8601 UTC with second precision, the API's timestamp format. */
  iso(ms: number = this.now()): string {
    return isoSeconds(ms);
  }

  /**
   * How far the clock may still move: it stays before LIMIT, so every time the API says keeps
   * RFC 3339's four-digit year (and a JavaScript Date, which ends in year 275760, never overflows).
   */
  maxAdvanceMs(): number {
    return Math.max(0, SandboxClock.LIMIT_MS - this.now());
  }

  advance(ms: number): void {
    // Tests move it back too (a negative ms); the route allows forward only.
    if (!(Number.isFinite(ms) && ms <= this.maxAdvanceMs())) {
      throw new RangeError(`the sandbox clock cannot move ${ms} ms (at most ${this.maxAdvanceMs()})`);
    }
    this.#offsetMs += ms;
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }
}
