import { canonicalTenantRef } from '../api/tenant-id.js';

/** A tenant as an answer of the platform gave it: its id, slug and, where given, display name. */
export interface TenantGiven {
  id: string;
  slug: string;
  display_name?: string | undefined;
}

/**
 * The one form every line naming a tenant a change was made in uses, when an answer of the run
 * gave its names: `Acme Treasury (acme-treasury)`, the display name and the slug (the words an
 * API key's ✓ line, a question and a ✓ line after a question say alike; fixout3). A tenant whose
 * answer gave no display name is named by its slug alone.
 */
export function tenantWords(tenant: TenantGiven): string {
  const name = typeof tenant.display_name === 'string' ? tenant.display_name.trim() : '';
  return name === '' || name === tenant.slug ? tenant.slug : `${name} (${tenant.slug})`;
}

/**
 * The words (tenantWords) the platform itself gave each tenant in this run's answers (GET /v1/me,
 * its `tenants`), by the run's settings (`ctx.settings()`, which every Platform of the run is made
 * with), found by id and by slug. What the server said in this run, read before the change a ✓
 * line reports: never a slug stored earlier (a profile's, a journal's), which the tenant may have
 * been renamed from since.
 */
const said = new WeakMap<object, Map<string, string>>();

/** Keeps the words an answer of this run gave (keyed by the id in canonical lower case, and by the slug). */
export function keepTenantsSaid(run: object, tenants: ReadonlyArray<TenantGiven>): void {
  const words = said.get(run) ?? new Map<string, string>();
  said.set(run, words);
  for (const t of tenants) {
    if (typeof t.id !== 'string' || typeof t.slug !== 'string' || t.slug === '') continue;
    words.set(canonicalTenantRef(t.id), tenantWords(t));
    words.set(`slug:${canonicalTenantRef(t.slug)}`, tenantWords(t));
  }
}

/** The words the platform gave the tenant this id or slug names in this run, if any answer of it did. */
export function tenantSaid(run: object, ref: string): string | undefined {
  const words = said.get(run);
  const canonical = canonicalTenantRef(ref);
  return words?.get(canonical) ?? words?.get(`slug:${canonical}`);
}
