import { isoSeconds } from '../api/time.js';

/**
 * The sandbox's clock: real time plus an offset that tests (and `POST /_sandbox/clock`) can move
 * forward, so expiries, purges and retry schedules can be observed without waiting.
 */
export class SandboxClock {
  #offsetMs = 0;

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  /** ISO 8601 UTC with second precision, the API's timestamp format. */
  iso(ms: number = this.now()): string {
    return isoSeconds(ms);
  }

  advance(ms: number): void {
    this.#offsetMs += ms;
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }
}
