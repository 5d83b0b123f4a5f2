// Past 300 lines: the error classes of the API's answers and the one table from status and code
// to class and exit code; the 431 hint lives in too-large.ts.

import { redactUrlsInText } from '../api/secret-names.js';
import { categoryForStatus, InterruptedError, SvcError, type SvcErrorOptions } from '../errors.js';
import { sym } from '../output/symbols.js';
import { hasConcurrency } from '../system/command-scope.js';
import { httpDate } from './http-date.js';
import { MAX_REDACT_DEPTH, redactText } from './redact.js';
import { markedReplayed } from './replayed.js';
import { largestPartHint } from './too-large.js';

export interface ApiErrorInit {
  status: number;
  code?: string | undefined;
  message: string;
  requestId?: string | undefined;
  details?: unknown;
  headers?: Record<string, string | string[] | undefined>;
  body?: unknown;
  /** The body as it came (`body` is what JSON.parse made of it): svc api prints this. */
  text?: string | undefined;
  /** The body's word in a code's place that is no code (`2026-01-01`, `Not Found`): kept, never the `code`. */
  serverCode?: string | undefined;
}

/**
 * An error response from the API. The class follows the status (BadRequest, Authentication, …)
 * and carries the API's code, message and request id; `category` decides the exit code.
 */
export class ApiError extends SvcError {
  readonly status: number;
  readonly requestId: string | undefined;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
  /** The body as it came, when known (`body` is what JSON.parse made of it). */
  readonly text: string | undefined;
  /** A word in the body's code field that is no code (parseErrorBody): `--json` says it as `server_code`. */
  readonly serverCode: string | undefined;
  /**
   * Set when an earlier attempt of this request may have been applied but its answer was lost (a
   * 5xx to a change, a connection dropped or timed out after sending): what happened to it, e.g.
   * "HTTP 503". This answer may then describe the state that attempt left (a 404 for what it deleted).
   */
  lostAnswer: string | undefined;
  /** The 2xx status that lost answer came with, when its head came and its body did not (lostMade). */
  lostStatus: number | undefined;
  /**
   * A 429 whose Retry-After is longer than svc waits by itself (so it was not retried): the wait
   * the server asks for and when it ends (epoch ms). A bulk run stops on it (src/bulk/judge.ts).
   */
  waitBeyondCap: { askedMs: number; capMs: number; until: number } | undefined;
  /** The body's bytes, when they are not UTF-8 (`text` then has U+FFFD for them): svc api prints these. */
  notUtf8: Buffer | undefined;
  /** The JSON body of the request this answers, if any: a 400 naming `event_types.0` is said with its value (field-flags.ts). */
  sentBody: unknown;

  constructor(init: ApiErrorInit, options: SvcErrorOptions = {}) {
    super(categoryForStatus(init.status), init.message, {
      code: init.code,
      details: init.details,
      ...options,
    });
    this.status = init.status;
    this.requestId = init.requestId;
    this.headers = init.headers ?? {};
    this.body = init.body;
    this.text = init.text;
    this.serverCode = init.serverCode;
  }
}

/** `an earlier attempt's answer was lost (the connection dropped)`: the one wording of a lost attempt. */
export function lostAttempt(lost: string): string {
  return `an earlier attempt's answer was lost (${lost})`;
}

/**
 * The one rule for a platform's refusal (a 4xx) that came to the retry of an attempt whose answer
 * was lost (ApiError.lostAnswer): that attempt may have acted, and this answer may describe what it
 * left (a 409 "already exists" for what it made), so the message says so before the platform's own
 * words, for every command, a bulk row's error and `svc api` alike (review24f M1: the typed
 * commands printed the bare refusal, which a script reads as "refused, nothing made by me"). The
 * answer is still the platform's, so its status keeps its exit code (409: 6, 422: 2, 403: 4,
 * 404: 5) and a bulk row is counted failed; `--json` adds `"lost_answer"`. Undefined for any other error.
 * When that attempt's 2xx status came and its body did not (lostStatus; not 202, which says only
 * that it was taken), it did act, and the words say so, as OutcomeUnknownError's do (lostMade).
 */
export function refusalAfterLostAnswer(error: unknown): string | undefined {
  const lost = doubtAfterLostAnswer(error);
  if (lost === undefined) return undefined;
  // Its answer's 2xx status came (its body did not): that attempt did act, and said so.
  const made = lostMade((error as ApiError).lostStatus);
  const acted =
    made === undefined
      ? ' and it may have acted'
      : `, and the platform made the change then (it answered HTTP ${made})`;
  return `${lostAttempt(lost)}${acted}; this answer may describe what it left: ${(error as ApiError).message}`;
}

/**
 * The lost answer (ApiError.lostAnswer) an answer leaves in doubt: undefined when no attempt lost
 * its answer, or when this answer is marked as the platform's stored answer to that attempt
 * (markedReplayed, same key): it is then the attempt's own answer, a refusal it was given, so the
 * attempt did not act and the refusal is a plain one (review25a L1). Its `lost_answer` too.
 */
export function doubtAfterLostAnswer(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.lostAnswer === undefined) return undefined;
  return markedReplayed(error.headers) ? undefined : error.lostAnswer;
}

export class BadRequestError extends ApiError {}
export class AuthenticationError extends ApiError {}
export class PermissionDeniedError extends ApiError {}
export class NotFoundError extends ApiError {}
export class ConflictError extends ApiError {}
export class UnprocessableEntityError extends ApiError {}
export class RateLimitError extends ApiError {}
export class InternalServerError extends ApiError {}

/** The request never got an HTTP answer (refused, reset, DNS, TLS). Exit 1. */
export class ConnectionError extends SvcError {
  /** false when the request cannot have reached the server (refused, unresolvable, unreachable). */
  readonly mayHaveArrived: boolean;
  /** false when trying again cannot help (a proxy refused the login): the client does not retry. */
  readonly retryable: boolean;

  constructor(
    message: string,
    options: SvcErrorOptions & { mayHaveArrived?: boolean; retryable?: boolean } = {},
  ) {
    const { mayHaveArrived = true, retryable = true, ...rest } = options;
    super('failure', message, { code: 'connection_error', ...rest });
    this.mayHaveArrived = mayHaveArrived;
    this.retryable = retryable;
  }
}

/** No answer within the per-request timeout. Exit 1. */
export class ConnectionTimeoutError extends SvcError {
  /** false when the time ran out before the request was on a connection (nothing was sent). */
  readonly mayHaveArrived: boolean;
  /** The status of an answer that came and whose body did not finish in time; undefined when none came. */
  readonly answered: number | undefined;

  constructor(
    message: string,
    options: SvcErrorOptions & { mayHaveArrived?: boolean; answered?: number } = {},
  ) {
    const { mayHaveArrived = true, answered, ...rest } = options;
    super('failure', message, { code: 'timeout', ...rest });
    this.mayHaveArrived = mayHaveArrived;
    this.answered = answered;
  }
}

/**
 * A 5xx answer to a change, seen last or after an attempt whose answer was lost, leaves the change's
 * outcome unknown: a server fault may come after the platform made it (the sandbox's `--fault-phase
 * after` does exactly that; the reference only calls a 5xx "a server fault"). Except an answer that
 * says the request was not acted on: 501 Not Implemented (the server does not support the method,
 * RFC 9110 §15.6.2), 505 HTTP Version Not Supported (§15.6.6), and 511 Network Authentication
 * Required (an intercepting proxy's, RFC 6585 §6: the request never reached the platform).
 */
export function answerLeavesOutcomeUnknown(status: number, earlierAnswerLost: boolean): boolean {
  return status >= 500 && (earlierAnswerLost || !NOT_ACTED_ON.has(status));
}

const NOT_ACTED_ON = new Set([501, 505, 511]);

/**
 * Ctrl-C once a request that changes things was sent (its headers were written): the server may
 * act on it whatever svc does next, so nothing says it was cancelled. Exit 130.
 */
export class InterruptedAfterSendingError extends InterruptedError {
  constructor() {
    super('interrupted after the request was sent');
  }
}

/**
 * A change none of whose attempts got an answer that says what became of it (no answer in time, a
 * connection dropped after sending, a 5xx: see answerLeavesOutcomeUnknown; or Ctrl-C once it was
 * sent, which exits 130): the platform may have made it. Exit 1 (130 when interrupted), with the
 * code of the last attempt's failure (and the status and request id of its answer, if one came);
 * `--json` adds `"outcome": "unknown"`. The hint says how to settle it: by default, to look before
 * sending it again; a verb whose re-run is safe says so, with `key`, the idempotency key the
 * change was sent with (a re-run under it gets the same answer).
 */
export class OutcomeUnknownError extends SvcError {
  override get outcome(): 'unknown' {
    return 'unknown';
  }
  /** The last attempt's answer (a 5xx), when one came; undefined when none did. */
  readonly answer: ApiError | undefined;
  /** The idempotency key every attempt carried (Idempotency-Key header), if one did. */
  readonly key: string | undefined;

  /**
   * What became of the earlier attempt whose answer was lost (`the connection dropped`), when the
   * last error is a later failure that says nothing of it (a retry refused, a refresh that failed):
   * that attempt is then named as why the outcome is unknown, the last error as what stopped the
   * retry (review24f L2).
   */
  readonly lost: string | undefined;
  /** The 2xx status the lost attempt's answer came with, when its body did not finish (lostMade). */
  readonly lostStatus: number | undefined;

  constructor(last: SvcError, hint?: string, key?: string, lost?: string, lostStatus?: number) {
    const made = lostMade(lostStatus ?? (last instanceof ConnectionTimeoutError ? last.answered : undefined));
    super(
      last instanceof InterruptedError ? 'interrupted' : 'failure',
      `${lost === undefined ? last.message : `${lostAttempt(lost)}, and the retry failed (${last.message})`}, so ${
        made === undefined
          ? 'the outcome is unknown: the platform may have made this change'
          : `the platform made this change (it answered HTTP ${made}), but its answer, with what it made, was not read`
      }`,
      {
        code: last.code,
        hint: hint ?? SETTLE_HINT,
        details: last.details,
        cause: last,
      },
    );
    this.answer = last instanceof ApiError ? last : undefined;
    this.key = key;
    this.lost = lost;
    this.lostStatus = lostStatus;
  }

  /** The same error with another hint (a verb that knows how it is settled). */
  withHint(hint: string): OutcomeUnknownError {
    return new OutcomeUnknownError(this.cause as SvcError, hint, this.key, this.lost, this.lostStatus);
  }
}

/**
 * The status of an answer whose head came and whose body did not finish, when it says the change
 * was made: a 2xx but 202 (which says only that it was taken). Said as made (review25a L2), while
 * the outcome stays `unknown`: the body, with the id and any once-only secret, was not read, and
 * the same command (same key) reads it from the platform's stored answer; "done" would have a
 * re-run skip the change and lose that answer for good.
 */
function lostMade(status: number | undefined): number | undefined {
  return status !== undefined && status >= 200 && status < 300 && status !== 202 ? status : undefined;
}

/** How a change is settled when its outcome is unknown, unless a verb knows better. */
export const SETTLE_HINT = 'check whether it was made before running the command again';

/**
 * The hint of an unknown outcome left by a later failure (a refresh refused, a retry not sent):
 * that failure's own fix first (log in again, check the proxy), then how to settle the change.
 * Its "nothing was sent" is true of the failing attempt only, never of the change: dropped.
 */
export function laterFailureHint(hint: string | undefined): string {
  const own = hint
    ?.replace(/^nothing was sent(; |$)/, '')
    .replace(/; nothing was sent$/, '')
    .trim();
  return own ? `${own}, then ${SETTLE_HINT}` : SETTLE_HINT;
}

/** The server's error answer behind an error: an ApiError itself, or the last answer to a change whose outcome is unknown. */
export function answerOf(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  return error instanceof OutcomeUnknownError ? error.answer : undefined;
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** A field of a server's JSON as text, or undefined when absent, empty or not text (errors, paging). */
export function nonEmptyText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function obj(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The message of a JSON error body, read in the shapes parseErrorBody knows (a nested `error`
 * object's, OAuth's `error_description`, `message`, problem+json's `detail` and `title`, the first
 * of `errors`); undefined when it has none. As the server wrote it: callers mask what they show.
 */
export function errorBodyMessage(body: unknown): string | undefined {
  const top = obj(body);
  const firstOf = Array.isArray(top?.errors) ? obj(top.errors[0]) : undefined;
  return (
    nonEmptyText(obj(top?.error)?.message) ??
    nonEmptyText(top?.error_description) ??
    nonEmptyText(top?.message) ??
    nonEmptyText(top?.detail) ??
    nonEmptyText(top?.title) ??
    nonEmptyText(firstOf?.message)
  );
}

/** What a code looks like: a word, or words joined by `_`, `-`, `.` or `:`, starting with a letter. */
const CODE_SHAPE = /^[A-Za-z][A-Za-z0-9]*(?:[_.:-][A-Za-z0-9]+)*$/;

/**
 * Reads whatever error body the server sent. svc's sandbox answers
 * `{"error":{"code","message","request_id","details"}}`, but other shapes render too:
 * OAuth's `{"error","error_description"}` (RFC 6749 §5.2), problem+json (RFC 9457),
 * `{"message","code"}`, `{"errors":[{"message"}]}`, and plain text or HTML.
 */
export function parseErrorBody(
  status: number,
  statusText: string,
  text: string,
  secrets: Iterable<string> = [],
): {
  code?: string;
  serverCode?: string;
  message: string;
  requestId?: string;
  details?: unknown;
  body: unknown;
} {
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  const top = obj(body);
  const nested = obj(top?.error);
  const firstOf = Array.isArray(top?.errors) ? obj(top.errors[0]) : undefined;
  const code =
    nonEmptyText(nested?.code) ??
    nonEmptyText(nested?.type) ??
    nonEmptyText(top?.error) ??
    nonEmptyText(top?.code) ??
    nonEmptyText(firstOf?.code) ??
    nonEmptyText(top?.type);
  const message =
    errorBodyMessage(body) ??
    (typeof body === 'string' && body.trim() !== '' ? summarizeText(body, secrets) : undefined) ??
    `${status} ${statusText}`.trim();
  const requestId =
    nonEmptyText(nested?.request_id) ?? nonEmptyText(top?.request_id) ?? nonEmptyText(top?.requestId);
  const details = withUrlsMasked(nested?.details ?? top?.details ?? top?.errors);
  // A code is a word (`not_found`, `NOT_FOUND`, `invalid_grant`): a date, a phrase or a number in
  // its place is no code scripts could branch on (attack27a F5); kept apart as the server's word.
  const readable = code !== undefined && CODE_SHAPE.test(code);
  return {
    ...(code === undefined ? {} : readable ? { code } : { serverCode: code }),
    // A server may echo a webhook's URL (`url https://…?token=… is not reachable`): shown as a
    // label, its secrets masked (s18 mask18 #4).
    message: redactUrlsInText(message),
    ...(requestId === undefined ? {} : { requestId }),
    ...(details === undefined ? {} : { details }),
    body,
  };
}

/**
 * Every string in a server's error details with the URLs in it masked (redactUrlsInText); what is
 * nested deeper than redactValue shows is left for it to cut.
 */
function withUrlsMasked(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactUrlsInText(value);
  if (depth >= MAX_REDACT_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((inner) => withUrlsMasked(inner, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, withUrlsMasked(inner, depth + 1)]),
  );
}

/** A text body made one short line, masked first (URLs too): a secret cut in two is no longer found to mask. */
function summarizeText(text: string, secrets: Iterable<string>): string {
  const plain = redactUrlsInText(
    redactText(
      text
        .replace(/<[^>]*>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
      secrets,
    ),
  );
  return plain.length > 200 ? `${plain.slice(0, 200)}${sym.ellipsis}` : plain;
}

export function apiErrorFrom(
  status: number,
  statusText: string,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  /** Secrets to mask in a text body before it is cut short for the message. */
  secrets: Iterable<string> = [],
  /** The headers of the request (a 431 names the largest and where it comes from). */
  sent: Record<string, string> = {},
  /** The lower-case names of the headers given with `svc api -H`. */
  given: ReadonlySet<string> = new Set(),
  /** The request's path and query (a 431 blames them when they are its largest part). */
  target = '',
  /** A 429 whose Retry-After is longer than svc waits by itself (ms): it was not retried. */
  waitsAtMostMs?: number,
): ApiError {
  const parsed = parseErrorBody(status, statusText, text, secrets);
  const headerId = headers['x-request-id'];
  const Ctor = BY_STATUS[status] ?? (status >= 500 ? InternalServerError : ApiError);
  return new Ctor(
    {
      status,
      code: parsed.code,
      serverCode: parsed.serverCode,
      message: parsed.message,
      requestId: parsed.requestId ?? (typeof headerId === 'string' ? headerId : undefined),
      details: parsed.details,
      headers,
      body: parsed.body,
      text,
    },
    status === 429
      ? { hint: rateLimitHint(headers['retry-after'], waitsAtMostMs) }
      : status === 431
        ? largestPartHint(sent, given, target)
        : {},
  );
}

/**
 * The fix half of a 429 that is still one after svc's retries (src/http/retry.ts): when to try
 * again, from the server's Retry-After (seconds or an HTTP date) when it gave one.
 */
function rateLimitHint(retryAfter: string | string[] | undefined, waitsAtMostMs?: number): string {
  const value = (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter)?.trim() ?? '';
  const when =
    /^\d+$/.test(value) && Number(value) > 0
      ? `wait ${Number(value)} s (the server asks for that in Retry-After)`
      : !Number.isNaN(httpDate(value))
        ? `wait until ${value} (the server's Retry-After)`
        : 'wait a minute';
  const why =
    waitsAtMostMs === undefined
      ? "svc's retries ran out"
      : `asks for a longer wait than svc makes by itself (${waitsAtMostMs / 1000} s)`;
  // A lower --concurrency cannot shorten a wait the server asks for: only waiting helps. Said only
  // where the running command has the flag (review21c F7, command-scope.ts).
  const easier = waitsAtMostMs === undefined && hasConcurrency() ? ' with a lower --concurrency' : '';
  return `the server limits how fast it is called and ${why}: ${when} and run the command again${easier}`;
}

/**
 * The codes of a 409 that says an earlier request of this idempotency key is still running on the
 * server: the sandbox's, and Stripe's (`idempotency_key_in_use`), which other servers of the API
 * follow. Either is waited for, never taken as a refusal.
 */
export const IN_PROGRESS_CODES: ReadonlySet<string> = new Set([
  'idempotency_request_in_progress',
  'idempotency_key_in_use',
]);

/** A 409 whose code says the request of this key is still being processed (IN_PROGRESS_CODES). */
export function stillRunning(status: number, code: string | undefined): boolean {
  return status === 409 && code !== undefined && IN_PROGRESS_CODES.has(code);
}

/**
 * The server was still working on this request when svc stopped waiting: it may yet complete, so
 * its outcome is unknown (exit 1; a bulk row counted "with an unknown outcome"), never a refusal.
 */
export function stillInProgress(
  error: ApiError,
  key: string | undefined,
  waitedMs: number,
): OutcomeUnknownError {
  const last = new ConflictError({
    status: error.status,
    code: error.code,
    message: `the server is still working on this request${key ? ` (idempotency key ${key})` : ''} after svc waited ${Math.round(waitedMs / 1000)} s for it; it may still complete`,
    requestId: error.requestId,
    headers: error.headers,
    body: error.body,
    text: error.text,
  });
  return new OutcomeUnknownError(
    last,
    'the platform is still processing it: check whether it was made before running the command again',
    key,
  );
}
