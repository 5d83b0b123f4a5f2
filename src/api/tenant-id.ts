/**
 * Tenant ids are UUIDs, and UUIDs are case-insensitive on input (RFC 9562 §4): an id pasted in
 * upper case (as SQL Server and .NET print them) names the same tenant. Both sides compare and
 * send the canonical lower-case form.
 */
export const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isTenantId(ref: string): boolean {
  return TENANT_ID.test(ref);
}

/** A UUID-shaped tenant reference in lower case; anything else (a slug) as given. */
export function canonicalTenantRef(ref: string): string {
  return isTenantId(ref) ? ref.toLowerCase() : ref;
}
