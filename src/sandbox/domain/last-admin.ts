import { isoSeconds } from '../../api/time.js';
import type { SandboxState } from '../state.js';
import { DomainError } from './errors.js';
import { type Assignment, endMs, type Tenant } from './identity.js';

/**
 * A change cannot make a tenant's administration end sooner. The administration ends when the
 * last live tenant_admin grant ends (a permanent one: never); revoking a tenant_admin grant, or
 * moving its expiry sooner (`newExpiry`), is refused (409 last_tenant_admin) when that grant ends
 * later than every other live tenant_admin grant and the change would bring the end forward. A
 * grant expiring in 15 minutes does not stand in for a permanent one: counting it let a tenant be
 * left with no administrator a quarter of an hour after a revocation that was allowed.
 */
export function keepAdministration(
  state: SandboxState,
  tenant: Tenant,
  grant: Assignment,
  change: { revoke: true } | { newExpiry: string | null },
  now: number,
): void {
  if (grant.role_id !== 'tenant_admin') return;
  const others = state.identity.assignments.filter(
    (a) =>
      a !== grant &&
      a.tenant_id === tenant.id &&
      a.role_id === 'tenant_admin' &&
      state.identity.isActive(a, now),
  );
  // A loop, not Math.max(...spread): a seeded tenant may hold more grants than a call takes arguments.
  let othersEnd = Number.NEGATIVE_INFINITY;
  for (const a of others) othersEnd = Math.max(othersEnd, endMs(a.expires_at));
  const newEnd = 'revoke' in change ? now : endMs(change.newExpiry);
  const current = endMs(grant.expires_at);
  if (Math.max(othersEnd, newEnd) >= current) return;
  if (others.length === 0) {
    throw new DomainError(
      'last_tenant_admin',
      `${grant.user_id} is the last active tenant_admin of ${tenant.slug}; grant tenant_admin to someone else first`,
    );
  }
  const what =
    'revoke' in change
      ? `revoking ${grant.user_id}'s tenant_admin`
      : `moving the expiry of ${grant.user_id}'s tenant_admin to ${change.newExpiry}`;
  const after = isoSeconds(Math.max(othersEnd, newEnd));
  const needed = grant.expires_at === null ? 'permanently' : `until ${grant.expires_at} or later`;
  throw new DomainError(
    'last_tenant_admin',
    `${what} would leave ${tenant.slug} without an administrator after ${after}, when every other tenant_admin grant has ended; first grant tenant_admin ${needed} to someone else`,
  );
}
