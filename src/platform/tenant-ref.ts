import { didYouMean } from '../api/suggest.js';
import { namesTenant, tenantByRef } from '../api/tenant-id.js';
import { lookupMayFail, NotFoundError, SvcError } from '../errors.js';
import { quoted } from '../output/format.js';
import { sym } from '../output/symbols.js';
import type { Platform } from './index.js';

/**
 * A tenant named the way people name it — its id or its slug — turned into its id. A
 * well-formed id is taken as it is (no request: the server checks it on the call it goes with);
 * a slug is looked up among the caller's tenants, in one GET /v1/me sent without X-Tenant-Id
 * (that header is what is being resolved), or, from a server whose /v1/me lists no tenants, in
 * GET /v1/tenants. (What a well-formed id is: src/api/tenant-id.ts.)
 */

/** A tenant named by a slug (or id) that names no tenant the caller can see. Exit 5. */
export class UnknownTenantError extends NotFoundError {}

/**
 * A tenant that exists (a listing the caller can read has it) but is not one of the credential's
 * tenants, or one where the caller holds no role: refused as the same tenant named by its id is.
 * Exit 4.
 */
export class ForeignTenantError extends SvcError {
  constructor(message: string, hint: string) {
    super('forbidden', message, { code: 'tenant_forbidden', hint });
  }
}

export interface KnownTenant {
  id: string;
  slug: string;
  display_name: string;
}

/** The tenants the caller may act in, as /v1/me lists them (else /v1/tenants). */
export async function callerTenants(platform: Platform): Promise<KnownTenant[]> {
  const me = await platform.me.get({ tenant: null });
  if (Array.isArray(me.tenants)) return me.tenants;
  const all: KnownTenant[] = [];
  for await (const t of platform.tenants.listAll({ limit: 200 }, { tenant: null })) all.push(t);
  return all;
}

/**
 * The tenant with this id or slug among the caller's; else, when a listing the caller can read
 * has it (an org_admin's GET /v1/tenants), a refusal (exit 4) like the same tenant named by its
 * id; else a not-found error (exit 5) with a suggestion. `from` says where the name came from
 * (`--tenant`, `SVC_TENANT`).
 */
export async function findTenant(platform: Platform, ref: string, from?: string): Promise<KnownTenant> {
  const tenants = await callerTenants(platform);
  const found = tenantByRef(tenants, ref);
  if (found) return found;
  const slugs = tenants.map((t) => t.slug);
  const yours = `yours: ${slugs.slice(0, 8).join(', ')}${slugs.length > 8 ? `, ${sym.ellipsis}` : ''}`;
  const existing = await visibleTenant(platform, ref);
  if (existing) {
    const where = from ? `from ${from}, ` : '';
    throw new ForeignTenantError(
      `tenant ${quoted(ref)} (${where}${existing.id}) is not one of your credential's tenants, or you hold no role there`,
      `${slugs.length ? `${yours}; ` : ''}ask an administrator of ${existing.slug} for a role, or use a credential that names it`,
    );
  }
  const where = from ? ` (from ${from})` : '';
  throw new UnknownTenantError(
    `no tenant ${quoted(ref)}${where} among your tenants${didYouMean(ref, slugs)}`,
    {
      hint: slugs.length
        ? `${yours} (see \`${platform.svcAnyTenant('tenants ls')}\`)`
        : `your credential names no tenant where you hold a role (see \`${platform.svcAnyTenant('me')}\`)`,
    },
  );
}

/** The tenant with this id or slug in GET /v1/tenants, when the caller may read it; else undefined. */
async function visibleTenant(platform: Platform, ref: string): Promise<KnownTenant | undefined> {
  try {
    for await (const t of platform.tenants.listAll({ limit: 200 }, { tenant: null })) {
      if (namesTenant(t, ref)) return t;
    }
  } catch (error) {
    // Not allowed to list, or the listing failed: the slug is then only known not to be the caller's.
    if (!lookupMayFail(error)) throw error;
  }
  return undefined;
}
