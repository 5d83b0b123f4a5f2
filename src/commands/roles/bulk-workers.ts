// Just over 300 lines: the three workers of one bulk verb (grant, revoke, plan) share the row's
// judgement of a grant in place (heldAlready, moveHeld); split, each would be read beside the others.
/**
 * What one row of `svc roles assign --file` / `revoke --file` does (bulk.ts runs them): the grant,
 * the revoke (the caller's own rows held back while an earlier row is owed), and --dry-run's plan
 * of each.
 */
import {
  assignmentInForce,
  justificationNotSent,
  oddGrantStatus,
  unknownStatusWords,
} from '../../api/roles.js';
import type { RoleAssignment } from '../../api/schemas/roles.js';
import { sameExpiry } from '../../api/time.js';
import { FOUND_AFTER_LOST_ANSWER, type Worker } from '../../bulk/item.js';
import {
  definiteRefusal,
  ItemError,
  NotShownYetError,
  UndoneSinceError,
  UnknownWordsError,
} from '../../bulk/judge.js';
import { OWN_REACH_PHASE } from '../../bulk/order.js';
import { checkStoredGrant, checkStoredRevocation } from '../../bulk/stored-grants.js';
import { readAfterChange, SvcError } from '../../errors.js';
import { counted } from '../../output/format.js';
import {
  AssignmentExistsError,
  AssignmentNotFoundError,
  doneUnread,
  GoneAfterLostAnswerError,
  shownBy,
} from '../../platform/errors.js';
import {
  attemptStart,
  type CallerIds,
  foundAfterLostAnswer,
  grantAnswerNotMade,
  type SentChange,
  sentStart,
} from '../../platform/found-after-lost.js';
import type { Platform } from '../../platform/index.js';
import type { Sleep } from '../../system/clock.js';
import { endsKeyHold, expiryNotKept, expiryUnread, heldAfterSelfRefusal, keyHoldEnds } from './held.js';
import type { CallerForecast } from './holds.js';
import type { RowsForecast } from './last-admin.js';
import { anotherGrant, grantHeldNow } from './listed-grant.js';
import type { BulkKind, GrantRow, RevokeRow } from './rows.js';
import { namedNotFound } from './shared.js';

type Row = GrantRow | RevokeRow;

/** Each role's permissions by id: the run's roles, for the API-key rule (endsKeyHold). */
export type RolePermissions = ReadonlyMap<string, readonly string[]>;

/**
 * A row's `api_keys_may_stop` when its move gave a permanent grant an end that may stop the user's
 * API keys (the single grant's rule, endsKeyHold), said once after the summary (sayKeysMayStop).
 * The move is made: a check that fails says "may" rather than fail the row (readAfterChange).
 */
async function keysMayStop(
  platform: Platform,
  user: string,
  moved: { role_id: string; expires_at: string | null },
  permissions: RolePermissions,
): Promise<{ api_keys_may_stop?: true }> {
  const ends = await readAfterChange(endsKeyHold(platform, user, moved, permissions), true);
  return ends ? { api_keys_may_stop: true } : {};
}

export const grant =
  (
    platform: Platform,
    extend: boolean,
    permissions: RolePermissions,
    /** This machine's clock: each row's start (attemptStart) and the waits. */
    clock: { now(): number; sleep: Sleep },
    /** The run's anchor on the platform's clock (at or before its first attempts), once known. */
    startedAt: () => string | undefined = () => undefined,
    /** Who the caller is, read once when an answer needs it (grantAnswerNotMade). */
    callers: CallerIds = async () => undefined,
  ): Worker<Row> =>
  async ({ data }, { signal, idempotencyKey, replayed, resumed, sentEarlier }) => {
    const row = data as GrantRow;
    const body = {
      role_id: row.role.id,
      ...(row.expiresAt === null ? {} : { expires_at: row.expiresAt }),
      justification: row.justification,
    };
    const startMs = clock.now();
    let answer: Awaited<ReturnType<ReturnType<Platform['roles']['assign']>['withResponse']>>;
    try {
      answer = await platform.roles.assign(row.user, body, { signal, idempotencyKey }).withResponse();
    } catch (error) {
      // The run this one resumes sent it first (its journal's mark): judged from that attempt.
      const start = sentStart(sentEarlier) ?? attemptStart(platform, startMs);
      return alreadyHeld(platform, extend, permissions, row, error, signal, start);
    }
    const { data: made, response } = answer;
    // A 2xx carrying a grant this request clearly did not make (by someone else, or days before
    // the run): held already, as a 409 says it (attack26b F6; the single verb's rule, review26a H1).
    const other = await grantAnswerNotMade(
      {
        justification: row.justification,
        held: made,
        startedAt: startedAt(),
        refuse: (problem) => platform.roles.assignAnswerRefused(row.user, body, problem, response),
      },
      callers,
    );
    if (other !== undefined)
      return extend && !sameExpiry(made.expires_at, row.expiresAt)
        ? moveHeld(platform, permissions, row, made, signal)
        : heldAlready(made, row, `the server answered with a grant in place: ${other}`);
    const unread = expiryUnread(
      {
        user: row.user,
        role: row.role.name,
        sent: row.expiresAt,
        answered: made.expires_at,
        status: response.status,
      },
      `see it among the assignments of ${row.user}`,
    );
    if (unread) throw unread;
    const mark = replayed(response);
    // The platform's record of a grant made earlier: counted only while the user holds it, with
    // the expiry held now (under --extend, only while it is the row's).
    const now = mark.replayed
      ? await checkStoredGrant(
          platform,
          row,
          made,
          { resumed, afterLostAnswer: response.afterLostAnswer, signal, sleep: clock.sleep },
          extend ? row.expiresAt : undefined,
        )
      : { expires_at: made.expires_at };
    const odd = oddGrantStatus(made.status);
    return {
      ...now,
      audit_trail_id: made.audit_trail_id,
      ...mark,
      ...(odd ? { note: odd } : {}),
      // Granted, but not with the expiry asked for (a server that drops it): said after the run.
      ...(expiryNotKept(row.expiresAt, made.expires_at) ? { expiry_not_kept: true } : {}),
    };
  };

/**
 * A grant the platform refused: one already in place (409 assignment_exists) is skipped, or with
 * --extend has its expiry moved; a grant found made by the retry of an attempt whose answer was
 * lost is done; any other refusal is the row's failure (a user or role not found named).
 */
async function alreadyHeld(
  platform: Platform,
  extend: boolean,
  permissions: RolePermissions,
  row: GrantRow,
  error: unknown,
  signal: AbortSignal,
  /** The row's first attempt's start on the platform's clock (attemptStart), or the cut run's (sentStart). */
  start: Pick<SentChange, 'before' | 'onServerClock' | 'sentByCutRun'>,
): Promise<Record<string, unknown>> {
  // --extend of a role the caller holds is a change of its own expiry: asked as such.
  const self = extend
    ? await heldAfterSelfRefusal(platform, error, row.user, row.role.id, signal)
    : undefined;
  // The platform refuses a second active assignment: the row is in place already.
  if (!self && !(error instanceof AssignmentExistsError))
    throw await namedNotFound(platform, error, row.user);
  const held = self ?? (error as AssignmentExistsError).assignment;
  if (extend && (self || !held || !sameExpiry(held.expires_at, row.expiresAt)))
    return moveHeld(platform, permissions, row, held, signal);
  // Told it exists by the retry of an attempt whose answer was lost: most likely that attempt made
  // it, so done, not "nothing changed", unless anything shows it is another's (foundAfterLostAnswer).
  const lost = self
    ? undefined
    : foundAfterLostAnswer(error, {
        ...start,
        check: shownBy('roles holders', row.role.name)(platform.svc),
        grant: { justification: row.justification, expiresAt: row.expiresAt, held },
      });
  if (lost !== undefined) {
    return {
      reason: FOUND_AFTER_LOST_ANSWER,
      expires_at: held?.expires_at ?? null,
      audit_trail_id: held?.audit_trail_id,
      note: `the answer to the grant was lost (${lost}) and its retry found it made: most likely by that attempt`,
    };
  }
  return heldAlready(held, row);
}

/**
 * A grant in place, left as it is: skipped, already_assigned (`note`: why a 2xx's grant is not the
 * row's). Reached only after the row's POST (its justification in the body) was answered with the
 * grant in place (a 409, or a 2xx): a justification that grant does not carry was sent but is
 * recorded nowhere: said, never lost silently (justificationNotSent, `sent`).
 */
const heldAlready = (
  held: RoleAssignment | undefined,
  row: GrantRow,
  note?: string,
): Record<string, unknown> => {
  const unsent = justificationNotSent(
    row.justification,
    "the row's",
    true,
    held === undefined ? undefined : held.justification,
  );
  const notes = [note, unsent?.words].filter((w) => w !== undefined);
  return {
    status: 'skipped',
    reason: 'already_assigned',
    expires_at: held?.expires_at ?? null,
    audit_trail_id: held?.audit_trail_id,
    ...(notes.length ? { note: notes.join('; ') } : {}),
    ...unsent?.flag,
  };
};

/** --extend of a grant in place (`held`, as the platform gave it): its expiry moved to the row's. */
async function moveHeld(
  platform: Platform,
  permissions: RolePermissions,
  row: GrantRow,
  held: RoleAssignment | undefined,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  // An absolute expiry: sending it again (a resumed run) changes nothing more.
  const moved = await platform.roles.updateAssignment(
    row.user,
    row.role.id,
    { expires_at: row.expiresAt, justification: row.justification },
    { signal },
  );
  // Read after the move: of two moves of one user's grants at once, the later sees both.
  const keys =
    held?.expires_at === null && moved.expires_at !== null
      ? await keysMayStop(platform, row.user, moved, permissions)
      : {};
  return {
    reason: 'expiry_updated',
    expires_at: moved.expires_at,
    previous_expires_at: held?.expires_at ?? null,
    audit_trail_id: moved.update_audit_trail_id ?? moved.audit_trail_id,
    ...keys,
  };
}

/**
 * The revoke worker. The caller's own rows (OWN_REACH_PHASE on, see items) are not made while an earlier
 * row may still be owed (it failed without a definite answer, or its outcome is unknown): the
 * resumed run sends it again, and it would then find the caller without the power to make it.
 * Such an own row fails unattempted and unjournaled, so the same command makes it last again.
 */
export const revoke = (platform: Platform, sleep: Sleep): Worker<Row> => {
  let owed = 0;
  return async ({ data: row, phase }, { signal, idempotencyKey, replayed, resumed }) => {
    if (phase !== undefined && phase >= OWN_REACH_PHASE && owed > 0) {
      throw new SvcError(
        'failure',
        `not attempted: it revokes your own ${row.role.name}, made last, and ${counted(owed, 'earlier row')} did not finish; run the same command again to finish them first`,
        { code: 'own_row_deferred' },
      );
    }
    // A row that lists its grant revokes that one only, and an --extend run's result row none: the
    // grant held now is read first (listed-grant.ts).
    if (row.auditTrailId !== undefined || row.extension !== undefined) {
      const other = anotherGrant(row, await grantHeldNow(platform, row, signal), platform.svc);
      if (other) throw new ItemError('failure', other.message, { code: other.code });
    }
    let answer: Awaited<ReturnType<ReturnType<Platform['roles']['revoke']>['withResponse']>>;
    try {
      // The item's key: a resumed run's retry is answered from the platform's record, not with 404.
      answer = await platform.roles.revoke(row.user, row.role.id, { signal, idempotencyKey }).withResponse();
    } catch (error) {
      if (error instanceof AssignmentNotFoundError) return { status: 'skipped', reason: 'not_assigned' };
      // Done, or refused for good: nothing is owed; anything else may still be.
      if (!(error instanceof GoneAfterLostAnswerError) && !definiteRefusal(error) && !doneUnread(error))
        owed++;
      // A user or role that does not exist: which one, with where to look (as the single verb says).
      throw await namedNotFound(platform, error, row.user);
    }
    const { data: done, response } = answer;
    const mark = replayed(response);
    // The platform's record of a revocation made earlier: counted only while the user does not
    // hold the role again. Held again, the same command revokes it anew: owed, as a row not done.
    if (mark.replayed) {
      const stored = { resumed, afterLostAnswer: response.afterLostAnswer, signal, sleep };
      await checkStoredRevocation(platform, row, done, stored).catch((error: unknown) => {
        if (error instanceof UndoneSinceError || error instanceof NotShownYetError) owed++;
        throw error;
      });
    }
    return {
      revoked_at: done.revoked_at,
      revocation_audit_trail_id: done.revocation_audit_trail_id,
      ...mark,
    };
  };
};

/**
 * --dry-run: the user's roles are read (nothing is changed) to tell what would happen to the row.
 * What the platform would refuse is planned as a failure with its code, in the order it checks:
 * a grant to the caller themself (403 self_assignment, whatever they hold); a role the caller may
 * not hand out, or not for that long (`caller`: 403 insufficient_permission, also before a held
 * role is reported); a revocation that would leave the tenant without an administrator
 * (`forecast`: 409 last_tenant_admin, played over the rows in file order).
 */
export const plan =
  (
    platform: Platform,
    kind: BulkKind,
    extend: boolean,
    caller: CallerForecast,
    permissions: RolePermissions,
    forecast?: RowsForecast,
  ): Worker<Row> =>
  async ({ data: row }, { signal }) => {
    // A grant the caller may not make fails before the platform looks at who holds what.
    const refusedGrant = kind === 'assign' ? await caller.checkedRefusal(kind, row) : undefined;
    const selfExpiry = extend && kind === 'assign' ? await caller.selfExpiry(row as GrantRow) : undefined;
    if (refusedGrant && !selfExpiry) return { status: 'failed', error: refusedGrant };
    const held = (await platform.roles.listAssignments(row.user, {}, { signal })).items;
    const ofRole = held.filter((a) => a.role_id === row.role.id);
    const active: RoleAssignment | undefined = ofRole.find((a) => assignmentInForce(a.status) === 'held');
    // A status word svc does not know is neither held nor ended: the row could not be checked.
    const odd = active ? undefined : ofRole.find((a) => assignmentInForce(a.status) === 'unknown');
    if (odd) throw new UnknownWordsError(unknownStatusWords(`${row.user}'s`, row.role.name, odd.status));
    // --extend of a role the caller holds asks to move their own expiry (the real run asks so).
    if (refusedGrant) return { status: 'failed', error: active && selfExpiry ? selfExpiry : refusedGrant };
    if (kind === 'assign') {
      const expiresAt = (row as GrantRow).expiresAt;
      if (active && extend && !sameExpiry(active.expires_at, expiresAt)) {
        const refused = forecast?.refusal(row.line);
        if (refused) return { status: 'failed', error: refused, previous_expires_at: active.expires_at };
        const keys =
          active.expires_at === null &&
          expiresAt !== null &&
          keyHoldEnds(permissions, held, { role_id: row.role.id, expires_at: expiresAt });
        return {
          reason: 'expiry_updated',
          expires_at: expiresAt,
          previous_expires_at: active.expires_at,
          ...(keys ? { api_keys_may_stop: true } : {}),
        };
      }
      if (active) {
        return {
          status: 'skipped',
          reason: 'already_assigned',
          expires_at: active.expires_at,
          audit_trail_id: active.audit_trail_id,
        };
      }
      return { expires_at: expiresAt };
    }
    if (!active) return { status: 'skipped', reason: 'not_assigned' };
    const other = anotherGrant(row, active, platform.svc);
    if (other) return { status: 'failed', error: other, audit_trail_id: active.audit_trail_id };
    const refused = (await caller.checkedRefusal(kind, row)) ?? forecast?.refusal(row.line);
    if (refused) return { status: 'failed', error: refused, audit_trail_id: active.audit_trail_id };
    return { audit_trail_id: active.audit_trail_id };
  };
