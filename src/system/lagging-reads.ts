/**
 * Reading again through a server whose reads lag behind its writes: a change this run made (its
 * answer lost, the retry answered from the platform's record) that a read does not show yet. The
 * creations' checks (src/commands/replayed-creation.ts) and the stored grants' (src/bulk/
 * stored-grants.ts) share the waits, so both give a lagging server the same time.
 */
import { InterruptedError } from '../errors.js';
import type { Sleep } from './clock.js';

/**
 * The waits before reading again what a read does not show yet: a server whose reads lag behind
 * its writes answers 404 just after the 201 (review18b R2), lists a grant made a moment ago as
 * absent or one just revoked as held (review20 F6). 1.75 s in all; then svc stops waiting.
 */
export const LAGGING_READ_WAITS_MS: readonly number[] = [250, 500, 1000];

/**
 * `read` (undefined: what is looked for is not shown), read again after each of
 * LAGGING_READ_WAITS_MS while it is not and `lags`; the waits through the run's clock, so a
 * signal that aborts (Ctrl-C) cuts them (an InterruptedError) and a test does not wait.
 */
export async function readThroughLag<T>(
  ctx: { clock: { sleep: Sleep }; signal: AbortSignal },
  lags: boolean,
  read: () => Promise<T | undefined>,
): Promise<T | undefined> {
  let found = await read();
  for (const ms of lags ? LAGGING_READ_WAITS_MS : []) {
    if (found !== undefined) break;
    await ctx.clock.sleep(ms, ctx.signal).catch((error: unknown) => {
      throw ctx.signal.aborted ? new InterruptedError() : error;
    });
    found = await read();
  }
  return found;
}
