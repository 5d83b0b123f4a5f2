import { afterAll, beforeAll } from 'vitest';
import type { Context } from '../../src/context.js';
import type { Platform } from '../../src/platform/index.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { testContext, useTempDirs, virtualClock } from './context.js';
import { ACME } from './sandbox.js';

export { ACME };

/**
 * The platform client of an in-process Context, as the sandbox's admin in Acme Treasury, with
 * temporary config, state and cache directories, no retries, and waits that take no time
 * (virtualClock: a wait for an earlier attempt still running is counted, not slept). Made before
 * the file's tests, closed after them.
 */
export function usePlatform(
  sandbox: () => Pick<Sandbox, 'url' | 'adminToken'>,
  env: Record<string, string> = {},
): () => { platform: Platform; ctx: Context } {
  const dirs = useTempDirs();
  let made: { platform: Platform; ctx: Context } | undefined;
  beforeAll(async () => {
    const { ctx } = testContext({
      clock: virtualClock(),
      env: {
        ...dirs(),
        SVC_BASE_URL: sandbox().url,
        SVC_TOKEN: sandbox().adminToken,
        SVC_TENANT: ACME,
        SVC_MAX_RETRIES: '0',
        ...env,
      },
    });
    made = { ctx, platform: await ctx.platform() };
  });
  afterAll(async () => {
    await made?.ctx.close();
  });
  return () => {
    if (!made) throw new Error('platform not made yet');
    return made;
  };
}
