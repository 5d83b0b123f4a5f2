import { authorityFrom, type CallerAuthority, type Refusal } from '../../api/caller-authority.js';
import { assignmentInForce, unknownStatusWords } from '../../api/roles.js';
import type { Role } from '../../api/schemas/roles.js';
import { selfAssignmentRefusal } from '../../api/self-assignment.js';
import { tenantByRef } from '../../api/tenant-id.js';
import { notChecked as isUnanswered, UnknownWordsError } from '../../bulk/judge.js';
import type { Context } from '../../context.js';
import { lookupMayFail, SvcError } from '../../errors.js';
import type { Platform } from '../../platform/index.js';
import type { CallerIdentity } from '../../platform/me.js';
import type { BulkKind, GrantRow, RevokeRow } from './rows.js';

interface Caller {
  /**
   * The user the platform refuses every grant to as a grant to oneself (self_assignment), with the
   * refusal in its words: the caller, or the user who issued the caller's API key (/v1/me's
   * credential.issued_by); undefined when the platform did not say.
   */
  self: { user: string; refusal: Refusal; expiry: Refusal } | undefined;
  slug: string;
  authority: CallerAuthority | undefined;
  /** GET /v1/me was not answered (a 5xx or 429 after the retries, no answer, a timeout): why. */
  unanswered?: SvcError;
  /** /v1/me was answered, the caller's own assignments were not: which read, and why. */
  holdingsUnanswered?: { read: string; error: SvcError };
  /**
   * One of the caller's own assignments has a status svc does not know (neither held nor ended):
   * what `authority` lacks may be held, so a refusal it gives is no prediction; the words for it.
   */
  uncertain?: string;
}

/**
 * Whom the platform takes for the caller themself when they grant (a grant is refused for it
 * before the held role is looked at, with --extend too: always a grant's words). A key is seen
 * through to its issuer when /v1/me names them; a server that does not leaves it to the real run.
 */
function selfOf(me: CallerIdentity): Caller['self'] {
  const issuer = me.type === 'api_key' ? me.credential?.issued_by : undefined;
  if (me.type === 'api_key' && typeof issuer !== 'string') return undefined;
  const user = issuer ?? me.id;
  return {
    user,
    refusal: { code: 'self_assignment', message: selfAssignmentRefusal('grant', issuer ?? undefined) },
    expiry: { code: 'self_assignment', message: selfAssignmentRefusal('expiry', issuer ?? undefined) },
  };
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
    const { self, authority } = await this.#get();
    if (kind === 'assign' && self?.user === row.user) return self.refusal;
    if (!authority) return undefined;
    return kind === 'assign'
      ? authority.grant(row.role, (row as GrantRow).expiresAt)
      : authority.revoke(row.role);
  }

  /**
   * The refusal as a dry-run row's: one that rests on the caller's grants of a status svc does not
   * know (they may hold what it lacks; more held never refuses more) is no prediction: the row
   * could not be checked (UnknownWordsError), never "your live roles there do not grant".
   */
  async checkedRefusal(kind: BulkKind, row: GrantRow | RevokeRow): Promise<Refusal | undefined> {
    const refused = await this.refusal(kind, row);
    const { self, uncertain } = await this.#get();
    const ownGrant = kind === 'assign' && self?.user === row.user;
    if (refused && uncertain && !ownGrant) throw new UnknownWordsError(uncertain);
    return refused;
  }

  /**
   * Whether a revoke row takes a grant from the caller themself (or from the person who issued
   * their API key): such rows run last (bulk.ts), since they may take away the power the others need.
   */
  async own(row: RevokeRow): Promise<boolean> {
    const { self } = await this.#get();
    return self?.user === row.user;
  }

  /**
   * Before a bulk file runs (one rule for both kinds): a dry run must know who the caller is and
   * what they hold, or it cannot tell the rows that grant to the caller themself (self_assignment)
   * or hand out a role they may not, nor the revoke rows that take away their own roles, and would
   * promise rows the real run refuses (exploratory test s12, contract12 #2). A real revoke run must
   * know who the caller is, or their own rows cannot be held back to the end, and the first of them
   * in file order could take away the power every later row needs (s12, review-e H1); a real grant
   * run needs neither: the platform refuses such rows itself. When the read went unanswered, nothing
   * is sent: exit 1, run it again. A server that answered it cannot be asked (403, 404, another
   * server) is not stopped here: it has nothing to wait for, and the real run reports its answers.
   */
  async require(kind: BulkKind, dryRun: boolean): Promise<void> {
    if (!dryRun && kind === 'assign') return;
    const why = await this.#unanswered(dryRun);
    if (why === undefined) return;
    if (!dryRun) {
      throw new SvcError('failure', `${why}; nothing was revoked; try again`, { code: 'identity_unknown' });
    }
    throw notChecked(
      why,
      kind === 'assign'
        ? 'which rows grant to yourself or hand out a role you may not'
        : 'which rows take away your own roles (the real run makes them last)',
    );
  }

  /**
   * What the caller holds, for another verb's dry run (`webhooks replay`, `dlq discard`) to say
   * which items the platform refuses them; undefined when the server cannot be asked (the real
   * run reports its answers). A read that went unanswered stops the dry run (exit 1,
   * not_checked): it cannot tell `rows`.
   */
  async authority(rows: string): Promise<CallerAuthority | undefined> {
    const why = await this.#unanswered(true);
    if (why !== undefined) throw notChecked(why, rows);
    // Grants of a status svc does not know: what they hold is not learnt (the verbs say so).
    const { authority, uncertain } = await this.#get();
    return uncertain === undefined ? authority : undefined;
  }

  /** Why who the caller is (or, for a dry run, what they hold) is not known: a read went unanswered. */
  async #unanswered(dryRun: boolean): Promise<string | undefined> {
    const { unanswered, holdingsUnanswered } = await this.#get();
    const missing = unanswered
      ? { what: 'who you are', read: 'GET /v1/me', error: unanswered }
      : dryRun && holdingsUnanswered
        ? { what: 'what you hold', read: holdingsUnanswered.read, error: holdingsUnanswered.error }
        : undefined;
    return missing && `could not learn ${missing.what} (${missing.read}: ${missing.error.message})`;
  }

  /**
   * The refusal of --extend for a row whose user is the caller themself (or their key's issuer)
   * and who holds the role: the platform refuses the grant first, then the expiry change the real
   * run asks next (held.ts `heldAfterSelfRefusal`), in its own words. Undefined for anyone else.
   */
  async selfExpiry(row: GrantRow): Promise<Refusal | undefined> {
    const { self } = await this.#get();
    return self?.user === row.user ? self.expiry : undefined;
  }

  #get() {
    this.#read ??= this.#readCaller();
    return this.#read;
  }

  async #readCaller(): Promise<Caller> {
    const signal = this.ctx.signal;
    let self: Caller['self'];
    let slug = this.tenant;
    let me: CallerIdentity;
    try {
      me = await this.platform.me.get({ signal, tenant: null });
    } catch (error) {
      if (!lookupMayFail(error)) throw error;
      return { self, slug, authority: undefined, ...(isUnanswered(error) ? { unanswered: error } : {}) };
    }
    try {
      self = selfOf(me);
      const tenant = tenantByRef(me.tenants ?? [], this.tenant);
      slug = tenant?.slug ?? this.tenant;
      const byId = new Map(this.roles.map((r) => [r.id, r]));
      const byName = new Map(this.roles.map((r) => [r.name, r]));
      let held: Array<{ role: string; expiresAt: string | null }>;
      let uncertain: string | undefined;
      if (me.type === 'user') {
        let mine: Awaited<ReturnType<Platform['roles']['listAssignments']>>['items'];
        try {
          mine = (await this.platform.roles.listAssignments(me.id, {}, { signal })).items;
        } catch (error) {
          if (!lookupMayFail(error) || !isUnanswered(error)) throw error;
          const read = `GET /v1/users/${me.id}/roles`;
          return { self, slug, authority: undefined, holdingsUnanswered: { read, error: error as SvcError } };
        }
        held = mine
          .filter((a) => assignmentInForce(a.status) === 'held')
          .map((a) => ({ role: a.role_id, expiresAt: a.expires_at ?? null }));
        const odd = mine.find((a) => assignmentInForce(a.status) === 'unknown');
        if (odd) {
          const role = odd.role_name ?? byId.get(odd.role_id)?.name ?? odd.role_id;
          uncertain = `svc cannot tell what your roles in ${slug} grant: ${unknownStatusWords('your', role, odd.status)}`;
        }
      } else {
        // An API key acts with its one role, named by /v1/me, until it is revoked, and only while
        // its issuer holds that role without an end date (else /v1/me was a 401): held with no end.
        const role = tenant?.role && byName.get(tenant.role)?.id;
        if (!role) return { self, slug, authority: undefined };
        held = [{ role, expiresAt: null }];
      }
      return {
        self,
        slug,
        authority: authorityFrom(slug, me.type === 'user', held, (role) => byId.get(role)?.permissions),
        ...(uncertain === undefined ? {} : { uncertain }),
      };
    } catch (error) {
      if (!lookupMayFail(error)) throw error;
      return { self, slug, authority: undefined };
    }
  }
}

/** A dry run stopped because a read it needs went unanswered: it cannot tell `rows` (exit 1, not_checked). */
export const notChecked = (why: string, rows: string) =>
  new SvcError(
    'failure',
    `${why}: the dry run cannot tell ${rows}; nothing was changed; run the dry run again`,
    {
      code: 'not_checked',
    },
  );
