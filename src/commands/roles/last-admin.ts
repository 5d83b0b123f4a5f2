import { AdministrationForecast, TENANT_ADMIN } from '../../api/last-admin.js';
import { assignmentInForce, unknownStatusWords } from '../../api/roles.js';
import { UnknownWordsError } from '../../bulk/judge.js';
import type { Context } from '../../context.js';
import { lookupMayFail } from '../../errors.js';
import { platformTime } from '../../platform/clock.js';
import type { Platform } from '../../platform/index.js';
import type { CallerForecast } from './holds.js';
import type { BulkKind, GrantRow, RevokeRow } from './rows.js';

/**
 * Whether a row's outcome may hang on another row of the same run by the last-tenant-admin rule: a
 * tenant_admin row of a revoke file, or of an assign --extend file (a held grant's expiry moves;
 * a new grant can make a later shortening allowed). The real run makes such rows one at a time,
 * in file order (bulk.ts items), the order RowsForecast plays them in for the dry run, so the
 * row the dry run says is refused is the one the platform refuses (s15 dryrun15 F3).
 */
export function orderLinked(kind: BulkKind, extend: boolean, row: RevokeRow | GrantRow): boolean {
  return (kind === 'revoke' || extend) && isTenantAdmin(row);
}

const isTenantAdmin = (row: RevokeRow | GrantRow) =>
  row.role.id === TENANT_ADMIN || row.role.name === TENANT_ADMIN;

/**
 * The platform's last-tenant-admin rule (409 last_tenant_admin, src/api/last-admin.ts) in a dry
 * run of `roles revoke --file` and `roles assign --file`: played over the tenant's live
 * tenant_admin grants, read once when the first tenant_admin row comes, row after row in file
 * order (the order the rows are read in); a row the caller may not make (CallerForecast) changes
 * nothing. The rows it would refuse are kept by line for the dry run's worker. A prediction only:
 * a server that cannot be asked leaves the rule to the real run, which reports the platform's own
 * answer.
 */
export class RowsForecast {
  #read: Promise<AdministrationForecast | undefined> | undefined;
  readonly #refusals = new Map<number, string>();
  /** A tenant_admin grant's status svc does not know, in words (the forecast's refusals are then no prediction). */
  #uncertain: string | undefined;
  #slug = '';

  constructor(
    private readonly ctx: Context,
    private readonly platform: Platform,
    private readonly kind: BulkKind,
    /** assign --extend: a held grant's expiry moves to the row's. */
    private readonly extend: boolean,
    /** What the caller may do: a row the platform refuses them first changes nothing here. */
    private readonly caller: CallerForecast,
  ) {}

  /** Plays one row (in file order); rows of other roles change nothing. */
  async observe(row: RevokeRow | GrantRow): Promise<void> {
    if (!isTenantAdmin(row)) return;
    this.#read ??= this.#readGrants(row.role.id);
    const forecast = await this.#read;
    if (!forecast) return;
    // Refused before this rule (a grant to oneself, a role the caller may not hand out): it changes nothing.
    if (await this.caller.refusal(this.kind, row)) return;
    let refusal: string | undefined;
    if (this.kind === 'revoke') refusal = forecast.revoke(row.user);
    else if (!forecast.holds(row.user)) forecast.grant(row.user, (row as GrantRow).expiresAt);
    else if (this.extend) refusal = forecast.move(row.user, (row as GrantRow).expiresAt);
    if (refusal !== undefined) this.#refusals.set(row.line, refusal);
  }

  /**
   * The platform's refusal of the row at `line`, as a dry-run row's error. Played while some
   * tenant_admin grant had a status svc does not know (counted as no administrator: more held
   * never refuses more), it is no prediction: the row could not be checked (UnknownWordsError).
   */
  refusal(line: number): { code: string; message: string } | undefined {
    const message = this.#refusals.get(line);
    if (message === undefined) return undefined;
    if (this.#uncertain !== undefined) {
      throw new UnknownWordsError(
        `svc cannot tell whether it would leave ${this.#slug} without a tenant administrator: ${this.#uncertain}`,
      );
    }
    return { code: 'last_tenant_admin', message };
  }

  async #readGrants(roleId: string) {
    const signal = this.ctx.signal;
    try {
      const grants = [];
      for await (const a of this.platform.roles.listAllTenantAssignments(
        { role_id: roleId, limit: 500 },
        { signal },
      )) {
        if (a.role_id !== roleId) continue;
        const inForce = assignmentInForce(a.status);
        if (inForce === 'held') grants.push({ user: a.user_id, expiresAt: a.expires_at ?? null });
        if (inForce === 'unknown') {
          this.#uncertain ??= unknownStatusWords(`${a.user_id}'s`, a.role_name ?? TENANT_ADMIN, a.status);
        }
      }
      this.#slug = await this.caller.slug();
      return new AdministrationForecast(
        this.#slug,
        grants,
        platformTime(this.platform, this.ctx.clock.now()),
      );
    } catch (error) {
      if (!lookupMayFail(error)) throw error;
      return undefined;
    }
  }
}
