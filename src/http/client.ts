// Over 300 lines on purpose: one request's life (headers, tenant, auth, retries, waiting on its
// own in-flight request, an attempt whose answer was lost, errors) is one loop; the pieces that
// stand alone are in their own files.
import type { CredentialSource, TokenUse } from '../auth/credentials.js';
import { AuthError, InterruptedError, SvcError } from '../errors.js';
import { realSleep, type Sleep } from '../system/clock.js';
import { encodeBody } from './body.js';
import { ACCEPT_ENCODING } from './encoding.js';
import {
  ApiError,
  answerLeavesOutcomeUnknown,
  apiErrorFrom,
  ConnectionError,
  ConnectionTimeoutError,
  InterruptedAfterSendingError,
  laterFailureHint,
  OutcomeUnknownError,
  stillInProgress,
  stillRunning,
} from './errors.js';
import { header } from './headers.js';
import {
  type ApiResponse,
  type ClientConfig,
  isSafeMethod,
  type Page,
  type QueryValue,
  type RequestOptions,
} from './options.js';
import { checkCredentialTransport } from './origin.js';
import { CursorTrail, followPage, nextCursorOf, skipOf, startCursor } from './paging.js';
import { joinUrl } from './path.js';
import { type ProxySettings, proxySettings, route } from './proxy.js';
import { SecretRegistry } from './redact.js';
import {
  BadResponseError,
  checkedBody,
  DEFAULT_MAX_RESPONSE_BYTES,
  notADocument,
  redirectError,
} from './response.js';
import {
  attemptsOnTheWire,
  beyondCap,
  DEFAULT_RETRY_POLICY,
  IN_FLIGHT_WAIT,
  inFlightDelayMs,
  isRetryableStatus,
  mayResend,
  parseRetryAfter,
  type RetryPolicy,
  retryAfterBase,
  retryDelayMs,
} from './retry.js';
import { closeDispatcher, exchange, type Headers, type Outcome } from './send.js';
import { answerClockOffset, speaksForPlatform } from './server-clock.js';
import { createTracer, type Tracer } from './trace.js';
import { type Dispatcher, ProxyRouter } from './undici.js';

/** Whether NODE_TLS_REJECT_UNAUTHORIZED asks for no verification, which svc ignores (undici.ts). */
export { header } from './headers.js';
export type {
  ApiResponse,
  ClientConfig,
  HttpMethod,
  Page,
  QueryValue,
  RequestOptions,
} from './options.js';
export { verificationOffAsked } from './undici.js';
export type { Headers, Outcome };

const POOL_CONNECTIONS = 32;

/**
 * The one HTTP client every command uses: base-URL joining, auth and tenant headers,
 * idempotency keys, retries with backoff, waiting on its own in-flight request, timeouts,
 * Ctrl-C, a keep-alive pool behind the environment's proxy settings, and typed errors. Answers
 * are checked before they are believed (response.ts), credentials go only where they may
 * (origin.ts, auth/credentials.ts), and traces are redacted (redact.ts, trace.ts).
 */
export class ApiClient {
  readonly config: ClientConfig;
  readonly #policy: RetryPolicy;
  readonly #dispatcher: Dispatcher;
  readonly #proxies: ProxySettings;
  readonly #tracer: Tracer | undefined;
  readonly #now: () => number;
  readonly #wait: Sleep;
  readonly #secrets: SecretRegistry;
  /** Set by a 429 with Retry-After: every request waits until then, so one rate limit slows all workers. */
  #pausedUntil = 0;
  /** The tenant slug's id, once resolved (config.resolveTenant). */
  #tenantResolved: Promise<string> | undefined;
  #serverClockOffsetMs: number | undefined;
  /**
   * Items the lists read whole through this client (platform/transport.ts all()) repeated of the
   * items before them and kept once, not said yet: the run says so once (Platform.sayTwice, or at
   * its end: Context.close), whichever Platform over this client read them (a tenant slug's
   * lookup has its own). By list (`GET /v1/roles`, `… in tenant ten_1`: paging.ts keptNote), so
   * the warning names the lists that changed.
   */
  readonly keptTwice = new Map<string, number>();

  constructor(config: ClientConfig) {
    this.config = config;
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...config.retry };
    this.#now = config.now ?? Date.now;
    this.#wait = config.sleep ?? realSleep;
    // Proxies from the Context's environment (proxy.ts): loopback is never proxied.
    this.#proxies = proxySettings(config.env);
    this.#dispatcher =
      config.dispatcher ??
      new ProxyRouter(this.#proxies, { connections: POOL_CONNECTIONS, keepAliveTimeout: 10_000 });
    this.#secrets = config.secrets ?? new SecretRegistry();
    this.#tracer = config.debug ? createTracer(config.debug, this.#secrets) : undefined;
  }

  /**
   * How far the server's clock is ahead of this machine's (ms; negative: behind), from the Date
   * header of the latest answer that speaks for it (whole seconds: server-clock.ts, the base URL's
   * origin, no 5xx, not a cached one), or undefined before any such answer carried one.
   */
  get serverClockOffsetMs(): number | undefined {
    return this.#serverClockOffsetMs;
  }

  /** How far the clock behind one answer's Date is ahead of this machine's; undefined: none, or cached. */
  clockOffsetOf(headers: Headers): number | undefined {
    return answerClockOffset(header(headers, 'date'), header(headers, 'age'), this.#now());
  }

  #learnServerClock(url: URL, status: number, headers: Headers): void {
    if (!speaksForPlatform(url, this.config.baseUrl, status)) return;
    const offset = this.clockOffsetOf(headers);
    if (offset !== undefined) this.#serverClockOffsetMs = offset;
  }

  get<T>(path: string, query?: Record<string, QueryValue>, options: Partial<RequestOptions> = {}) {
    return this.request<T>({ ...options, method: 'GET', path, ...(query ? { query } : {}) });
  }

  post<T>(path: string, body: unknown, options: Partial<RequestOptions> = {}) {
    return this.request<T>({ ...options, method: 'POST', path, body });
  }

  patch<T>(path: string, body: unknown, options: Partial<RequestOptions> = {}) {
    return this.request<T>({ ...options, method: 'PATCH', path, body });
  }

  delete<T>(path: string, options: Partial<RequestOptions> = {}) {
    return this.request<T>({ ...options, method: 'DELETE', path });
  }

  /**
   * Every item of a cursor-paged list, page after page, as they arrive (constant memory).
   * `onPage` sees each page whole, before its items, for fields beside them (e.g. a total).
   */
  async *paginate<T, P = Page<T>>(
    path: string,
    query: Record<string, QueryValue> = {},
    options: Partial<RequestOptions> = {},
    onPage?: (page: P) => void,
    more: {
      /** The first page, already read for `query` (svc api --paginate reads it to see if it is a list). */
      first?: { data: Page<T>; headers: Headers } | undefined;
      /** A page repeating items of the page before: read once (a whole page stops the listing), or passed to a caller counting each once (CursorTrail). */
      repeats?: 'stop' | 'counted once' | undefined;
      /** Told, at the end, how many items pages repeated and were read once (none: not told; paging.ts twiceNote). */
      twice?: ((count: number) => void) | undefined;
    } = {},
  ): AsyncGenerator<T> {
    let cursor = startCursor(path, query);
    const trail = new CursorTrail(cursor, more.repeats);
    let read = more.first;
    for (;;) {
      let items: T[];
      let data: Page<T>;
      let next: string | null;
      try {
        let headers: Headers;
        if (read) [{ data, headers }, read] = [read, undefined];
        else ({ data, headers } = await this.get<Page<T>>(path, { ...query, cursor }, options));
        const found = pageItems<T>(data);
        if (!found) {
          throw new BadResponseError(
            `the server answered GET ${path} with a page that has no list of items`,
            { hint: 'is the base URL the API, not a web page or a proxy?' },
          );
        }
        onPage?.(data as P);
        next = nextCursorOf(data, headers, this.config.baseUrl, `GET ${path}`, { path, cursor });
        // After the page's own numbers are checked (a page moved says more than a repeat).
        const twice = trail.read(found, cursor);
        // A --cursor of svc's own may name a page some of whose items were printed already.
        items = found.slice(skipOf(cursor)).filter((item) => !twice.has(item));
      } catch (error) {
        throw trail.failed(error);
      }
      yield* items;
      cursor = trail.next(items.length, next);
      if (cursor === undefined) {
        if (trail.twice > 0) more.twice?.(trail.twice);
        return;
      }
    }
  }

  /** The run's tenant id (a slug resolved once, as its first request would), or undefined for none. */
  tenantId(): Promise<string | undefined> {
    return this.#tenant();
  }

  async #tenant(): Promise<string | undefined> {
    const resolve = this.config.resolveTenant;
    if (!resolve) return this.config.tenant;
    this.#tenantResolved ??= resolve(this).then((id) => {
      this.config.tenant = id;
      return id;
    });
    return this.#tenantResolved;
  }

  async request<T>(asked: RequestOptions): Promise<ApiResponse<T>> {
    // A page named by a cursor of svc's own (another server's paging) is asked for its own way.
    const options = followPage(asked);
    const method = options.method;
    const url = joinUrl(this.config.baseUrl, options.path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
      else url.searchParams.set(key, String(value));
    }
    // node:crypto is only loaded when a change needs a fresh key: a POST (in its body and header),
    // or a DELETE, PATCH or PUT (the header only), so a retry after a lost answer is recognised.
    const freshKey =
      !isSafeMethod(method) && options.idempotencyKey === undefined && !options.form
        ? (await import('./idempotency.js')).newIdempotencyKey()
        : undefined;
    const { body, contentType, idempotencyKey } = encodeBody(options, options.idempotencyKey ?? freshKey);
    // No prototype: a header the caller names __proto__ (svc api -H) is a header, not dropped.
    const headers: Record<string, string> = Object.assign(Object.create(null), {
      accept: 'application/json',
      'accept-encoding': ACCEPT_ENCODING,
      'user-agent': this.config.userAgent,
    });
    const tenant = options.tenant === undefined ? await this.#tenant() : options.tenant;
    if (tenant) headers['x-tenant-id'] = tenant;
    if (this.config.org) headers['x-svc-org-id'] = this.config.org;
    if (contentType) headers['content-type'] = contentType;
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;

    const maxRetries = options.maxRetries ?? this.#policy.maxRetries;
    const signal = options.signal ?? this.config.signal;
    // A signal that lets an attempt on the wire finish (retry.ts finishingSent) ends only the waits.
    const onTheWire = attemptsOnTheWire(signal);
    let attempts = 0;
    const credentials = options.credentials ?? this.config.credentials;
    const use: TokenUse | undefined = options.afterStop ? { afterStop: true, signal } : undefined;
    this.#secrets.add(...credentials.secrets(), ...(options.secrets ?? []));
    this.#secrets.learnRequest(options.form ?? options.body, options.headers);
    let renewed: string | undefined;
    let retry = 0;
    const inFlight = { waits: 0, waitedMs: 0 };
    // What became of the first attempt of this change whose answer was lost (it may have been
    // applied): a final error then says so, since it may describe the state that attempt left.
    let lostAnswer: string | undefined;
    // The 2xx status of that lost answer, when its head came and its body did not (review25a L2).
    let lostStatus: number | undefined;
    // A 409 "in progress" came: an attempt with this key runs on the platform and may make the
    // change, so a stop from then on leaves the outcome unknown (never "nothing was changed").
    // Apart from lostAnswer: the answer svc then takes is that attempt's own, not one to doubt.
    let earlierRunning = false;
    const changes = !isSafeMethod(method);
    // A change without an idempotency key is sent again only after a failure that proves it was
    // not acted on (retry.ts): a second attempt could apply it twice.
    const resendable = mayResend(method, idempotencyKey !== undefined);
    // One rule for every way out of the loop below (review24f H1): once an attempt of this change
    // may have been applied (its answer lost, or an earlier attempt of its key still running), a
    // later failure that is no answer of the platform's about the change (Ctrl-C in a wait, a token
    // refresh that fails, a retry answered 401 or redirected, a retry not sent) proves nothing about
    // that attempt: the outcome is unknown, with the failure's own cause and fix kept. A platform's
    // 4xx answer stays what it is (it carries lostAnswer); after a 2xx the change was made.
    let answered = false;
    const settled = (error: unknown) =>
      (lostAnswer !== undefined || earlierRunning) &&
      !answered &&
      error instanceof SvcError &&
      !(error instanceof OutcomeUnknownError) &&
      !(error instanceof ApiError)
        ? new OutcomeUnknownError(
            error,
            laterFailureHint(error.hint),
            idempotencyKey,
            // The lost attempt is why the outcome is unknown; a stop's own words already say so.
            error instanceof InterruptedError ? undefined : lostAnswer,
            lostStatus,
          )
        : error;
    // After a 409 "in progress", a failure of this request that carries no answer of the platform's
    // (a connection refused or out of descriptors, a 429 or 5xx to the retry) says nothing of that
    // earlier attempt, which may make the change: the outcome is unknown (review22d F1).
    const pending = <E extends ConnectionError | ConnectionTimeoutError | ApiError>(error: E) =>
      earlierRunning && changes ? new OutcomeUnknownError(error, undefined, idempotencyKey) : error;
    // A stop where svc waits (or would wait) before an attempt: what was sent and what was not,
    // never a bare "interrupted" (a change after an answer that may have been made: unknown).
    // An item's earlier request whose change may have been made (retry.ts finishingItem): then
    // this one's stop is no proof that nothing was changed.
    const cut = (where: string) => () => {
      const what = `${method} ${url.pathname}`;
      const sent = attempts === 0 ? `${what} was not sent` : `${what} was not sent again`;
      const none = changes && lostAnswer === undefined && !earlierRunning && onTheWire?.changed === undefined;
      return new InterruptedError(`interrupted ${where}: ${sent}${none ? '; nothing was changed' : ''}`);
    };
    // Of a bulk row's requests: a change of it may have been made (a 2xx answered it; or its answer
    // was lost, or an earlier attempt of its key still ran), for the row's words after a stop.
    const mayHaveChanged = (how: 'answered' | 'maybe') => {
      if (onTheWire && changes && onTheWire.changed !== 'answered') onTheWire.changed = how;
    };
    try {
      for (;;) {
        await this.#waitForPause(
          signal,
          cut("while waiting for the platform's rate limit (HTTP 429) to pass"),
        );
        // Stopped: a request under a stop that lets sent ones finish starts nothing new, neither
        // another attempt nor a first one (a row's follow-up: the check read, --extend's PATCH).
        if (onTheWire && signal?.aborted)
          throw cut(attempts > 0 ? 'before its next attempt' : 'before it was sent')();
        // A refresh a stop let finish says so (src/auth/refresh.ts): after a lost answer, still unknown.
        const token =
          options.auth === false ? undefined : (renewed ?? (await this.#token(url, credentials, use)));
        if (token) headers.authorization = `Bearer ${token}`;
        this.#secrets.add(token);
        if (headers.authorization || (options.secrets?.length ?? 0) > 0) {
          checkCredentialTransport(url, this.config.allowInsecureHttp === true);
        }
        const way = route(url, this.#proxies);
        this.#tracer?.request(method, url, headers, body, contentType, retry + 1, way.note);

        const started = process.hrtime.bigint();
        const sentAt = this.#now();
        let outcome: Outcome;
        attempts++;
        if (onTheWire) onTheWire.sent++;
        try {
          outcome = await exchange(this.#dispatcher, method, url, headers, body, {
            timeoutMs: options.timeoutMs ?? this.config.timeoutMs ?? 30_000,
            ...(this.config.timer ? { timer: this.config.timer } : {}),
            maxBytes: this.config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
            signal: onTheWire ? undefined : signal,
            proxy: way.proxy && { url: way.proxy, from: way.from },
          }).finally(() => {
            if (onTheWire) onTheWire.sent--;
          });
        } catch (error) {
          // Ctrl-C once a change was sent: it may be made all the same.
          if (error instanceof InterruptedAfterSendingError) {
            mayHaveChanged('maybe');
            throw new OutcomeUnknownError(error, undefined, idempotencyKey);
          }
          if (!(error instanceof ConnectionError || error instanceof ConnectionTimeoutError)) throw error;
          const { mayHaveArrived } = error;
          // An answer that started (its status came) and whose body stopped is no "no answer": the
          // request arrived, and the outcome is unknown all the same (s25; attack24a F4's rest).
          const lost =
            error instanceof ConnectionTimeoutError
              ? error.answered === undefined
                ? 'no answer in time'
                : `HTTP ${error.answered} came, but its body did not finish in time`
              : 'the connection dropped';
          if (changes && mayHaveArrived) {
            if (lostAnswer === undefined && error instanceof ConnectionTimeoutError)
              lostStatus = error.answered;
            lostAnswer ??= lost;
            mayHaveChanged('maybe');
          }
          // The last attempt: a change any of whose attempts may have reached the server has an
          // unknown outcome, whatever this one's error (a retry refused by the proxy or over a
          // certificate proves only that the retry was not sent; review24c H1).
          const last = (error instanceof ConnectionError && !error.retryable) || retry >= maxRetries;
          if (last || (mayHaveArrived && !resendable)) {
            throw changes && mayHaveArrived
              ? new OutcomeUnknownError(error, undefined, idempotencyKey)
              : error;
          }
          this.#tracer?.failure(error.message, msSince(started));
          retry++;
          await this.#sleep(
            retryDelayMs(retry, undefined, this.#policy, this.#now()),
            signal,
            cut(
              `while waiting to retry after ${error instanceof ConnectionTimeoutError && mayHaveArrived ? (error.answered === undefined ? lost : 'an answer whose body did not finish in time') : 'a connection failure'}`,
            ),
          );
          continue;
        }
        const elapsed = msSince(started);
        this.#tracer?.response(outcome, elapsed);
        this.#learnServerClock(url, outcome.status, outcome.headers);

        const { status } = outcome;
        if (status >= 200 && status < 300) {
          answered = true;
          mayHaveChanged('answered');
        }
        // Never followed: the next hop would get the token, or be trusted as the API.
        const redirect = redirectError(
          method,
          url,
          status,
          outcome.headers,
          this.config.baseUrl,
          this.config.profileFlag,
        );
        if (redirect) throw redirect;
        if (status === 401 && token && renewed === undefined && credentials.renew) {
          const replacement = await credentials.renew(token, use);
          if (replacement && replacement !== token) {
            renewed = replacement;
            continue;
          }
        }
        const retryAfter = header(outcome.headers, 'retry-after');
        // A Retry-After date is on the server's clock: measured from this answer's Date (and Age).
        const answeredAt = retryAfterBase(
          header(outcome.headers, 'date'),
          this.#now(),
          header(outcome.headers, 'age'),
        );
        // A wait longer than svc makes cannot end in success: the answer is the result.
        const tooLong = beyondCap(retryAfter, this.#policy, answeredAt);
        if (
          status >= 400 &&
          isRetryableStatus(method, status, resendable) &&
          retry < maxRetries &&
          !tooLong
        ) {
          // A 5xx to a change may come after the change was made (408 and 429 say it was not).
          if (changes && status >= 500) {
            lostAnswer ??= `HTTP ${status}`;
            mayHaveChanged('maybe');
          }
          // Stopped meanwhile (an answer a stop let finish): no retry to announce or wait for.
          if (signal?.aborted) throw cut(`after HTTP ${status}, before retrying`)();
          retry++;
          const delay = retryDelayMs(retry, retryAfter, this.#policy, answeredAt);
          // A 429 pauses every request of this client (a bulk run's workers): said once per pause,
          // by the request that starts it, not again by each worker answered 429 within it.
          const paused = this.#pausedUntil > this.#now();
          if (status === 429) this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + delay);
          if (!(status === 429 && paused)) this.#noteWait(status, delay, retry, maxRetries);
          const after = `HTTP ${status}${status === 429 ? ', rate limited' : ''}`;
          await this.#sleep(
            delay,
            signal,
            cut(`while waiting ${Math.ceil(delay / 1000)} s to retry after ${after}`),
          );
          continue;
        }
        if (status >= 400) {
          // A body svc cannot decode is not the server's message: its coding is named instead.
          const undecodable = outcome.undecodable;
          const error = apiErrorFrom(
            status,
            outcome.statusText,
            outcome.headers,
            undecodable === undefined ? outcome.text : '',
            this.#secrets.values(),
            headers,
            new Set(Object.keys(options.headers ?? {}).map((name) => name.toLowerCase())),
            `${url.pathname}${url.search}`,
            tooLong && retry < maxRetries ? this.#policy.retryAfterCapMs : undefined,
          );
          if (undecodable !== undefined) error.message = `the server answered ${status} with ${undecodable}`;
          error.lostAnswer = lostAnswer;
          error.lostStatus = lostStatus;
          error.notUtf8 = outcome.notUtf8;
          error.sentBody = options.body;
          if (tooLong && status === 429) {
            const askedMs = parseRetryAfter(retryAfter, answeredAt) ?? 0;
            error.waitBeyondCap = {
              askedMs,
              capMs: this.#policy.retryAfterCapMs,
              until: this.#now() + askedMs,
            };
          }
          // A 5xx may come after the change was made (or an earlier attempt was lost): unknown.
          if (changes && answerLeavesOutcomeUnknown(status, lostAnswer !== undefined)) {
            mayHaveChanged('maybe');
            throw new OutcomeUnknownError(error, undefined, idempotencyKey);
          }
          if (stillRunning(status, error.code)) {
            earlierRunning = true;
            mayHaveChanged('maybe');
            // Our own earlier attempt (same key) is still running: wait for it, then take its answer.
            const delay = inFlightDelayMs(
              inFlight.waits + 1,
              header(outcome.headers, 'retry-after'),
              this.#policy,
              this.#now(),
            );
            if (
              inFlight.waits < IN_FLIGHT_WAIT.maxWaits &&
              inFlight.waitedMs + delay <= IN_FLIGHT_WAIT.maxTotalMs
            ) {
              inFlight.waits++;
              inFlight.waitedMs += delay;
              await this.#sleep(
                delay,
                signal,
                cut('while waiting for its earlier attempt, still in progress on the platform'),
              );
              continue;
            }
            throw stillInProgress(error, idempotencyKey, inFlight.waitedMs);
          }
          // Only a bearer credential that was sent can have been rejected (the OAuth token endpoint
          // answers 401 invalid_client to a request without one).
          // The caller's own Authorization header (auth: false; svc api -H) is not the profile's.
          if (status === 401 && headers.authorization) {
            const own = options.auth !== false;
            const sent = own ? credentials.origin : 'the Authorization header given';
            throw new AuthError(`${sent} was rejected: ${error.message}`, {
              code: error.code ?? 'unauthenticated',
              ...(own && !options.credentials ? { hint: this.config.loginHint } : {}),
              cause: error,
            });
          }
          // 408, 429: this attempt was not acted on; a 5xx: it may have been. Either says nothing of
          // the earlier attempt still running. Any other answer is that attempt's own (its stored answer).
          if (status === 408 || status === 429 || status >= 500) throw pending(error);
          throw error;
        }
        // The server accepted a change, whatever its body turns out to be (a closed stdout must say so).
        const requestId = header(outcome.headers, 'x-request-id');
        if (changes && options.recordChange !== false) {
          this.config.onChange?.({
            method,
            path: url.pathname,
            status,
            requestId,
            created: createdId(status, outcome.text),
          });
        }
        if (outcome.undecodable !== undefined) throw notADocument(method, url, status, outcome.undecodable);
        const data = checkedBody<T>(
          method,
          url,
          status,
          outcome.headers,
          outcome.text,
          options.expect ?? 'json',
        );
        // A key or secret the server just issued is known from now on, so no later line prints it.
        this.#secrets.learn(data);
        return {
          status,
          headers: outcome.headers,
          data,
          text: outcome.text,
          ...(outcome.notUtf8 ? { notUtf8: outcome.notUtf8 } : {}),
          requestId,
          afterLostAnswer: lostAnswer !== undefined,
          sentAt,
          ...(idempotencyKey ? { idempotencyKey } : {}),
        };
      }
    } catch (error) {
      throw settled(error);
    }
  }

  async close(): Promise<void> {
    if (!this.config.dispatcher) await closeDispatcher(this.#dispatcher);
  }

  async #token(target: URL, credentials: CredentialSource, use: TokenUse | undefined): Promise<string> {
    const token = await credentials.token(target, use);
    if (!token) {
      throw new AuthError(`not logged in: ${credentials.origin} has no credential`, {
        hint: this.config.loginHint,
      });
    }
    return token;
  }

  /** A wait on a 429 or a 5xx longer than a moment is said (--debug's trace, or onWait), never silent. */
  #noteWait(status: number, delayMs: number, retry: number, maxRetries: number): void {
    if (delayMs <= NOTED_WAIT_MS) return;
    const why =
      status === 429 ? 'rate limited' : status === 408 ? 'request timeout' : 'the server is unavailable';
    const note = `${why} (HTTP ${status}); retrying in ${Math.round(delayMs / 1000)} s (${retry} of ${maxRetries})`;
    if (this.#tracer) this.#tracer.note(note);
    else this.config.onWait?.(note);
  }

  async #waitForPause(signal: AbortSignal | undefined, cut: () => InterruptedError): Promise<void> {
    const wait = this.#pausedUntil - this.#now();
    if (wait > 0) await this.#sleep(wait, signal, cut);
  }

  /** Waits `ms`; a stop ends it with `cut`'s error (what was sent, what not). */
  async #sleep(ms: number, signal: AbortSignal | undefined, cut: () => InterruptedError): Promise<void> {
    if (ms <= 0) return;
    try {
      await this.#wait(ms, signal);
    } catch {
      throw cut();
    }
  }
}

/** The items of one list page (`items`, `data`, or a bare array), or undefined when it has none. */
export function pageItems<T>(data: unknown): T[] | undefined {
  if (Array.isArray(data)) return data as T[];
  if (data && typeof data === 'object') {
    const record = data as Record<string, unknown>;
    if (Array.isArray(record.items)) return record.items as T[];
    if (Array.isArray(record.data)) return record.data as T[];
  }
  return undefined;
}

/** Waits longer than this (ms) on a 429 or a 5xx are said: a user sees why nothing happens. */
const NOTED_WAIT_MS = 2_000;

/** The id of what a 201 answer created (its top-level string `id`), if it names one. */
function createdId(status: number, text: string): string | undefined {
  if (status !== 201) return undefined;
  try {
    const id = (JSON.parse(text) as { id?: unknown } | null)?.id;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}

function msSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}
