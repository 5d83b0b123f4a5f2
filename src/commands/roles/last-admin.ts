import { AdministrationForecast, TENANT_ADMIN } from '../../api/last-admin.js';
import { tenantByRef } from '../../api/tenant-id.js';
import type { Context } from '../../context.js';
import { lookupMayFail } from '../../errors.js';
import { platformTime } from '../../platform/clock.js';
import type { Platform } from '../../platform/index.js';
import type { BulkKind, GrantRow, RevokeRow } from './rows.js';

/**
 * The platform's last-tenant-admin rule (409 last_tenant_admin, src/api/last-admin.ts) in a dry
 * run of `roles revoke --file` and `roles assign --file`: played over the tenant's live
 * tenant_admin grants, read once when the first tenant_admin row comes, row after row in file
 * order (the order the rows are read in). The rows it would refuse are kept by line for the
 * dry run's worker. A prediction only: a server that cannot be asked leaves the rule to the real
 * run, which reports the platform's own answer.
 */
export class RowsForecast {
  #read: Promise<{ forecast: AdministrationForecast; caller: string } | undefined> | undefined;
  readonly #refusals = new Map<number, string>();

  constructor(
    private readonly ctx: Context,
    private readonly platform: Platform,
    private readonly kind: BulkKind,
    /** assign --extend: a held grant's expiry moves to the row's. */
    private readonly extend: boolean,
    private readonly tenant: string,
  ) {}

  /** Plays one row (in file order); rows of other roles change nothing. */
  async observe(row: RevokeRow | GrantRow): Promise<void> {
    if (row.role.id !== TENANT_ADMIN && row.role.name !== TENANT_ADMIN) return;
    this.#read ??= this.#readGrants(row.role.id);
    const read = await this.#read;
    if (!read) return;
    const { forecast, caller } = read;
    let refusal: string | undefined;
    if (this.kind === 'revoke') refusal = forecast.revoke(row.user);
    // A grant to oneself is refused before this rule (self_assignment): it changes nothing.
    else if (row.user === caller) return;
    else if (!forecast.holds(row.user)) forecast.grant(row.user, (row as GrantRow).expiresAt);
    else if (this.extend) refusal = forecast.move(row.user, (row as GrantRow).expiresAt);
    if (refusal !== undefined) this.#refusals.set(row.line, refusal);
  }

  /** The platform's refusal of the row at `line`, as a dry-run row's error. */
  refusal(line: number): { code: string; message: string } | undefined {
    const message = this.#refusals.get(line);
    return message === undefined ? undefined : { code: 'last_tenant_admin', message };
  }

  async #readGrants(roleId: string) {
    const signal = this.ctx.signal;
    try {
      const me = await this.platform.me.get({ signal, tenant: null });
      const slug = tenantByRef(me.tenants ?? [], this.tenant)?.slug;
      const grants = [];
      for await (const a of this.platform.roles.listAllTenantAssignments(
        { role_id: roleId, limit: 500 },
        { signal },
      )) {
        if ((a.status === undefined || a.status === 'active') && a.role_id === roleId) {
          grants.push({ user: a.user_id, expiresAt: a.expires_at ?? null });
        }
      }
      const forecast = new AdministrationForecast(
        slug ?? this.tenant,
        grants,
        platformTime(this.platform, this.ctx.clock.now()),
      );
      return { forecast, caller: me.id };
    } catch (error) {
      if (!lookupMayFail(error)) throw error;
      return undefined;
    }
  }
}
