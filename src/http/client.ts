import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CredentialSource } from '../auth/credentials.js';
import { AuthError, InterruptedError, SvcError } from '../errors.js';
import type { Env } from '../output/io.js';
import { apiErrorFrom, ConnectionError, ConnectionTimeoutError } from './errors.js';
import { joinUrl } from './path.js';
import { DEFAULT_RETRY_POLICY, isRetryableStatus, type RetryPolicy, retryDelayMs } from './retry.js';
import { createTracer, type Tracer } from './trace.js';
import { type Dispatcher, EnvHttpProxyAgent, request } from './undici.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
export type QueryValue = string | number | boolean | undefined | null | Array<string | number>;
export type Headers = Record<string, string | string[] | undefined>;

export interface RequestOptions {
  method: HttpMethod;
  /** An API path built with path`…` (or an absolute URL for the OAuth endpoints). */
  path: string;
  query?: Record<string, QueryValue>;
  /** A JSON body. For POST, `idempotency_key` is added when absent. */
  body?: unknown;
  /** An application/x-www-form-urlencoded body (OAuth token endpoint). */
  form?: Record<string, string | undefined>;
  /** A body sent as given (svc api --input). */
  raw?: { data: string | Buffer; contentType: string };
  headers?: Record<string, string>;
  /** The operation's idempotency key; chosen once and reused for every retry. */
  idempotencyKey?: string;
  /** Send the bearer credential (default true). */
  auth?: boolean;
  /** Override the tenant header; null leaves it out. */
  tenant?: string | null;
  timeoutMs?: number;
  maxRetries?: number;
  /** Aborts this request; defaults to the client's signal (Ctrl-C). */
  signal?: AbortSignal;
  /** More values to keep out of traces (e.g. a client secret in a form body). */
  secrets?: string[];
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  data: T;
  text: string;
  requestId: string | undefined;
}

export interface ClientConfig {
  baseUrl: string;
  tenant?: string | undefined;
  org?: string | undefined;
  credentials: CredentialSource;
  userAgent: string;
  env: Env;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  /** Receives --debug trace text; absent means no tracing. */
  debug?: (text: string) => void;
  /** Hint printed with "not logged in" errors. */
  loginHint?: string;
  now?: () => number;
  random?: () => number;
  dispatcher?: Dispatcher;
  /**
   * Told of every change the server accepted (a 2xx answer to a method other than GET, HEAD or
   * OPTIONS): how the CLI knows a command changed something (src/cli.ts, a closed stdout).
   */
  onChange?: (change: {
    method: HttpMethod;
    path: string;
    status: number;
    requestId: string | undefined;
  }) => void;
}

export interface Page<T> {
  items: T[];
  next_cursor?: string | null;
}

const POOL_CONNECTIONS = 32;

/**
 * The one HTTP client every command uses: base-URL joining, auth and tenant headers,
 * idempotency keys, retries with backoff, timeouts, Ctrl-C, a keep-alive pool behind the
 * environment's proxy settings, and typed errors.
 */
export class ApiClient {
  readonly config: ClientConfig;
  readonly #policy: RetryPolicy;
  readonly #dispatcher: Dispatcher;
  readonly #tracer: Tracer | undefined;
  readonly #now: () => number;
  /** Set by a 429 with Retry-After: every request waits until then, so one rate limit slows all workers. */
  #pausedUntil = 0;

  constructor(config: ClientConfig) {
    this.config = config;
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...config.retry };
    this.#now = config.now ?? Date.now;
    const env = config.env;
    this.#dispatcher =
      config.dispatcher ??
      new EnvHttpProxyAgent({
        httpProxy: env.HTTP_PROXY ?? env.http_proxy,
        httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
        noProxy: env.NO_PROXY ?? env.no_proxy,
        connections: POOL_CONNECTIONS,
        keepAliveTimeout: 10_000,
      });
    this.#tracer = config.debug ? createTracer(config.debug) : undefined;
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
  ): AsyncGenerator<T> {
    let cursor = typeof query.cursor === 'string' ? query.cursor : undefined;
    for (;;) {
      const { data } = await this.get<Page<T>>(path, { ...query, cursor }, options);
      onPage?.(data as P);
      yield* pageItems<T>(data);
      const next = data?.next_cursor;
      if (typeof next !== 'string' || next === '') return;
      if (next === cursor)
        throw new SvcError('failure', `the server returned the same cursor twice for ${path}`);
      cursor = next;
    }
  }

  async request<T>(options: RequestOptions): Promise<ApiResponse<T>> {
    const method = options.method;
    const url = joinUrl(this.config.baseUrl, options.path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
      else url.searchParams.set(key, String(value));
    }
    // node:crypto is only loaded when a POST needs a fresh key.
    const freshKey =
      options.method === 'POST' && options.idempotencyKey === undefined && !options.form
        ? (await import('./idempotency.js')).newIdempotencyKey()
        : undefined;
    const { body, contentType, idempotencyKey } = encodeBody(options, options.idempotencyKey ?? freshKey);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.config.userAgent,
    };
    const tenant = options.tenant === undefined ? this.config.tenant : options.tenant;
    if (tenant) headers['x-tenant-id'] = tenant;
    if (this.config.org) headers['x-svc-org-id'] = this.config.org;
    if (contentType) headers['content-type'] = contentType;
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;

    const maxRetries = options.maxRetries ?? this.#policy.maxRetries;
    const signal = options.signal ?? this.config.signal;
    const secrets = [...this.config.credentials.secrets(), ...(options.secrets ?? [])];
    let renewed: string | undefined;
    let retry = 0;
    for (;;) {
      await this.#waitForPause(signal);
      const token = options.auth === false ? undefined : (renewed ?? (await this.#token()));
      if (token) headers.authorization = `Bearer ${token}`;
      const attemptSecrets = token ? [...secrets, token] : secrets;
      this.#tracer?.request(method, url, headers, body, contentType, retry + 1, attemptSecrets);

      const started = process.hrtime.bigint();
      let outcome: Outcome;
      try {
        outcome = await this.#send(method, url, headers, body, options.timeoutMs, signal);
      } catch (error) {
        if (
          !(error instanceof ConnectionError || error instanceof ConnectionTimeoutError) ||
          retry >= maxRetries
        ) {
          throw error;
        }
        this.#tracer?.failure(error.message, msSince(started));
        retry++;
        await this.#sleep(retryDelayMs(retry, undefined, this.#policy, this.#now()), signal);
        continue;
      }
      const elapsed = msSince(started);
      this.#tracer?.response(outcome, elapsed, attemptSecrets);

      const { status } = outcome;
      if (status === 401 && token && renewed === undefined && this.config.credentials.renew) {
        const replacement = await this.config.credentials.renew(token);
        if (replacement && replacement !== token) {
          renewed = replacement;
          continue;
        }
      }
      if (status >= 400 && isRetryableStatus(method, status) && retry < maxRetries) {
        retry++;
        const retryAfter = header(outcome.headers, 'retry-after');
        const delay = retryDelayMs(retry, retryAfter, this.#policy, this.#now());
        if (status === 429) this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + delay);
        await this.#sleep(delay, signal);
        continue;
      }
      if (status >= 400) {
        const error = apiErrorFrom(status, outcome.statusText, outcome.headers, outcome.text);
        // Only a bearer credential that was sent can have been rejected (the OAuth token endpoint
        // answers 401 invalid_client to a request without one).
        if (status === 401 && headers.authorization) {
          throw new AuthError(`${this.config.credentials.origin} was rejected: ${error.message}`, {
            code: error.code ?? 'unauthenticated',
            hint: this.config.loginHint,
            cause: error,
          });
        }
        throw error;
      }
      const requestId = header(outcome.headers, 'x-request-id');
      if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
        this.config.onChange?.({ method, path: url.pathname, status, requestId });
      }
      return {
        status,
        headers: outcome.headers,
        data: parseJson<T>(outcome.text),
        text: outcome.text,
        requestId,
      };
    }
  }

  async close(): Promise<void> {
    if (!this.config.dispatcher) await this.#dispatcher.close();
  }

  async #token(): Promise<string> {
    const token = await this.config.credentials.token();
    if (!token) {
      throw new AuthError(`not logged in: ${this.config.credentials.origin} has no credential`, {
        hint: this.config.loginHint,
      });
    }
    return token;
  }

  async #send(
    method: HttpMethod,
    url: URL,
    headers: Record<string, string>,
    body: string | Buffer | undefined,
    timeoutMs: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Outcome> {
    const limit = timeoutMs ?? this.config.timeoutMs ?? 30_000;
    // A timer cleared as soon as the answer is in, not AbortSignal.timeout() + AbortSignal.any():
    // those keep each request's objects alive until the timeout would fire, which over thousands
    // of requests (bulk runs) adds tens of megabytes.
    const controller = new AbortController();
    const timeout = { aborted: false };
    const timer = setTimeout(() => {
      timeout.aborted = true;
      controller.abort();
    }, limit);
    timer.unref();
    const forward = () => controller.abort();
    if (signal?.aborted) controller.abort();
    else signal?.addEventListener('abort', forward, { once: true });
    try {
      const response = await request(this.#dispatcher, url, {
        method,
        headers,
        body: body ?? null,
        signal: controller.signal,
      });
      const text = await response.body.text();
      return {
        status: response.statusCode,
        statusText: STATUS_CODES[response.statusCode] ?? '',
        headers: response.headers,
        text,
      };
    } catch (error) {
      if (signal?.aborted) throw new InterruptedError('interrupted; the request was cancelled');
      if (timeout.aborted) {
        throw new ConnectionTimeoutError(`no answer from ${url.origin} within ${limit / 1000} s`, {
          hint: 'check the server, or raise the limit with --timeout',
        });
      }
      throw new ConnectionError(`cannot reach ${url.origin}: ${networkReason(error)}`, {
        hint: 'is the server running? check --base-url and your network or proxy settings',
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    }
  }

  async #waitForPause(signal: AbortSignal | undefined): Promise<void> {
    const wait = this.#pausedUntil - this.#now();
    if (wait > 0) await this.#sleep(wait, signal);
  }

  async #sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (ms <= 0) return;
    try {
      await sleep(ms, undefined, signal ? { signal } : undefined);
    } catch {
      throw new InterruptedError();
    }
  }
}

export interface Outcome {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

function encodeBody(
  options: RequestOptions,
  defaultKey: string | undefined,
): {
  body: string | Buffer | undefined;
  contentType: string | undefined;
  idempotencyKey: string | undefined;
} {
  if (options.form) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(options.form)) if (value !== undefined) params.set(key, value);
    return {
      body: params.toString(),
      contentType: 'application/x-www-form-urlencoded',
      idempotencyKey: undefined,
    };
  }
  if (options.raw) {
    return {
      body: options.raw.data,
      contentType: options.raw.contentType,
      idempotencyKey: options.idempotencyKey,
    };
  }
  if (options.body === undefined) {
    const key = options.method === 'POST' ? defaultKey : undefined;
    return key
      ? {
          body: JSON.stringify({ idempotency_key: key }),
          contentType: 'application/json',
          idempotencyKey: key,
        }
      : { body: undefined, contentType: undefined, idempotencyKey: undefined };
  }
  let payload = options.body;
  let key = options.idempotencyKey;
  if (
    options.method === 'POST' &&
    payload !== null &&
    typeof payload === 'object' &&
    !Array.isArray(payload)
  ) {
    const given = (payload as Record<string, unknown>).idempotency_key;
    key = typeof given === 'string' ? given : defaultKey;
    payload = { ...(payload as Record<string, unknown>), idempotency_key: key };
  }
  return { body: JSON.stringify(payload), contentType: 'application/json', idempotencyKey: key };
}

function pageItems<T>(data: unknown): T[] {
  if (data && typeof data === 'object') {
    const record = data as Record<string, unknown>;
    if (Array.isArray(record.items)) return record.items as T[];
    if (Array.isArray(record.data)) return record.data as T[];
  }
  if (Array.isArray(data)) return data as T[];
  return [];
}

function msSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseJson<T>(text: string): T {
  if (text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return text as T;
  }
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const code = (error as { code?: string })?.code ?? cause?.code;
  const message = (error as Error)?.message ?? String(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
