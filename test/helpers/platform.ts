import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Context } from '../../src/context.js';
import type { Platform } from '../../src/platform/index.js';
import { tenantId } from '../../src/sandbox/seed.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { testContext } from './context.js';

export const ACME = tenantId('acme-treasury');

/**
 * The platform client of an in-process Context, as the sandbox's admin in Acme Treasury, with
 * private config, state and cache directories. Made before the file's tests, closed after them.
 */
export function usePlatform(
  sandbox: () => Pick<Sandbox, 'url' | 'adminToken'>,
  env: Record<string, string> = {},
): () => { platform: Platform; ctx: Context } {
  let made: { platform: Platform; ctx: Context } | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'svc-platform-'));
  beforeAll(async () => {
    const { ctx } = testContext({
      SVC_CONFIG_DIR: join(dir, 'config'),
      SVC_STATE_DIR: join(dir, 'state'),
      SVC_CACHE_DIR: join(dir, 'cache'),
      SVC_BASE_URL: sandbox().url,
      SVC_TOKEN: sandbox().adminToken,
      SVC_TENANT: ACME,
      SVC_MAX_RETRIES: '0',
      ...env,
    });
    made = { ctx, platform: await ctx.platform() };
  });
  afterAll(async () => {
    await made?.ctx.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!made) throw new Error('platform not made yet');
    return made;
  };
}
