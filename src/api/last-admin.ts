import { endMs, isoSeconds } from './time.js';

/**
 * The rule of the last tenant_admin (409 last_tenant_admin), once, for the sandbox that enforces
 * it and for svc, which predicts it in dry runs and plans: a change cannot make a tenant's
 * administration end sooner. The administration ends when the last live tenant_admin grant ends
 * (a permanent one: never); revoking a tenant_admin grant, or moving its expiry sooner, is
 * refused when that grant ends later than every other live tenant_admin grant and the change
 * would bring the end forward. A grant expiring in 15 minutes does not stand in for a permanent
 * one: counting it let a tenant be left with no administrator a quarter of an hour after a
 * revocation that was allowed.
 */

export const TENANT_ADMIN = 'tenant_admin';

/** A tenant_admin grant: who holds it, until when (null: permanently). */
export interface AdminGrant {
  user: string;
  expiresAt: string | null;
}

export type AdministrationChange = { revoke: true } | { newExpiry: string | null };

/**
 * Why the platform refuses `change` to `grant` (its message), or undefined when it allows it.
 * `others` are the expiries of every other live tenant_admin grant of the tenant (named `tenant`).
 */
export function lastAdminRefusal(
  tenant: string,
  grant: AdminGrant,
  others: Iterable<string | null>,
  change: AdministrationChange,
  now: number,
): string | undefined {
  // A loop, not Math.max(...spread): a tenant may hold more grants than a call takes arguments.
  let othersEnd = Number.NEGATIVE_INFINITY;
  let count = 0;
  for (const expiresAt of others) {
    othersEnd = Math.max(othersEnd, endMs(expiresAt));
    count++;
  }
  const newEnd = 'revoke' in change ? now : endMs(change.newExpiry);
  if (Math.max(othersEnd, newEnd) >= endMs(grant.expiresAt)) return undefined;
  if (count === 0) {
    return `${grant.user} is the last active tenant_admin of ${tenant}; grant tenant_admin to someone else first`;
  }
  const what =
    'revoke' in change
      ? `revoking ${grant.user}'s tenant_admin`
      : `moving the expiry of ${grant.user}'s tenant_admin to ${change.newExpiry}`;
  const after = isoSeconds(Math.max(othersEnd, newEnd));
  const needed = grant.expiresAt === null ? 'permanently' : `until ${grant.expiresAt} or later`;
  return `${what} would leave ${tenant} without an administrator after ${after}, when every other tenant_admin grant has ended; first grant tenant_admin ${needed} to someone else`;
}

/**
 * The rule played over a tenant's live tenant_admin grants, change after change in the order
 * they would reach the platform: what `roles revoke/assign --file --dry-run` and `svc plan`
 * predict. A change the rule refuses leaves the grants as they were; one it allows is applied.
 * A prediction only: the real run reports the platform's own answer.
 */
export class AdministrationForecast {
  readonly #grants = new Map<string, string | null>();

  constructor(
    readonly tenant: string,
    grants: Iterable<AdminGrant>,
    readonly now: number,
  ) {
    for (const g of grants) this.#grants.set(g.user, g.expiresAt);
  }

  holds(user: string): boolean {
    return this.#grants.has(user);
  }

  /** A new grant: it only ever makes the administration last longer. */
  grant(user: string, expiresAt: string | null): void {
    if (!this.#grants.has(user)) this.#grants.set(user, expiresAt);
  }

  /** The refusal of revoking `user`'s grant, or undefined (and the grant is gone). */
  revoke(user: string): string | undefined {
    return this.#change(user, { revoke: true });
  }

  /** The refusal of moving `user`'s grant to `expiresAt`, or undefined (and the grant is moved). */
  move(user: string, expiresAt: string | null): string | undefined {
    return this.#change(user, { newExpiry: expiresAt });
  }

  #change(user: string, change: AdministrationChange): string | undefined {
    if (!this.#grants.has(user)) return undefined;
    const others = [...this.#grants].filter(([u]) => u !== user).map(([, expiresAt]) => expiresAt);
    const grant = { user, expiresAt: this.#grants.get(user)! };
    const refusal = lastAdminRefusal(this.tenant, grant, others, change, this.now);
    if (refusal !== undefined) return refusal;
    if ('revoke' in change) this.#grants.delete(user);
    else this.#grants.set(user, change.newExpiry);
    return undefined;
  }
}
