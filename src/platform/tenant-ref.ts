import { didYouMean } from '../api/suggest.js';
import { NotFoundError } from '../errors.js';
import type { Platform } from './index.js';

/**
 * A tenant named the way people name it — its id or its slug — turned into its id. A
 * well-formed id is taken as it is (no request: the server checks it on the call it goes with);
 * a slug is looked up among the caller's tenants, in one GET /v1/me sent without X-Tenant-Id
 * (that header is what is being resolved), or, from a server whose /v1/me lists no tenants, in
 * GET /v1/tenants.
 */
export const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A tenant named by a slug (or id) that is not one of the caller's. Exit 5. */
export class UnknownTenantError extends NotFoundError {}

export interface KnownTenant {
  id: string;
  slug: string;
  display_name: string;
}

export function isTenantId(ref: string): boolean {
  return TENANT_ID.test(ref);
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
 * The tenant with this id or slug among the caller's, or a not-found error (exit 5) with a
 * suggestion; `from` says where the name came from (`--tenant`, `SVC_TENANT`).
 */
export async function findTenant(platform: Platform, ref: string, from?: string): Promise<KnownTenant> {
  const tenants = await callerTenants(platform);
  const found = tenants.find((t) => t.id === ref || t.slug === ref);
  if (found) return found;
  const slugs = tenants.map((t) => t.slug);
  const where = from ? ` (from ${from})` : '';
  throw new UnknownTenantError(
    `no tenant ${JSON.stringify(ref)}${where} among your tenants${didYouMean(ref, slugs)}`,
    {
      hint: slugs.length
        ? `yours: ${slugs.slice(0, 8).join(', ')}${slugs.length > 8 ? ', …' : ''} (see \`svc tenants ls\`)`
        : 'your credential names no tenant where you hold a role (see `svc me`)',
    },
  );
}
