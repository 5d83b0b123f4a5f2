import { canonicalTenantRef } from '../api/tenant-id.js';

/**
 * The slug the platform itself gave each tenant in this run's answers (GET /v1/me, its `tenants`),
 * by the run's settings (`ctx.settings()`, which every Platform of the run is made with). What the
 * server said in this run, read before the change a ✓ line reports: never a slug stored earlier
 * (a profile's, a journal's), which the tenant may have been renamed from since.
 */
const said = new WeakMap<object, Map<string, string>>();

/** Keeps the slugs an answer of this run gave (the id in canonical lower case). */
export function keepTenantsSaid(run: object, tenants: ReadonlyArray<{ id: string; slug: string }>): void {
  const slugs = said.get(run) ?? new Map<string, string>();
  said.set(run, slugs);
  for (const t of tenants) {
    if (typeof t.id === 'string' && typeof t.slug === 'string' && t.slug !== '')
      slugs.set(canonicalTenantRef(t.id), t.slug);
  }
}

/** The slug the platform gave the tenant with this id in this run, if any answer of it did. */
export function slugSaid(run: object, id: string): string | undefined {
  return said.get(run)?.get(canonicalTenantRef(id));
}
