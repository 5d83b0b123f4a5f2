// Over 300 lines: the one rule for what a run finds after it lost an answer (a refusal "already
// so", a grant's 2xx) and the evidence it weighs (the attempt's start, a cut run's mark, who the
// caller is) are read together; apart, each caller would judge with half of it.
/**
 * The one rule for a refusal that says a change is so already (409 role_name_taken,
 * assignment_exists, role_deleted) when it came to the retry of an attempt whose answer was lost
 * (ApiError.lostAnswer): is what the retry found most likely that attempt's own doing? svc apply
 * (role create, grant, --prune delete), roles assign and roles assign --file all ask it here.
 *
 * Only when nothing svc holds shows otherwise (review25a H1):
 * - the refusal is not marked as the platform's stored answer (doubtAfterLostAnswer): under the
 *   same key, a marked refusal is the lost attempt's own answer: it was refused, it made nothing;
 * - the thing found is as sent: a grant's justification and expiry, where the answer gives them;
 * - it was not made clearly before the change's first attempt (`before`, a time on the platform's
 *   clock at or before it). Every caller gives it as attemptStart does: the attempt's start on the
 *   Date header's own clock, with a zone just before it where svc cannot tell (madeJustBefore).
 * Otherwise the caller keeps the verdict it gives without a lost answer (someone else's doing).
 * A grant's 2xx that carries a grant (attack26b F6) is judged by grantAnswerNotMade, more strictly
 * on the evidence: a 2xx is the grant unless the answer shows strongly that it is an older one.
 */
import type { RoleAssignment } from '../api/schemas/roles.js';
import { isoSeconds, serverTime } from '../api/time.js';
import { InterruptedError, SvcError } from '../errors.js';
import { ApiError, doubtAfterLostAnswer, OutcomeUnknownError } from '../http/errors.js';
import { CLOCK_SKEW_MS, serverClockTime } from './clock.js';
import type { Platform } from './index.js';
import type { CallerIdentity } from './me.js';
import { markedReplayed } from './stored-answer.js';

/** What the run sent and knows, against which the thing found is judged. */
export interface SentChange {
  /** A platform-clock time at or before the change's first attempt: attemptStart's. */
  before?: string | undefined;
  /**
   * `before` is the Date header's reading itself (serverClockTime), not this machine's clock
   * within CLOCK_SKEW_MS of it: a thing made more than the Date's second before it was not made
   * by the run, on one clock, and within the minute svc lets two clocks differ, svc cannot tell.
   */
  onServerClock?: boolean;
  /**
   * The command that shows who made the thing found (`svc roles holders ROLE`, `svc roles get
   * NAME`, in the run's profile and tenant), named by an unknown outcome's hint (review27b L1).
   */
  check?: string | undefined;
  /**
   * The change's first attempt was sent by the run this one resumes, which ended before its
   * answer (its journal's mark, Journal.sentEarlier; `before` and `onServerClock` that attempt's,
   * sentStart): a refusal this run is given is judged as after a lost answer (brief fixgrant4 item 2).
   */
  sentByCutRun?: boolean;
  /** When the thing found was made, as the platform says (a grant's assigned_at, a role's created_at). */
  madeAt?: string | null | undefined;
  /**
   * A grant: what was sent (null: none) and the grant the platform holds. `expiresAt` undefined:
   * the expiry shows nothing (a 2xx's grant, whose expiry not kept is its own warning: a server
   * that drops it still made the grant).
   */
  grant?: {
    justification: string | null;
    expiresAt?: string | null | undefined;
    held: RoleAssignment | undefined;
  };
}

/**
 * The lost answer (`the connection dropped`) when the change the retry was told is so already is
 * most likely the lost attempt's, so this run's; undefined when there was no lost attempt or
 * anything shows the change is someone else's (notSent).
 */
export function foundAfterLostAnswer(error: unknown, sent: SentChange = {}): string | undefined {
  // None lost, or the refusal is that attempt's own stored answer (it made nothing).
  const lost =
    doubtAfterLostAnswer(error) ??
    (sent.sentByCutRun && error instanceof ApiError && !markedReplayed(error.headers)
      ? CUT_RUN_SENT
      : undefined);
  if (lost === undefined) return undefined;
  if (notSent(sent) !== undefined) return undefined;
  const undecided = madeJustBefore(sent);
  if (undecided !== undefined)
    throw unknownAfterLost(
      undecided,
      lost,
      'made by that attempt or before it, svc cannot tell',
      `check who made it before running the command again${sent.check ? ` (\`${sent.check}\` shows it)` : ''}`,
    );
  return lost;
}

/**
 * The one `before` of a change whose first attempt started at `machineMs` on this machine's clock
 * (taken just before it was sent): that time put on the platform's clock when judged, by the latest
 * Date header (serverClockTime: the retry's own answer at the latest), server time beside the
 * platform's own times. roles assign and roles create, a --file row and an apply step all judge by
 * it, each by its own attempt's start (a resumed run's lost attempt is this process's: the retry
 * that saw the loss is). No usable Date header at all (none, or only ones svc cannot read): the
 * start on this machine's clock, not the platform's (onServerClock false), which may be off the
 * platform's by any amount: only a thing made more than OLD_GRANT_MS before it shows it is not the
 * attempt's (clearlyBefore), and one made since is an unknown outcome (madeJustBefore) — never "this
 * run's" (review27b M1: a grant made 10 minutes before) nor "already so" (brief fixgrant4 item 1:
 * the attempt's own grant, this machine a minute ahead).
 */
export function attemptStart(
  platform: Platform,
  machineMs: number,
): Pick<SentChange, 'before' | 'onServerClock'> {
  const onServer = serverClockTime(platform, machineMs);
  return onServer === undefined
    ? { before: isoSeconds(machineMs), onServerClock: false }
    : { before: onServer, onServerClock: true };
}

/** The lost answer's words for an attempt the run this one resumes sent (SentChange.sentByCutRun). */
export const CUT_RUN_SENT = 'the run this one resumes sent it and ended before its answer';

/** What a journal notes of a change's start before its first attempt is sent (Journal.markSent). */
export function startMark(start: Pick<SentChange, 'before' | 'onServerClock'>): Record<string, unknown> {
  return { before: start.before, on_server_clock: start.onServerClock === true };
}

/**
 * The start an earlier run noted (startMark) of a change it sent and did not finish
 * (WorkCall.sentEarlier), as a SentChange's, or undefined: no mark, or one svc cannot read (then
 * the change is judged as one not sent before: a plain refusal, as before brief fixgrant4).
 */
export function sentStart(
  mark: Record<string, unknown> | undefined,
): Pick<SentChange, 'before' | 'onServerClock' | 'sentByCutRun'> | undefined {
  const before = mark?.before;
  if (typeof before !== 'string' || !Number.isFinite(serverTime(before))) return undefined;
  if (typeof mark?.on_server_clock !== 'boolean') return undefined;
  return { before, onServerClock: mark.on_server_clock, sentByCutRun: true };
}

/** The Date header's second and the made time's own: what a time on one clock may be early by. */
const ONE_CLOCK_MS = 2000;

/**
 * A thing found made after `before` on the platform's clock by less than the minute two clocks
 * may differ (CLOCK_SKEW_MS) and more than the Date header's precision (ONE_CLOCK_MS), when
 * `before` is the Date header's own reading: someone else's just before the run, or the lost
 * attempt's on an objects' clock a little behind the Date's. With no Date header (`before` this
 * machine's clock, onServerClock false) svc has no reading of the platform's clock, and its own may
 * be off by any amount (a minute ahead made the attempt's own grant "before this run": brief
 * fixgrant4 item 1): a thing made at any time not clearly older than the clocks' widest gap
 * (clearlyBefore: OLD_GRANT_MS) is the attempt's or someone else's, svc cannot tell. In words, or
 * undefined.
 */
function madeJustBefore(sent: SentChange): string | undefined {
  if (!sent.before) return undefined;
  const [what, at] =
    sent.grant?.held !== undefined
      ? ['the grant found in place was assigned', sent.grant.held.assigned_at]
      : ['the role found was made', sent.madeAt];
  if (typeof at !== 'string') return undefined;
  if (sent.onServerClock === false)
    return clearlyBefore(at, sent.before, true)
      ? undefined
      : `${what} ${at}, and no answer of the platform's carried a Date header to set that beside the first attempt's start`;
  if (!sent.onServerClock) return undefined;
  const early = serverTime(sent.before) - serverTime(at);
  if (!(early > ONE_CLOCK_MS) || early > CLOCK_SKEW_MS + 1000) return undefined;
  return `${what} ${at}, ${Math.round(early / 1000)} s before the first attempt was sent, on the platform's clock`;
}

/**
 * What shows the thing found is not the one this run sent (made clearly before its first attempt,
 * a grant with another justification or expiry), in words (`assigned 2025-01-01T00:00:00Z, before
 * this run`), or undefined when nothing does. The one rule of a refusal after a lost answer
 * (foundAfterLostAnswer) and of a grant's 2xx answering with a grant in place (attack26b F6).
 */
export function notSent(sent: SentChange): string | undefined {
  const undated = sent.onServerClock === false;
  if (sent.before && sent.madeAt && clearlyBefore(sent.madeAt, sent.before, undated))
    return `made ${sent.madeAt}, before this run`;
  const held = sent.grant?.held;
  if (!sent.grant || !held) return undefined;
  if (sent.before && clearlyBefore(held.assigned_at, sent.before, undated))
    return `assigned ${held.assigned_at}, before this run`;
  // A field the answer leaves out (a server without it) shows nothing.
  if (held.justification !== undefined && (held.justification || null) !== (sent.grant.justification || null))
    return `its justification is ${JSON.stringify(held.justification)}, not the one sent`;
  const expiry = sent.grant.expiresAt;
  if (expiry !== undefined && held.expires_at !== undefined && !nearExpiry(held.expires_at, expiry))
    return `its expiry is ${held.expires_at ?? 'none'}, not the one sent`;
  return undefined;
}

/**
 * `a` is before `b` by more than the clocks' allowed difference and a second's precision; when `b`
 * is this machine's clock, no Date header read (`undated`), by more than OLD_GRANT_MS, the gap two
 * clocks may have that the 2xx rule allows too (a clock in another time zone: up to 26 h).
 */
function clearlyBefore(a: string, b: string, undated = false): boolean {
  const [x, y] = [serverTime(a), serverTime(b)];
  return Number.isFinite(x) && Number.isFinite(y) && y - x > (undated ? OLD_GRANT_MS : CLOCK_SKEW_MS + 1000);
}

/**
 * A thing's own time (`at`: a revoked key's revoked_at) is clearly before the attempt's start
 * (attemptStart), by clearlyBefore's margins for the clock it is on: not that attempt's doing.
 */
export function clearlyBeforeAttempt(
  at: string | null | undefined,
  start: Pick<SentChange, 'before' | 'onServerClock'>,
): boolean {
  return typeof at === 'string' && !!start.before && clearlyBefore(at, start.before, !start.onServerClock);
}

/** The expiry held is the one sent, within a second (a server that keeps whole seconds). */
function nearExpiry(held: string | null, sent: string | null): boolean {
  if (held === null || sent === null) return held === sent;
  const [x, y] = [serverTime(held), serverTime(sent)];
  return Number.isFinite(x) && Number.isFinite(y) ? Math.abs(x - y) <= 1000 : held === sent;
}

/**
 * How far before the run's start a 2xx's grant must say it was assigned to be an older grant: two
 * days. Its assigned_at is on the objects' clock and the start on the Date header's (or this
 * machine's), which may differ by hours (review18b R1: a gateway's Date 3 h ahead; a clock set in
 * another time zone, up to 26 h), far more than the minute (CLOCK_SKEW_MS) of a 409 after a lost answer.
 */
export const OLD_GRANT_MS = 48 * 3_600_000;

/** A grant's 2xx answer and what the request sent. */
export interface AnsweredGrant {
  justification: string | null;
  held: RoleAssignment;
  /** A time on the platform's clock at or before the request (the run's or the plan's anchor). */
  startedAt?: string | undefined;
  /** The answer's unknown outcome for `problem`, in the platform's words (Roles.assignAnswerRefused). */
  refuse: (problem: string) => Error;
}

/**
 * Who the caller is, read once when an answer needs it (undefined: svc cannot tell); `signal`, the
 * asking step's, cuts that read when no signal was given for the whole run (svc apply's steps).
 */
export type CallerIds = (signal?: AbortSignal) => Promise<readonly string[] | undefined>;

/**
 * The ids the platform may name the caller by in assigned_by (a user; a key and its issuer), read
 * once from /v1/me on first use; undefined when that read fails (no evidence either way). The
 * single `roles assign`'s, which reads it only when its one answer names a granter; a run of many
 * grants reads it at its start (callerIdsAtStart).
 */
export function callerIdsOnce(platform: Platform, signal?: AbortSignal): CallerIds {
  let read: Promise<readonly string[] | undefined> | undefined;
  return (step) => {
    const cut = signal ?? step;
    read ??= platform.me.get({ tenant: null, ...(cut ? { signal: cut } : {}) }).then(
      (me: CallerIdentity) => idsOf(me),
      // A stop cuts the read: the run's interruption, not an answer svc could not read.
      (error: unknown) => {
        if (error instanceof InterruptedError) throw error;
        return undefined;
      },
    );
    return read;
  };
}

/** The caller's forms in /v1/me's answer: its id, its e-mail, a key's issuer. */
function idsOf(me: CallerIdentity): readonly string[] {
  return [me.id, me.email, me.credential?.issued_by].filter(
    (id): id is string => typeof id === 'string' && id !== '',
  );
}

/**
 * Who the caller is, read once at the start of a run of grants (`roles assign --file`, `svc
 * apply`), before any grant is sent, for every answer of the run to be judged by
 * (grantAnswerNotMade): a read made when the first answer named a granter could fail mid-run (a
 * 429 with a long Retry-After, a re-login) and make every grant made after it an unknown outcome
 * (brief fixgrant4 item 3). The credential alone does not say it in /v1/me's forms (a token's
 * subject need not be its id; an API key says nothing), so it is read. A read that fails, or names
 * no id, stops the run before anything is sent: one line, the read's own exit code, `nothing`
 * ("nothing was granted") said.
 */
export async function callerIdsAtStart(
  platform: Platform,
  signal: AbortSignal | undefined,
  nothing: string,
): Promise<CallerIds> {
  const why =
    "which svc needs before it sends a grant, to tell a grant the platform answers with from someone else's";
  let me: CallerIdentity;
  try {
    me = await platform.me.get({ tenant: null, ...(signal ? { signal } : {}) });
  } catch (error) {
    if (error instanceof InterruptedError || !(error instanceof SvcError)) throw error;
    throw new SvcError(
      error.category,
      `svc could not read who you are (GET /v1/me: ${error.message}), ${why}; ${nothing}`,
      {
        code: error.code ?? 'identity_unknown',
        hint: error.hint ?? 'run the same command again once `svc me` answers',
        cause: error,
      },
    );
  }
  const ids = idsOf(me);
  if (ids.length === 0)
    throw new SvcError('failure', `GET /v1/me named no id of yours, ${why}; ${nothing}`, {
      code: 'identity_unknown',
      hint: 'run the same command again; if it says the same, the server does not say who you are',
    });
  const read = Promise.resolve(ids);
  return () => read;
}

/**
 * What shows strongly that a grant's 2xx carries an older grant, not the one this request made
 * (review26a H1), in words, or undefined (the answer is the grant). The justification is a
 * request-only field: left out, null, or another text (a server's own form of it) is no evidence,
 * nor is the expiry (one not kept is its own warning). Evidence is an assigned_at more than
 * OLD_GRANT_MS before the run's start, or an assigned_by that is not the caller beside an answered
 * justification (a text) that is not the one sent.
 * An assigned_by that is not the caller without that second sign (the justification sent, or none
 * answered) cannot be "this request made it" nor "nothing changed": thrown, an unknown outcome
 * (`answer.refuse`). The caller is any form /v1/me gives of it (its id, its e-mail, a key's
 * issuer; `user:ID`), read once when an answer names a granter (callerIdsOnce); a read that fails
 * leaves it unknown too (review27b M2; review26b H1: the reference gives no form for assigned_by).
 */
export async function grantAnswerNotMade(
  answer: AnsweredGrant,
  callers: CallerIds,
): Promise<string | undefined> {
  const { held } = answer;
  const start = answer.startedAt === undefined ? Number.NaN : serverTime(answer.startedAt);
  const at = typeof held.assigned_at === 'string' ? serverTime(held.assigned_at) : Number.NaN;
  if (Number.isFinite(start) && Number.isFinite(at) && start - at > OLD_GRANT_MS)
    return `it was assigned ${held.assigned_at}, days before this run`;
  const by = held.assigned_by;
  if (typeof by !== 'string' || by.trim() === '') return undefined;
  // A stop that cuts the read is thrown as it is (the run's interruption: a row's exit 130; the
  // single verb says the outcome unknown, interruptedReadingCaller).
  const ids = await callers();
  // Who the caller is unread (the read failed, or named nobody): neither "made" nor "nothing
  // changed" is shown (review27b M2: it was ✓ granted).
  if (ids === undefined || ids.length === 0)
    throw answer.refuse(
      `says it was assigned by ${by}, and svc could not read who you are (GET /v1/me), so svc cannot tell whether this request made it`,
    );
  if (isCaller(ids, by)) return undefined;
  const other = `it was assigned by ${by}, not by you (${ids[0]})`;
  const answered = held.justification;
  if (
    typeof answered === 'string' &&
    answered.trim() !== '' &&
    !sameJustification(answered, answer.justification)
  )
    return other;
  throw answer.refuse(`says ${other}, so svc cannot tell whether this request made it`);
}

/**
 * A single verb's error when a stop cut the read of who the caller is after the server answered
 * its change 2xx (`answer`: the grant's, a key revoke's): interrupted (exit 130) with its outcome
 * unknown, never a bare "interrupted" that hides a change the server said it made (cut-sweep), and
 * `hint` when the verb knows how it is settled; `reading`, what was being read (an audit trail too). Other errors are given back as they are.
 */
export function interruptedReadingCaller(
  error: unknown,
  answer = "the server's answer to the grant",
  hint?: string,
  reading = 'who you are (GET /v1/me)',
): unknown {
  if (!(error instanceof InterruptedError)) return error;
  return new OutcomeUnknownError(
    new InterruptedError(`interrupted while svc read ${reading} to judge ${answer}`),
    hint,
  );
}

/**
 * The one unknown outcome of a change whose first attempt's answer was lost (`lost`: `the
 * connection dropped`) and whose retry found something (`what`: `the retry was told the name fx is
 * taken`) that cannot tell that attempt's doing from another's (`found`): code outcome_unknown,
 * exit 1, `hint` saying how to settle it (foundAfterLostAnswer's, roles create's and roles
 * update's read-backs: review28b L4). `cut`, the error of the read that was to tell: a stop (Ctrl-C)
 * keeps its exit 130, the outcome unknown still said, as interruptedReadingCaller does (review28b M1).
 */
export function unknownAfterLost(
  what: string,
  lost: string,
  found: string,
  hint: string,
  cut?: unknown,
): OutcomeUnknownError {
  const said = `${what}, and the answer to the first attempt was lost (${lost}): ${found}`;
  // Its own code, not the refusal's (assignment_exists reads "nothing changed"; review27b L1).
  const stopped = cut instanceof SvcError && cut.category === 'interrupted';
  return new OutcomeUnknownError(
    stopped
      ? new InterruptedError(said, { code: 'outcome_unknown' })
      : new SvcError('failure', said, { code: 'outcome_unknown' }),
    hint,
  );
}

/**
 * Whether an actor field (a grant's assigned_by, a key's revoked_by) names the caller, given as
 * `ids` (callerIdsOnce): one rule for every "is this me?" (review28a M1), as the reference gives
 * no form for them.
 */
export function isCaller(ids: readonly string[], by: string): boolean {
  return ids.some((id) => namesCaller(by, id));
}

/** An actor field names the caller by `id`: the same, up to case, or `KIND:id` / `KIND/id`. */
function namesCaller(by: string, id: string): boolean {
  const [named, own] = [by.trim().toLowerCase(), id.toLowerCase()];
  return named === own || named.endsWith(`:${own}`) || named.endsWith(`/${own}`);
}

/** The justification answered is the one sent, up to whitespace. */
function sameJustification(held: string | null | undefined, sent: string | null): boolean {
  const tidy = (text: string | null | undefined) => (text ?? '').trim().replace(/\s+/g, ' ');
  return tidy(held) === tidy(sent);
}

/**
 * A change found after a lost answer whose own time (`changedAt`: a renamed role's updated_at) is
 * this attempt's as far as the clocks tell: not before its start (attemptStart) by more than the
 * Date header's second, on the platform's clock, or than the minute two clocks may differ, on this
 * machine's. false when it is earlier or unreadable: svc cannot tell whose change it is (fixout3).
 */
export function changedByAttempt(
  changedAt: string | null | undefined,
  start: Pick<SentChange, 'before' | 'onServerClock'>,
): boolean {
  if (typeof changedAt !== 'string' || !start.before) return false;
  const early = serverTime(start.before) - serverTime(changedAt);
  if (!Number.isFinite(early)) return false;
  return early <= (start.onServerClock ? ONE_CLOCK_MS : CLOCK_SKEW_MS + 1000);
}
