// Just over 300 lines: the one path every platform call takes (send, check the answer's shape, what
// it is about and whether it is a stored one, turn failures into typed errors); split, each part
// would be read only beside the others.
import {
  bareCommandLine,
  type CommandLine,
  commandLine,
  inTenant,
  type TargetSettings,
} from '../config/settings.js';
import type { ApiClient, ApiResponse, HttpMethod, QueryValue, RequestOptions } from '../http/client.js';
import { NotFoundError } from '../http/errors.js';
import { nextCursorOf } from '../http/paging.js';
import type { Headers } from '../http/send.js';
import { ApiPromise, type ResponseMeta, type WithResponse } from './api-promise.js';
import { findMismatch, type JsonSchema, type Mismatch } from './check.js';
import {
  AcceptedUnreadError,
  GoneAfterLostAnswerError,
  InvalidResponseError,
  type LineHint,
  type NotFoundClass,
  typedError,
  withMissingTenantHint,
  withUserRequiredHint,
} from './errors.js';
import { clientView, SCHEMA_REFS } from './schemas.js';
import { madeBeforeSent, markedReplayed } from './stored-answer.js';

/** Per-request options every platform method takes (openai-node's request options). */
export interface CallOptions {
  /** The operation's idempotency key (POST); chosen once by the caller and reused on every retry. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  /** Send this bearer credential instead of the profile's (to check a token before storing it). */
  token?: string;
  /** More values to keep out of --debug traces (e.g. the refresh token that came with `token`). */
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
   * A creation or rotation: the field of its answer that says when its object was made (or its
   * secret rotated). Made clearly before the request was sent (ResponseMeta.madeBefore), the answer
   * is a stored one under the user's own key, whether or not the server marks it (createOnce).
   */
  madeAt?: 'created_at' | 'secret_rotated_at';
  /**
   * What the answer is about, as asked (`{ user_id, role_id }` of a grant, `{ id }` of a get): an
   * answer that names another value in one of these fields is not this request's answer, nor is
   * one whose `tenant_id` is another tenant than the request's (`tenant`). Absent fields pass (the
   * schema decides whether they must be there).
   */
  about?: Record<string, string | undefined>;
  /** One field of `about` as asked is enough (a role asked for by id or by name). */
  aboutEither?: true;
  /** The answer's `tenant_id`, when a string, must be the tenant the request acted in. */
  tenant?: true;
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

  /** `settings`: where the run acts (`ctx.settings()`); without them, hints name bare `svc` lines. */
  constructor(
    readonly api: ApiClient,
    settings?: TargetSettings,
  ) {
    this.svc = settings ? commandLine(settings) : bareCommandLine;
    this.svcAnyTenant = settings ? commandLine(inTenant(settings, undefined)) : bareCommandLine;
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
        const next = nextCursorOf(
          data,
          headers,
          this.api.config.baseUrl,
          `${operation.method} ${operation.path}`,
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
    );
    try {
      yield* pages;
    } catch (error) {
      throw this.#typed(error, operation);
    }
  }

  /** An API error as its typed class, with the fixes svc knows for this profile. */
  #typed(error: unknown, operation: Operation): unknown {
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
    const sent = Date.now();
    try {
      answer = await this.api.request<unknown>({
        method: operation.method,
        path: operation.path,
        ...(operation.query ? { query: operation.query } : {}),
        ...(operation.body === undefined ? {} : { body: operation.body }),
        ...(operation.raw ? { raw: operation.raw } : {}),
        ...requestOptions(options),
        ...(operation.idempotencyKey === false ? { idempotencyKey: false as const } : {}),
      });
    } catch (error) {
      const typed = this.#typed(error, operation);
      // Nothing to delete, after an attempt whose answer was lost: most likely that attempt's doing.
      if (operation.method === 'DELETE' && typed instanceof NotFoundError && typed.lostAnswer !== undefined) {
        throw new GoneAfterLostAnswerError(typed as NotFoundError & { lostAnswer: string }, this.svc);
      }
      throw typed;
    }
    const data = operation.schema === null ? answer.text : normalize(answer.data, answer.headers);
    const made = operation.madeAt && data !== null && typeof data === 'object' ? data : undefined;
    const madeBefore =
      made !== undefined &&
      madeBeforeSent(
        (made as Record<string, unknown>)[operation.madeAt as string],
        answer.headers,
        Date.now() - sent,
      );
    const response: ResponseMeta = {
      status: answer.status,
      headers: answer.headers,
      requestId: answer.requestId,
      // Only a server's word makes an answer a stored one: an object's time against the Date header
      // is two clocks (review18b R1); createOnce weighs madeBefore for the user's own key alone.
      replayed: markedReplayed(answer.headers),
      madeBefore,
      afterLostAnswer: answer.afterLostAnswer === true,
    };
    this.#check(operation, data, response);
    this.#checkAbout(operation, data, response, options);
    return { data: data as T, response };
  }

  /**
   * An answer about another user, role or tenant than the request (a misrouting gateway, a cache,
   * another server's bug; attack18b 2) is not a result of this request: one line naming what was
   * asked and what came, exit 1, as an answer of the wrong shape is.
   */
  #checkAbout(operation: Operation, data: unknown, response: ResponseMeta, options: CallOptions): void {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return;
    const answer = data as Record<string, unknown>;
    const asked: Record<string, string> = {};
    for (const [field, value] of Object.entries(operation.about ?? {})) {
      if (value !== undefined) asked[field] = value;
    }
    const sentTenant = options.tenant === undefined ? this.api.config.tenant : options.tenant;
    if (operation.tenant && typeof sentTenant === 'string' && UUID.test(sentTenant)) {
      asked.tenant_id = sentTenant;
    }
    const differ = Object.keys(asked).filter((field) => {
      const came = answer[field];
      if (typeof came !== 'string') return false;
      // Ids in another case are the same to a server that accepts them so, and a user asked by
      // email is answered by id (review18b R4): neither is an answer about someone else.
      if (field === 'user_id' && asked[field]!.includes('@')) return false;
      return came.toLowerCase() !== asked[field]!.toLowerCase();
    });
    if (differ.length === 0) return;
    if (operation.aboutEither && differ.length < Object.keys(asked).length) return;
    const list = (values: (field: string) => unknown, join = ', ') =>
      differ.map((field) => `${field} ${JSON.stringify(values(field))}`).join(join);
    throw this.#refusal(
      operation,
      `is about ${list((f) => answer[f])}, not the ${list((f) => asked[f], operation.aboutEither ? ' or ' : ', ')} asked for`,
      response,
    );
  }

  #check(operation: Operation, data: unknown, response: ResponseMeta | undefined): void {
    if (operation.schema === null) return;
    const mismatch = findMismatch(clientView(operation.schema), data, SCHEMA_REFS);
    if (mismatch) throw this.#invalid(operation, data, mismatch, response);
  }

  #invalid(
    operation: Operation,
    data: unknown,
    mismatch: Mismatch,
    response: ResponseMeta | undefined,
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
    const empty = data === undefined || data === null || (typeof data === 'string' && data.trim() === '');
    return this.#refusal(operation, problem, response, empty);
  }

  /** `the server's answer to METHOD PATH <problem>`: believed by nobody; a change may have been made. */
  #refusal(
    operation: Operation,
    problem: string,
    response: ResponseMeta | undefined,
    empty = false,
  ): InvalidResponseError {
    const what = `the server's answer to ${operation.method} ${operation.path}`;
    const request = response?.requestId ? ` (request ${response.requestId})` : '';
    if (operation.method === 'GET' || response === undefined) {
      const hint = `svc believes none of it; is ${this.api.config.baseUrl} the platform API? check --base-url${request}`;
      return new InvalidResponseError(`${what} ${problem}`, { hint });
    }
    // A change the server accepted (2xx): never its failure, whatever svc could not read of it.
    const hint = `svc saved and printed nothing, but the server answered ${response.status}${request} and may have made the change: check before running the command again`;
    // The reference shows no body for a DELETE: its 200 or 204 *without a body* says it was done (a
    // 202, only taken). A body svc cannot read (an error object answered 200), or one about something
    // else, says nothing of it (review18b R3).
    const done =
      operation.method === 'DELETE' && (response.status === 200 || response.status === 204) && empty;
    return new AcceptedUnreadError(`${what} ${problem}`, { hint }, response.status, done);
  }
}

function requestOptions(options: CallOptions): Partial<RequestOptions> {
  const { token, ...rest } = options;
  const request: Partial<RequestOptions> = {};
  if (rest.idempotencyKey !== undefined) request.idempotencyKey = rest.idempotencyKey;
  if (rest.signal !== undefined) request.signal = rest.signal;
  if (rest.timeoutMs !== undefined) request.timeoutMs = rest.timeoutMs;
  if (rest.maxRetries !== undefined) request.maxRetries = rest.maxRetries;
  if (rest.tenant !== undefined) request.tenant = rest.tenant;
  if (token !== undefined) {
    request.auth = false;
    request.headers = { authorization: `Bearer ${token}` };
  }
  const secrets = [...(token === undefined ? [] : [token]), ...(rest.secrets ?? [])];
  if (secrets.length > 0) request.secrets = secrets;
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
