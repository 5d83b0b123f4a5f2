// Over 300 lines: the one path every platform call takes (send, check the answer's shape, what
// it is about, whether a DELETE's answer says it is gone, whether it is a stored one, turn
// failures into typed errors); split, each part would be read only beside the others.
import { assignmentInForce } from '../api/roles.js';
import type { CredentialSource } from '../auth/credentials.js';
import {
  bareCommandLine,
  type CommandLine,
  commandLine,
  inTenant,
  profileOption,
  type TargetSettings,
} from '../config/settings.js';
import {
  type ApiClient,
  type ApiResponse,
  type HttpMethod,
  header,
  type QueryValue,
  type RequestOptions,
} from '../http/client.js';
import { NotFoundError } from '../http/errors.js';
import { nextCursorOf } from '../http/paging.js';
import type { Headers } from '../http/send.js';
import { sym } from '../output/symbols.js';
import { ApiPromise, type ResponseMeta, type WithResponse } from './api-promise.js';
import { findMismatch, type JsonSchema, type Mismatch } from './check.js';
import { answerTime, type DeleteRule, deleteVerdict, noBody } from './delete-answer.js';
import {
  AcceptedUnreadError,
  type ForeignSources,
  GoneAfterLostAnswerError,
  InvalidResponseError,
  type LineHint,
  type NotFoundClass,
  typedError,
  withMissingTenantHint,
  withUserRequiredHint,
} from './errors.js';
import { clientView, SCHEMA_REFS } from './schemas.js';
import { markedReplayed } from './stored-answer.js';

/** Per-request options every platform method takes (openai-node's request options). */
export interface CallOptions {
  /** The operation's idempotency key (POST); chosen once by the caller and reused on every retry. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Clean-up svc finishes after the command's stop: a token refresh it needs is sent (TokenUse). */
  afterStop?: boolean;
  timeoutMs?: number;
  maxRetries?: number;
  /**
   * Send this credential instead of the run's (a key asked about: src/auth/key-state.ts). The HTTP
   * layer asks it for the token of the request's URL, so a stored one goes only to its origin.
   */
  credentials?: CredentialSource;
  /** More values to keep out of --debug traces. */
  secrets?: string[];
  /**
   * The tenant of this call (X-Tenant-Id) instead of the profile's: commands that act in several
   * tenants; null sends none.
   */
  tenant?: string | null;
}

/** One API operation, as a resource method describes it. */
export interface Operation {
  method: HttpMethod;
  /** Built with the path`` tagged template, so every id is one encoded segment. */
  path: string;
  query?: Record<string, QueryValue> | undefined;
  body?: unknown;
  raw?: RequestOptions['raw'];
  /** The schema the answer must fit before anyone believes it; null for raw bytes. */
  schema: JsonSchema | null;
  /** The class of a plain 404 on this operation (e.g. RoleNotFoundError). */
  notFound?: NotFoundClass;
  /** Where to look instead, with the ids this operation knows (`see \`svc webhooks dlq ls wh_1\` …`). */
  lookIn?: LineHint;
  /** false: a POST that is not a platform operation (a sandbox control) and carries no idempotency key. */
  idempotencyKey?: false;
  /**
   * What the answer is about, as asked (`{ user_id, role_id }` of a grant, `{ id }` of a get): an
   * answer that names another value in one of these fields is not this request's answer, nor is
   * one whose `tenant_id` is another tenant than the request's (`tenant`). Absent fields pass (the
   * schema decides whether they must be there). A dotted name is a field of a member (`delivery.webhook_id`).
   */
  about?: Record<string, string | undefined>;
  /**
   * What a new object's answer must not name: the one it was made from (a replay's answer that is
   * the delivery replayed, attack26b F4), which says nothing was made.
   */
  notAbout?: Record<string, string>;
  /**
   * An answer that names what `notAbout` names is new all the same when this says so of it (a
   * replay answered with the delivery itself, its retry counter reset: review26a M1).
   */
  renewed?: (answer: Record<string, unknown>) => boolean;
  /**
   * What an answer says against itself, when it does (a test event's answer whose delivery is of
   * another event than the one it names: attack26b F3); undefined when it holds together.
   */
  inconsistent?: (answer: Record<string, unknown>) => string | undefined;
  /** One field of `about` as asked is enough (a role asked for by id or by name). */
  aboutEither?: true;
  /** The answer's `tenant_id`, when a string, must be the tenant the request acted in. */
  tenant?: true;
  /**
   * A change's: the command that shows whether it was made (errors.ts `shownBy`), which the hint of
   * an answer to it svc cannot read names (an unknown outcome: check before running it again).
   */
  check?: LineHint;
  /** A DELETE's: what its record says of being gone (delete-answer.ts): its ended `status` words, its only such fields. */
  gone?: DeleteRule;
  /**
   * A grant's or a move of its expiry: the answer's `status`, when present, must say the assignment
   * is in force (assignmentInForce: `active`); `revoked`, `expired` or a word svc does not know
   * does not say it was granted, whatever the 2xx (attack26b F5): an unknown outcome, as a DELETE's
   * answer that does not say it is gone.
   */
  inForce?: true;
  /**
   * A list read whole (all()): what a page repeating items of the page before does (paging.ts
   * CursorTrail): the items are read once and a whole page repeated stops the listing (default),
   * or, for a caller counting each item once itself (a dead-letter drain), it passes.
   */
  repeats?: 'stop' | 'counted once';
}

export interface Page<T> {
  items: T[];
  next_cursor?: string | null;
}

/**
 * What every resource method runs through: the request on the one HTTP client, known API error
 * codes turned into typed errors, and the answer checked against the operation's schema.
 */
export class Transport {
  /** `svc WORDS` as this run prints it (its -p, --base-url, --tenant …), for the commands a hint names. */
  readonly svc: CommandLine;
  /** The same without the run's tenant, for commands about the credential (`svc me`, `svc tenants ls`). */
  readonly svcAnyTenant: CommandLine;
  /** Where the run's tenant and organisation came from, for a 403 refusing one. */
  readonly #settings: TargetSettings | undefined;

  /** Where the run acts, as given (`ctx.settings()`), for what is kept of its answers (changed-in.ts). */
  get settings(): TargetSettings | undefined {
    return this.#settings;
  }

  /** `settings`: where the run acts (`ctx.settings()`); without them, hints name bare `svc` lines. */
  constructor(
    readonly api: ApiClient,
    settings?: TargetSettings,
  ) {
    this.#settings = settings;
    this.svc = settings ? commandLine(settings) : bareCommandLine;
    this.svcAnyTenant = settings ? commandLine(inTenant(settings, undefined)) : bareCommandLine;
  }

  /**
   * How to go without the tenant or organisation a 403 refused, by where it came from (attack23
   * F4): a flag or the environment (the default words), the profile (its setting, or --tenant, and
   * SVC_TOKEN unset when that token is the credential), or the command itself (a plan's or a
   * file's tenant: nothing to drop, only another credential or tenant).
   */
  #foreign(options: CallOptions): ForeignSources {
    const settings = this.#settings;
    if (settings === undefined) return {};
    const token = Boolean(this.api.config.env?.SVC_TOKEN?.trim());
    const profile = profileOption(settings.profile);
    const fromProfile = (key: 'tenant' | 'org') =>
      token
        ? `pass --${key} for SVC_TOKEN's credential, or unset SVC_TOKEN to use profile "${settings.profile}"${sym.apostrophe}s own login`
        : `pass --${key}, or \`svc ${profile} config ${key === 'tenant' ? 'set tenant SLUG' : 'unset org'}\` for profile "${settings.profile}"`;
    const { tenant: _t, org: _o, ...values } = settings.values;
    const { tenant: _ts, org: _os, ...sources } = settings.sources;
    return {
      tenant:
        typeof options.tenant === 'string'
          ? null
          : settings.sources.tenant === 'profile'
            ? fromProfile('tenant')
            : undefined,
      org: settings.sources.org === 'profile' ? fromProfile('org') : undefined,
      svcAnyTarget: commandLine({ ...settings, values, sources }),
    };
  }

  /** One request whose answer is checked against `operation.schema`. */
  call<T>(operation: Operation, options: CallOptions = {}): ApiPromise<T> {
    return new ApiPromise(this.#send<T>(operation, options, (data) => data));
  }

  /** One page of a list: `data` or a bare array are read as `items`, then the page is checked. */
  page<P extends Page<unknown>>(operation: Operation, options: CallOptions = {}): ApiPromise<P> {
    return new ApiPromise(
      this.#send<P>(operation, options, (data, headers) => {
        const page = normalizePage(data);
        if (page === null || typeof page !== 'object') return page;
        // A cursor the server gave is kept as it came (one that is not a string is refused by the check).
        const given = (page as Page<unknown>).next_cursor;
        if (given !== undefined && given !== null && given !== '') return page;
        const cursor = operation.query?.cursor;
        const next = nextCursorOf(
          data,
          headers,
          this.api.config.baseUrl,
          `${operation.method} ${operation.path}`,
          {
            path: operation.path,
            cursor: typeof cursor === 'string' ? cursor : undefined,
          },
        );
        return { ...page, next_cursor: next };
      }),
    );
  }

  /** Every item of a paged list, page after page as they arrive; each page is checked whole. */
  async *all<T, P extends Page<T> = Page<T>>(
    operation: Operation,
    options: CallOptions = {},
    onPage?: (page: P) => void,
  ): AsyncGenerator<T> {
    const pages = this.api.paginate<T, unknown>(
      operation.path,
      operation.query ?? {},
      requestOptions(options),
      (raw) => {
        const page = normalizePage(raw) as P;
        this.#check(operation, page, undefined);
        onPage?.(page);
      },
      {
        repeats: operation.repeats,
        // Said once by the run (ApiClient.keptTwice), naming the list.
        twice: (count) => {
          const tenant = typeof options.tenant === 'string' ? ` in tenant ${options.tenant}` : '';
          const list = `${operation.method} ${operation.path}${tenant}`;
          this.api.keptTwice.set(list, (this.api.keptTwice.get(list) ?? 0) + count);
        },
      },
    );
    try {
      yield* pages;
    } catch (error) {
      throw this.#typed(error, operation, options);
    }
  }

  /** An API error as its typed class, with the fixes svc knows for this profile. */
  #typed(error: unknown, operation: Operation, options: CallOptions): unknown {
    const { otherCredentialHint, missingTenantHint, userRequiredHint } = this.api.config;
    return withUserRequiredHint(
      withMissingTenantHint(
        typedError(
          error,
          operation.notFound,
          otherCredentialHint,
          operation.lookIn,
          this.svc,
          this.svcAnyTenant,
          this.#foreign(options),
        ),
        missingTenantHint,
      ),
      userRequiredHint,
    );
  }

  async #send<T>(
    operation: Operation,
    options: CallOptions,
    normalize: (data: unknown, headers: Headers) => unknown,
  ): Promise<WithResponse<T>> {
    let answer: ApiResponse<unknown>;
    try {
      answer = await this.api.request<unknown>({
        method: operation.method,
        path: operation.path,
        ...(operation.query ? { query: operation.query } : {}),
        ...(operation.body === undefined ? {} : { body: operation.body }),
        ...(operation.raw ? { raw: operation.raw } : {}),
        ...requestOptions(options),
        // A change's 2xx that is not JSON is judged here (#invalid): an unknown outcome, not a failure.
        ...(operation.method === 'GET' ? {} : { expect: 'judged' as const }),
        ...(operation.idempotencyKey === false ? { idempotencyKey: false as const } : {}),
      });
    } catch (error) {
      const typed = this.#typed(error, operation, options);
      // Nothing to delete, after an attempt whose answer was lost: most likely that attempt's doing.
      if (operation.method === 'DELETE' && typed instanceof NotFoundError && typed.lostAnswer !== undefined) {
        throw new GoneAfterLostAnswerError(typed as NotFoundError & { lostAnswer: string }, this.svc);
      }
      throw typed;
    }
    const data = operation.schema === null ? answer.text : normalize(answer.data, answer.headers);
    const response: ResponseMeta = {
      status: answer.status,
      headers: answer.headers,
      requestId: answer.requestId,
      // Only a server's word makes an answer a stored one: an object's time against the Date header
      // is two clocks (review18b R1, review19 F7).
      replayed: markedReplayed(answer.headers),
      afterLostAnswer: answer.afterLostAnswer === true,
      ...(answer.sentAt === undefined ? {} : { sentAt: answer.sentAt }),
    };
    this.#check(operation, data, response, options);
    this.#checkAbout(operation, data, response, options);
    this.#checkGone(operation, data, response);
    this.#checkInForce(operation, data, response);
    return { data: data as T, response };
  }

  /**
   * A grant's answer whose `status` says it ended (Operation.inForce: revoked, expired,
   * role_deleted): not a grant. A word svc does not know names no ended state (the reference has
   * no status): the grant, which its verb warns of (oddGrantStatus; review26a L1).
   */
  #checkInForce(operation: Operation, data: unknown, response: ResponseMeta): void {
    if (!operation.inForce || data === null || typeof data !== 'object') return;
    const { status } = data as { status?: unknown };
    if (assignmentInForce(status) !== 'ended') return;
    const problem = `says its status is ${JSON.stringify(status)}, not active`;
    throw this.#refusal(operation, problem, response, { against: problem });
  }

  /**
   * A DELETE's answer that fits the schema is believed only when it says the thing asked for is
   * gone (review19b F6): the record unchanged, or `deleted: false`, is an unknown outcome.
   */
  #checkGone(operation: Operation, data: unknown, response: ResponseMeta): void {
    if (operation.method !== 'DELETE' || operation.schema === null) return;
    const verdict = this.#deleteVerdict(operation, data, response);
    if (verdict.done && response.status !== 202) return;
    const said = verdict.against === undefined ? '' : ` (it ${verdict.against})`;
    // A flag that says it is gone beside a mark ahead (review21 F2): not "does not say it is gone".
    const lead = verdict.flagged ? 'leaves it unclear whether it is gone' : 'does not say it is gone';
    const problem = response.status === 202 ? `${TAKEN}${said}` : `${lead}${said}`;
    throw this.#refusal(operation, problem, response, {
      against: response.status === 202 ? problem : verdict.against,
    });
  }

  /**
   * delete-answer.ts's verdict on a DELETE's answer, its marks judged against the answer's time
   * (its Date and the time the request took, else now).
   */
  #deleteVerdict(operation: Operation, data: unknown, response: ResponseMeta | undefined) {
    const now = (this.api.config.now ?? Date.now)();
    const at = answerTime(
      response === undefined ? undefined : header(response.headers, 'date'),
      now,
      response?.sentAt,
    );
    return deleteVerdict(data, deleteAbout(operation), operation.gone, pathId(operation), at);
  }

  /**
   * An answer about another user, role or tenant than the request (a misrouting gateway, a cache,
   * another server's bug; attack18b 2) is not a result of this request: one line naming what was
   * asked and what came, exit 1, as an answer of the wrong shape is.
   */
  #checkAbout(operation: Operation, data: unknown, response: ResponseMeta, options: CallOptions): void {
    const about = operation.method === 'DELETE' ? deleteAbout(operation) : operation.about;
    const other = this.#aboutOther(operation, about, data, options);
    // An answer about another object says nothing of this one's change (review19b F7; attack26b
    // F4): never "most likely made".
    if (other !== undefined) throw this.#refusal(operation, other, response, { against: other });
    if (data === null || typeof data !== 'object') return;
    for (const [field, value] of Object.entries(operation.notAbout ?? {})) {
      // Ids compared as `about` compares them, ignoring case (review26a L2).
      const came = fieldOf(data as Record<string, unknown>, field);
      if (typeof came !== 'string' || came.toLowerCase() !== value.toLowerCase()) continue;
      if (operation.renewed?.(data as Record<string, unknown>)) continue;
      const problem = `is about ${field} ${JSON.stringify(value)}, the one the request names, not a new one`;
      throw this.#refusal(operation, problem, response, { against: problem });
    }
    const against = operation.inconsistent?.(data as Record<string, unknown>);
    if (against !== undefined) throw this.#refusal(operation, against, response, { against });
  }

  /** `is about …, not the … asked for` when the answer names another object than `about` asked; else undefined. */
  #aboutOther(
    operation: Operation,
    about: Operation['about'],
    data: unknown,
    options: CallOptions,
  ): string | undefined {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
    const answer = data as Record<string, unknown>;
    const asked: Record<string, string> = {};
    for (const [field, value] of Object.entries(about ?? {})) {
      if (value !== undefined) asked[field] = value;
    }
    const sentTenant = options.tenant === undefined ? this.api.config.tenant : options.tenant;
    if (operation.tenant && typeof sentTenant === 'string' && UUID.test(sentTenant)) {
      asked.tenant_id = sentTenant;
    }
    const differ = Object.keys(asked).filter((field) => {
      const came = fieldOf(answer, field);
      if (typeof came !== 'string') return false;
      // Ids in another case are the same to a server that accepts them so, and a user asked by
      // email is answered by id (review18b R4): neither is an answer about someone else.
      if (field === 'user_id' && asked[field]!.includes('@')) return false;
      return came.toLowerCase() !== asked[field]!.toLowerCase();
    });
    if (differ.length === 0) return undefined;
    // Either of `about`'s fields is enough; the tenant, when checked, is never one of them.
    const either = Object.keys(asked).filter(
      (field) => field !== 'tenant_id' || 'tenant_id' in (about ?? {}),
    );
    const eitherDiffer = differ.filter((field) => either.includes(field));
    if (operation.aboutEither && eitherDiffer.length === differ.length && differ.length < either.length)
      return undefined;
    const list = (values: (field: string) => unknown, join = ', ') =>
      differ.map((field) => `${field} ${JSON.stringify(values(field))}`).join(join);
    return `is about ${list((f) => fieldOf(answer, f))}, not the ${list((f) => asked[f], operation.aboutEither ? ' or ' : ', ')} asked for`;
  }

  #check(
    operation: Operation,
    data: unknown,
    response: ResponseMeta | undefined,
    options: CallOptions = {},
  ): void {
    if (operation.schema === null) return;
    const mismatch = findMismatch(clientView(operation.schema), data, SCHEMA_REFS);
    if (mismatch) throw this.#invalid(operation, data, mismatch, response, options);
  }

  #invalid(
    operation: Operation,
    data: unknown,
    mismatch: Mismatch,
    response: ResponseMeta | undefined,
    options: CallOptions,
  ): InvalidResponseError {
    let problem: string;
    if (mismatch.path === '') {
      problem =
        typeof data === 'string'
          ? `is text, not JSON (expected ${mismatch.expected})`
          : `is ${mismatch.found === 'nothing' ? 'empty' : mismatch.found} (expected ${mismatch.expected})`;
    } else if (mismatch.found === undefined) {
      problem = `lacks "${mismatch.path}" (${mismatch.expected})`;
    } else {
      problem = `has "${mismatch.path}" as ${mismatch.found} (expected ${mismatch.expected})`;
    }
    // A change's 2xx whose body is not JSON (text/plain "OK", a web page: session 20, review20d) is
    // not one svc can read as the platform's: it may be a proxy's, so it is checked on the platform,
    // never "most likely made" (`against`), and never the failure after which it is made twice.
    const unread = typeof data === 'string' && !noBody(data) && operation.method !== 'GET';
    if (operation.method !== 'DELETE') {
      if (!unread) return this.#refusal(operation, problem, response);
      const notJson = `is ${notAnObject(response)}`;
      return this.#refusal(operation, notJson, response, { against: notJson });
    }
    // A DELETE's answer about another object says that first: it is why the answer says nothing
    // of this one.
    const other = this.#aboutOther(operation, deleteAbout(operation), data, options);
    if (other !== undefined) return this.#refusal(operation, other, response, { against: other });
    // Done: its 200 or 204 with a body that positively says so (delete-answer.ts; review19b F1);
    // a 202 says only that it was taken, not yet done (session 20).
    const verdict = this.#deleteVerdict(operation, data, response);
    const taken = response?.status === 202;
    const done =
      response !== undefined && (response.status === 200 || response.status === 204) && verdict.done;
    if (verdict.against !== undefined) problem = verdict.against;
    if (unread) problem = `is ${notAnObject(response)}`;
    if (taken) problem = `${TAKEN}${verdict.against === undefined ? '' : ` (it ${verdict.against})`}`;
    // A JSON object that is not evidence says, at most, nothing of the change (review19b F7).
    const object = typeof data === 'object' && data !== null && !Array.isArray(data);
    const against = taken
      ? problem
      : (verdict.against ??
        (object && !verdict.done ? 'does not say it is gone' : verdict.done ? undefined : problem));
    return this.#refusal(operation, problem, response, { done, bodyless: done && noBody(data), against });
  }

  /**
   * A change's 2xx whose answer a rule outside the transport finds does not show what was asked
   * (one that must read more first: a grant's assigned_by against /v1/me, grantAnswerNotMade): the
   * same unknown outcome as the transport's own checks give, in the same words.
   */
  refuse(operation: Operation, problem: string, response: ResponseMeta): InvalidResponseError {
    return this.#refusal(operation, problem, response, { against: problem });
  }

  /** `the server's answer to METHOD PATH <problem>`: believed by nobody; a change may have been made. */
  #refusal(
    operation: Operation,
    problem: string,
    response: ResponseMeta | undefined,
    {
      done = false,
      bodyless = false,
      against,
    }: { done?: boolean; bodyless?: boolean; against?: string } = {},
  ): InvalidResponseError {
    const what = `the server's answer to ${operation.method} ${operation.path}`;
    const request = response?.requestId ? ` (request ${response.requestId})` : '';
    if (operation.method === 'GET' || response === undefined) {
      const hint = `svc believes none of it; is ${this.api.config.baseUrl} the platform API? check --base-url${request}`;
      return new InvalidResponseError(`${what} ${problem}`, { hint });
    }
    // A change the server accepted (2xx): never its failure, whatever svc could not read of it.
    const shows =
      operation.check === undefined ? '' : ` (\`${operation.check(this.svc)}\` shows whether it was)`;
    const answered = `svc saved and printed nothing, but the server answered ${response.status}${request} and may have made the change`;
    const hint = `${answered}: check before running the command again${shows}`;
    // `done`: a DELETE's 200 or 204 whose body positively says it was done (delete-answer.ts).
    // A verb that knows a safe re-run (a keyed creation) puts it after `answered` (withHint).
    return new AcceptedUnreadError(
      `${what} ${problem}`,
      { hint },
      response.status,
      done,
      bodyless,
      against,
      `${answered}${shows}`,
    );
  }
}

/** A DELETE answered 202: the server took it and has not done it yet (its words, session 20). */
const TAKEN = 'is HTTP 202: accepted, not yet done';

/** `not a JSON object (text/html)`: a body svc cannot read, by its Content-Type. */
function notAnObject(response: ResponseMeta | undefined): string {
  const type = response === undefined ? undefined : header(response.headers, 'content-type');
  const bare = type?.split(';')[0]?.trim().toLowerCase();
  return `not a JSON object (${bare || 'no Content-Type'})`;
}

/** An answer's field by `about`'s name of it: `id`, or `delivery.webhook_id` inside a member. */
function fieldOf(answer: Record<string, unknown>, field: string): unknown {
  let value: unknown = answer;
  for (const name of field.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

/** What a DELETE asked about: its `about`, else the path's last segment as `id`. */
function deleteAbout(operation: Operation): Record<string, string | undefined> {
  return operation.about ?? { id: pathId(operation) };
}

/** The id a path names: its last segment. */
function pathId(operation: Operation): string {
  return decodeURIComponent(operation.path.split('/').at(-1)?.split('?')[0] ?? '');
}

function requestOptions(options: CallOptions): Partial<RequestOptions> {
  const { credentials, ...rest } = options;
  const request: Partial<RequestOptions> = {};
  if (rest.idempotencyKey !== undefined) request.idempotencyKey = rest.idempotencyKey;
  if (rest.signal !== undefined) request.signal = rest.signal;
  if (rest.afterStop) request.afterStop = true;
  if (rest.timeoutMs !== undefined) request.timeoutMs = rest.timeoutMs;
  if (rest.maxRetries !== undefined) request.maxRetries = rest.maxRetries;
  if (rest.tenant !== undefined) request.tenant = rest.tenant;
  if (credentials !== undefined) request.credentials = credentials;
  if (rest.secrets !== undefined && rest.secrets.length > 0) request.secrets = rest.secrets;
  return request;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Lists as other servers send them: `{data: […]}` or a bare array are read as `{items: […]}`. */
function normalizePage(data: unknown): unknown {
  if (Array.isArray(data)) return { items: data, next_cursor: null };
  if (data !== null && typeof data === 'object') {
    const page = data as Record<string, unknown>;
    if (!Array.isArray(page.items) && Array.isArray(page.data)) return { ...page, items: page.data };
  }
  return data;
}
