import { canonicalTenantRef } from '../api/tenant-id.js';
import type { Settings } from '../config/settings.js';
import { tenantSaid } from '../platform/tenants-said.js';

/**
 * The tenant a change was made in, as its ✓ line and single-item table name it (attack23 F5): an
 * admin of several tenants reads which one was changed, whether the tenant came from --tenant,
 * SVC_TENANT, the profile's default or a key profile's stored tenant. Named as the run named it
 * (canonicalTenantRef): a slug given is said as the slug, an id as the id (in lower case) — the
 * words the user can match to their settings, with no request of its own to turn one into the
 * other (a GET /v1/me after the change is made could fail and cost the line). A run that names no
 * tenant (a key that carries its own) names none.
 */
export function tenantChanged(settings: Settings): string | undefined {
  const named = settings.values.tenant;
  return named === undefined || named === '' ? undefined : canonicalTenantRef(named);
}

/** The words a command's question named its tenant in (kit.ts tenantLabel), by the run's settings. */
const asked = new WeakMap<Settings, string>();

/**
 * Keeps the words a question named the run's tenant in (`Acme Treasury (acme-treasury)`, read
 * from /v1/me before it was asked), so that the ✓ line after it says the same (review25b L5: it
 * asked "…in Acme Treasury (acme-treasury)?" and printed "✓ deleted … in 8ab23c1d-…").
 */
export function tenantAsked(settings: Settings, words: string): void {
  asked.set(settings, words);
}

/**
 * ` in Acme Treasury (acme-treasury)`, the words every such ✓ line (and bulk summary) puts after
 * what it changed; '' for none. One rule (fixout3), the API keys' lines' too (pick.ts): the
 * words of the command's own question when it asked one (tenantAsked); else, for the tenant the
 * run named by its id or slug, `Display Name (slug)` as the platform gave them in this run's own
 * answers (any GET /v1/me the command read before the line, a grant's weighing of its answer too:
 * tenantWords, platform/tenants-said.ts), never a slug stored earlier, which a rename may have made untrue;
 * else the tenant as the run named it (tenantChanged), the id or slug, when no answer of the run
 * named it (no request of its own for the words). Read when the line is printed (a bulk
 * summary's at the end), so an answer read during the run counts.
 */
export function changedIn(settings: Settings): string {
  const named = tenantChanged(settings);
  const tenant =
    asked.get(settings) ?? (named === undefined ? undefined : (tenantSaid(settings, named) ?? named));
  return tenant === undefined ? '' : ` in ${tenant}`;
}
