import { redactUrlsInText } from '../api/secret-names.js';
import { serverTime } from '../api/time.js';
import { errorBodyMessage, nonEmptyText } from '../http/errors.js';
import { httpDate } from '../http/http-date.js';
import { timeSpan } from '../output/format.js';

/**
 * What a DELETE's 200 or 204 says (review19b F1, F6): done only on positive evidence, as a false
 * ✓ is the worst result there is and an unknown outcome is an honest one. Done: no body; `{}`;
 * `{"deleted": true}` (boolean), alone or beside the id asked and `object`; or the record asked
 * for (every id of `about` in it, as asked, or its `id` the path's: Stripe's `{"id", "object",
 * "deleted": true}`) with evidence it is gone — `deleted` or `soft_delete` true, a
 * `deleted_at`/`revoked_at`/`discarded_at` that reads as a time no later than the answer (its
 * Date header's second and the time the request took, else now) by more than its leeway
 * (AnswerTime: a few seconds against a Date, 2 minutes against this machine's clock; a mark further
 * ahead reads as a deletion scheduled, and is said so with when it takes effect, never ✓: session
 * 20, review20d D4, review21 F2),
 * or a `status` word of an ended state of that object in any case (the operation's `gone.ended`:
 * deleted, revoked, discarded). Beside such a mark, the record's `status` must be an ended word or
 * one of the object's own words that say nothing of its deletion (`gone.own`: a webhook's
 * `enabled`/`disabled` is its enable flag, review19d F2); any other (`active`, `failed`, a DLQ
 * entry's `queued`) says it is live or failed, so the answer is not evidence (session 20). Objects
 * with no status of their own (a role, an OAuth client, an API key) and those whose every other
 * word is a live or other end state (an assignment's `active`/`expired`, a DLQ entry's
 * `queued`/`replayed`) have no `own` words. A record surface's, whose own fields sit beside the
 * platform's, is judged by `soft_delete` and `deleted_at` alone (`gone.only`).
 * Anything else is an unknown outcome: an error shape, a `status`/`result`/`success`/`ok` of
 * another word, the record unchanged, another object's id, a body that is not a JSON object.
 * `against` names what the answer says against the change, when it says something (`says
 * "deleted": false`), for the line that reports it.
 */
export interface DeleteVerdict {
  done: boolean;
  against?: string;
  /** A flag says it is gone (`soft_delete: true`) beside what is against it (a mark ahead): not "does not say it is gone". */
  flagged?: true;
}

/** What an operation's record says of being gone (Operation's `gone`). */
export interface DeleteRule {
  /** The `status` words of its record that say it is gone (`revoked`, `discarded`). */
  ended?: readonly string[];
  /**
   * The only fields of its record that say whether it is gone, when the record also carries the
   * client's own fields at its top (a record surface's `status` is the client's): the rest is data.
   */
  only?: readonly string[];
  /**
   * The `status` words of its record that are its own data, not of being gone (a webhook's
   * `enabled`/`disabled`): beside a mark they say nothing against it. Any other word does.
   */
  own?: readonly string[];
}

const FLAGS = ['deleted', 'soft_delete'];
const TIMES = ['deleted_at', 'revoked_at', 'discarded_at'];
const WORDS = ['status', 'result', 'success', 'ok'];

export function deleteVerdict(
  data: unknown,
  about: Record<string, string | undefined>,
  rule: DeleteRule = {},
  pathId?: string,
  answered: AnswerTime = answerTime(undefined, Date.now()),
): DeleteVerdict {
  if (noBody(data)) return { done: true };
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { done: false };
  const body = data as Record<string, unknown>;
  const asked = Object.entries(about).filter((e): e is [string, string] => e[1] !== undefined);
  const same = ([field, value]: [string, string]) => {
    const came = body[field];
    if (typeof came !== 'string') return false;
    // A user asked by email is answered by id (review18b R4), as Transport's #aboutOther allows.
    return (field === 'user_id' && value.includes('@')) || came.toLowerCase() === value.toLowerCase();
  };
  // The object's own `id` naming the id the path asked (Stripe's `{"id", "object", "deleted"}`) is
  // the record asked, whatever its own id field is called (`client_id`, `role_id`; review19d F1).
  const byId = pathId !== undefined && !('id' in about) && same(['id', pathId]);
  const named = (asked.length > 0 && asked.every(same)) || byId;
  // Only the record asked for is judged by its own fields alone; any other body by every word.
  const judged = named && rule.only ? rule.only : [...FLAGS, ...TIMES, ...WORDS];
  const against = saysAgainst(body, judged, rule, !(named && rule.only), named, answered);
  if (against !== undefined) {
    const flagged = FLAGS.some((field) => judged.includes(field) && body[field] === true);
    return { done: false, against, ...(flagged ? { flagged: true as const } : {}) };
  }
  const keys = Object.keys(body);
  if (keys.length === 0) return { done: true };
  // `{"deleted": true}`, with none but the ids asked (or the path's, as `id`) and `object` beside it.
  const bare = keys.every(
    (key) =>
      key === 'deleted' ||
      key === 'object' ||
      (key === 'id' && byId) ||
      asked.some((entry) => entry[0] === key && same(entry)),
  );
  if (bare && body.deleted === true) return { done: true };
  return { done: named && saysGone(body, judged, rule.ended ?? [], answered) };
}

/** What the body says against the change having been made, or undefined when it says nothing against it. */
function saysAgainst(
  body: Record<string, unknown>,
  judged: readonly string[],
  { ended = [], own = [] }: DeleteRule,
  errorShape: boolean,
  record: boolean,
  answered: AnswerTime,
): string | undefined {
  const present = (field: string) => body[field] !== undefined && body[field] !== null;
  if (errorShape && (present('error') || present('errors') || (present('code') && present('message')))) {
    // A bare `error` string, else the words as parseErrorBody reads them; URLs masked as there.
    const words = nonEmptyText(body.error) ?? errorBodyMessage(body);
    const message = words === undefined ? undefined : redactUrlsInText(words);
    return `is shaped as an error${message === undefined ? '' : `: ${JSON.stringify(message)}`}`;
  }
  const said = (field: string) => `says "${field}": ${JSON.stringify(body[field])}`;
  const has = (field: string) => judged.includes(field) && field in body;
  for (const field of FLAGS) if (has(field) && body[field] !== true) return said(field);
  for (const field of TIMES) {
    if (!has(field)) continue;
    const at = markTime(body[field]);
    if (at === undefined) return said(field);
    // A deletion scheduled is not one made (session 20): its words say when it takes effect, as
    // what the mark reads as (the server may say otherwise: a flag beside it is named, review21 F2).
    if (scheduled(at, answered)) {
      const ahead = afterAnswer(at, answered);
      const flag = FLAGS.find((f) => has(f) && body[f] === true);
      const beside = flag === undefined ? '' : ` beside "${flag}": true`;
      return `${said(field)}${beside}, ${ahead} after the answer itself: it reads as a deletion scheduled to take effect then, not one made`;
    }
  }
  // The record asked's own `status` words (a webhook's enabled/disabled: `own`) are data beside a
  // mark that it is gone (review19d F2); any other word but an ended one is against it (`active`,
  // `failed`: session 20), as is every word but an ended one without a mark or in another body.
  const marked = record && [...FLAGS, ...TIMES].some((field) => has(field) && field in body);
  if (has('status') && !endedWord(body.status, ended) && !(marked && endedWord(body.status, own))) {
    return said('status');
  }
  for (const field of WORDS.slice(1)) if (has(field) && body[field] !== true) return said(field);
  return undefined;
}

/** Evidence in the record that it is gone. */
function saysGone(
  body: Record<string, unknown>,
  judged: readonly string[],
  ended: readonly string[],
  answered: AnswerTime,
): boolean {
  const has = (field: string) => judged.includes(field);
  const past = (value: unknown) => {
    const at = markTime(value);
    return at !== undefined && !scheduled(at, answered);
  };
  return (
    FLAGS.some((field) => has(field) && body[field] === true) ||
    TIMES.some((field) => has(field) && past(body[field])) ||
    (has('status') && endedWord(body.status, ended))
  );
}

/** An ended state's word, in any case (review19d F9: `REVOKED`), as assignment words are read. */
function endedWord(status: unknown, ended: readonly string[]): boolean {
  return typeof status === 'string' && ended.includes(status.trim().toLowerCase());
}

/**
 * When an answer was given, to judge a mark against: `at`, the latest instant it can have been
 * given at on the server's clock (its Date header's second, to its end: an HTTP-date is whole
 * seconds, a mark may carry milliseconds; plus the time the request took: a server may stamp Date
 * when the request *arrived* — Apache httpd's `r->request_time` — and make the deletion seconds
 * later in its handler, review21 F2; else this machine's clock at its arrival), `from`, the
 * instant its words count from (that second plus the time taken, else now), and `leewayMs`, how
 * far after `at` a mark may be and still be the deletion just made, not one scheduled (review20d
 * D4: 2 minutes let a revocation scheduled 90 s ahead print ✓).
 */
export interface AnswerTime {
  at: number;
  from: number;
  leewayMs: number;
}

/**
 * Against a Date header the mark and the header are one server's clocks (its database's and its
 * web server's, NTP-kept within a second of each other): what may put a deletion made now after
 * the answer's second is a whole-second mark rounded up (MySQL's DATETIME, PostgreSQL's
 * timestamp(0): at most 1 s, review20 F3) and that second of skew, so 5 s holds both twice over,
 * and a deletion scheduled even a few seconds ahead is not taken as made. A Date stamped when the
 * request arrived (Apache httpd) is behind by the handler's time: answerTime adds the time the
 * request took, which svc measures itself (review21 F2).
 */
const DATED_LEEWAY_MS = 5_000;

/**
 * Without a Date header the mark is compared with this machine's clock, another clock: a laptop
 * not kept by NTP (Windows syncs weekly by default) drifts tens of seconds, so a tighter leeway
 * would make a fresh deletion an unknown outcome. The cost: a deletion scheduled under 2 minutes
 * ahead of a server that sends no Date counts as made (docs/RELIABILITY.md says so).
 */
const UNDATED_LEEWAY_MS = 120_000;

/**
 * The answer's time: its Date header (whole seconds) plus the time from `sentMs` (the request's
 * sending) to `nowMs` (its answer's arrival), both on this machine's clock — the server stamped
 * Date no earlier than the request's arrival, so its clock read at most that much more when it
 * answered — else `nowMs`.
 */
export function answerTime(date: string | undefined, nowMs: number, sentMs = nowMs): AnswerTime {
  const at = httpDate(date, nowMs);
  const took = Math.max(0, nowMs - sentMs);
  return Number.isFinite(at)
    ? { at: at + 999 + took, from: at + took, leewayMs: DATED_LEEWAY_MS }
    : { at: nowMs, from: nowMs, leewayMs: UNDATED_LEEWAY_MS };
}

/** A mark further after the answer than its leeway: a deletion scheduled, not one made. */
function scheduled(mark: number, { at, leewayMs }: AnswerTime): boolean {
  return mark > at + leewayMs;
}

/** How far after the answer a mark is: `90 s` under 2 minutes (the leeway's scale), else timeSpan's `2 h 30 min`. */
function afterAnswer(mark: number, { from }: AnswerTime): string {
  const ms = mark - from;
  return ms < 120_000 ? `${Math.round(ms / 1000)} s` : timeSpan(ms);
}

/** A mark's time (ms) when it reads as one (serverTime), after 1970: `"pending"` or Go's zero time is none (review19d F7). */
function markTime(value: unknown): number | undefined {
  const ms = serverTime(value);
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** The answer has no body at all (none, or only white space): a 204's, or a 200's without one. */
export function noBody(data: unknown): boolean {
  return data === undefined || data === null || (typeof data === 'string' && data.trim() === '');
}
