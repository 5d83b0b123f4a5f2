import { describe, expect, it } from 'vitest';
import { bareCommandLine } from '../../src/config/settings.js';
import { InterruptedError, SvcError } from '../../src/errors.js';
import type { Platform } from '../../src/platform/index.js';
import { findTenant, UnknownTenantError } from '../../src/platform/tenant-ref.js';

/** A platform whose caller has one tenant, and whose tenant listing ends as `listing` says. */
function platformWith(listing: () => AsyncGenerator<{ id: string; slug: string }>): Platform {
  const mine = { id: 't-mine', slug: 'mine', display_name: 'Mine', role: 'tenant_admin' };
  return {
    me: { get: async () => ({ tenants: [mine] }) },
    tenants: { listAll: listing },
    svcAnyTenant: bareCommandLine,
  } as unknown as Platform;
}

describe('findTenant: the lookup of a slug that is not the caller’s', () => {
  it('stops with Ctrl-C when it comes during the listing, not with "no tenant" (exit 5)', async () => {
    const platform = platformWith(async function* () {
      yield* [];
      throw new InterruptedError('interrupted');
    });
    await expect(findTenant(platform, 'other')).rejects.toBeInstanceOf(InterruptedError);
  });

  it('goes on without the listing when the platform refuses it: not found, exit 5', async () => {
    const platform = platformWith(async function* () {
      yield* [];
      throw new SvcError('forbidden', 'not allowed to list tenants');
    });
    await expect(findTenant(platform, 'other')).rejects.toBeInstanceOf(UnknownTenantError);
  });
});
