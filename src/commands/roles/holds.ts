import { authorityFrom, type CallerAuthority, type Refusal } from '../../api/holds.js';
import type { Role } from '../../api/schemas/roles.js';
import { tenantByRef } from '../../api/tenant-id.js';
import type { Context } from '../../context.js';
import { lookupMayFail } from '../../errors.js';
import type { Platform } from '../../platform/index.js';
import type { BulkKind, GrantRow, RevokeRow } from './rows.js';

/**
 * The platform's self_assignment rule, in the words the real run's row gets from the sandbox: a
 * grant is refused for it before the held role is looked at; --extend of a role the caller holds
 * is then asked as an expiry change (held.ts `heldAfterSelfRefusal`), refused in its own words.
 */
export const SELF_GRANT: Refusal = {
  code: 'self_assignment',
  message: 'you cannot grant roles to yourself; ask another administrator',
};
export const SELF_EXPIRY: Refusal = {
  code: 'self_assignment',
  message: 'you cannot change the expiry of your own roles; ask another administrator',
};

interface Caller {
  /** '' when the platform could not say. */
  id: string;
  slug: string;
  authority: CallerAuthority | undefined;
}

/**
 * Who the caller is and what they may hand out, for the dry runs of `roles assign --file` and
 * `roles revoke --file`: read once, when the first row is planned — GET /v1/me, then a user's own
 * assignments in the tenant (an API key acts with its one role) — and played against each row by
 * the platform's rule (src/api/holds.ts: every permission of the role held live, for as long as
 * the grant lasts; API keys do not mint keys). A prediction only: a server that cannot be asked
 * (403, 404, another server) leaves the rule to the real run, which reports the platform's own
 * answer.
 */
export class CallerForecast {
  #read: Promise<Caller> | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly platform: Platform,
    private readonly tenant: string,
    private readonly roles: readonly Role[],
  ) {}

  /** The tenant's slug, as /v1/me names it (the tenant as given when it could not be read). */
  async slug(): Promise<string> {
    return (await this.#get()).slug;
  }

  /**
   * The platform's refusal of the row for who the caller is and what they hold, or undefined. A
   * grant to oneself fails whatever one holds (self_assignment, svc plan marks the same refused);
   * a grant row is judged as svc sends it (a new grant until the row's expiry, also with
   * --extend: the platform checks that before it says the role is held).
   */
  async refusal(kind: BulkKind, row: GrantRow | RevokeRow): Promise<Refusal | undefined> {
    const { id, authority } = await this.#get();
    if (kind === 'assign' && id === row.user) return SELF_GRANT;
    if (!authority) return undefined;
    return kind === 'assign'
      ? authority.grant(row.role, (row as GrantRow).expiresAt)
      : authority.revoke(row.role);
  }

  #get() {
    this.#read ??= this.#readCaller();
    return this.#read;
  }

  async #readCaller(): Promise<Caller> {
    const signal = this.ctx.signal;
    let id = '';
    let slug = this.tenant;
    try {
      const me = await this.platform.me.get({ signal, tenant: null });
      id = me.id;
      const tenant = tenantByRef(me.tenants ?? [], this.tenant);
      slug = tenant?.slug ?? this.tenant;
      const byId = new Map(this.roles.map((r) => [r.id, r]));
      const byName = new Map(this.roles.map((r) => [r.name, r]));
      let held: Array<{ role: string; expiresAt: string | null }>;
      if (me.type === 'user') {
        const mine = (await this.platform.roles.listAssignments(me.id, {}, { signal })).items;
        held = mine
          .filter((a) => a.status === undefined || a.status === 'active')
          .map((a) => ({ role: a.role_id, expiresAt: a.expires_at ?? null }));
      } else {
        // An API key acts with its one role, named by /v1/me, until it is revoked.
        const role = tenant?.role && byName.get(tenant.role)?.id;
        if (!role) return { id, slug, authority: undefined };
        held = [{ role, expiresAt: null }];
      }
      return {
        id,
        slug,
        authority: authorityFrom(slug, me.type === 'user', held, (role) => byId.get(role)?.permissions),
      };
    } catch (error) {
      if (!lookupMayFail(error)) throw error;
      return { id, slug, authority: undefined };
    }
  }
}
