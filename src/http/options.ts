import type { CredentialSource } from '../auth/credentials.js';
import type { Env } from '../output/io.js';
import type { Sleep, Timer } from '../system/clock.js';
import type { ApiClient } from './client.js';
import type { SecretRegistry } from './redact.js';
import type { ExpectedBody } from './response.js';
import type { RetryPolicy } from './retry.js';
import type { Headers } from './send.js';
import type { Dispatcher } from './undici.js';

/** The options of the one HTTP client (client.ts): per client, and per request. */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

/**
 * GET, HEAD and OPTIONS: the methods that change nothing (RFC 9110 §9.2.1). Every other one is a
 * change: it carries an idempotency key, and a 2xx to it means the server changed something.
 */
export function isSafeMethod(method: string): boolean {
  const upper = method.toUpperCase();
  return upper === 'GET' || upper === 'HEAD' || upper === 'OPTIONS';
}
export type QueryValue = string | number | boolean | undefined | null | Array<string | number>;

export interface RequestOptions {
  method: HttpMethod;
  /** An API path built with path`…` (or an absolute URL for the OAuth endpoints). */
  path: string;
  query?: Record<string, QueryValue>;
  /** A JSON body. For POST, `idempotency_key` is added when absent (unless idempotencyKey is false). */
  body?: unknown;
  /** An application/x-www-form-urlencoded body (OAuth token endpoint). */
  form?: Record<string, string | undefined>;
  /** A body sent as given (svc api --input). */
  raw?: { data: string | Buffer; contentType: string };
  headers?: Record<string, string>;
  /**
   * The operation's idempotency key; chosen once and reused for every retry. false: the request
   * is not a platform POST (a sandbox control, a foreign path through svc api) and carries none.
   */
  idempotencyKey?: string | false;
  /** Send the bearer credential (default true). */
  auth?: boolean;
  /**
   * This request's credential instead of the client's (a key asked about: src/auth/key-state.ts).
   * It is asked for the token of the request's own URL as the client's is, so a stored one goes
   * only to its origin; after a 401 it is renewed only by its own `renew` (a key has none).
   */
  credentials?: CredentialSource;
  /** Override the tenant header; null leaves it out. */
  tenant?: string | null;
  timeoutMs?: number;
  maxRetries?: number;
  /** Aborts this request; defaults to the client's signal (Ctrl-C). */
  signal?: AbortSignal;
  /** Clean-up svc finishes after the command's stop: a token refresh it needs is sent (TokenUse). */
  afterStop?: boolean;
  /** More values to keep out of traces (e.g. a client secret in a form body). */
  secrets?: string[];
  /**
   * false: a 2xx to this request is not a change the command made, so onChange is not told (svc's
   * own token refresh: a read whose token was refreshed is still a read for a closed stdout).
   */
  recordChange?: false;
  /**
   * What a 2xx answer must carry (default `json`: a JSON object or array); see ExpectedBody.
   * Anything else is a BadResponseError (exit 1) naming what came back, except a change's answer
   * under `judged` (and any DELETE's), which comes back as it came for the caller to judge.
   */
  expect?: ExpectedBody;
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  data: T;
  text: string;
  /** The body's bytes when they are not UTF-8 (`text` then has U+FFFD in their place). */
  notUtf8?: Buffer;
  requestId: string | undefined;
  /**
   * An earlier attempt of this change lost its answer (see ApiError.lostAnswer): a replayed
   * answer (Idempotent-Replayed) may then be that attempt's own, not an earlier command's.
   */
  afterLostAnswer: boolean;
  /**
   * When the attempt this is the answer to was sent, by the client's clock (`now`): a DELETE's
   * mark is judged against the answer's Date plus the time the request took (delete-answer.ts: a
   * server may stamp Date when the request arrived, review21 F2).
   */
  sentAt?: number;
  /**
   * The idempotency key the request carried (the caller's, or one the client chose): a re-run
   * under it gets the same answer, one-time secret included (svc api names it when its output
   * is lost).
   */
  idempotencyKey?: string;
}

export interface ClientConfig {
  baseUrl: string;
  tenant?: string | undefined;
  /**
   * Turns `tenant` (a slug) into the id X-Tenant-Id carries, once, before the first request that
   * sends the header; requests with `tenant: null` (the lookup itself) do not wait for it.
   */
  resolveTenant?: (client: ApiClient) => Promise<string>;
  org?: string | undefined;
  credentials: CredentialSource;
  userAgent: string;
  env: Env;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  /** Receives --debug trace text; absent means no tracing. */
  debug?: (text: string) => void;
  /**
   * `-p NAME ` when the run's profile was named by -p or SVC_PROFILE (profileFlag), for a hint's
   * `svc config set …` (a redirect's); empty or absent otherwise.
   */
  profileFlag?: string;
  /** Hint printed with "not logged in" errors. */
  loginHint?: string;
  /**
   * How to use another credential, for a 403 whose fix is one ("a profile whose login holds it";
   * with SVC_TOKEN set, which overrides every profile, that token).
   */
  otherCredentialHint?: string;
  /**
   * The fix for a 400 tenant_header_required when the profile has no tenant (which profile, and
   * how to give it one); absent when a tenant is configured.
   */
  missingTenantHint?: string;
  /**
   * The fix for a 403 user_required when the profile's login is one a tenant's own OAuth client
   * gave (auth/login-hint.ts clientLoginHint), read when one is answered; undefined otherwise.
   */
  userRequiredHint?: () => string | undefined;
  now?: () => number;
  /** Waits between attempts (default: real time); rejects when the signal aborts. */
  sleep?: Sleep;
  /** Times each attempt's timeout (default: real time). */
  timer?: Timer;
  random?: () => number;
  dispatcher?: Dispatcher;
  /** No answer is read past this many bytes (default 64 MiB, SVC_MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
  /** Send credentials over plain HTTP to hosts that are not loopback (--allow-insecure-http). */
  allowInsecureHttp?: boolean;
  /**
   * Every secret the process knows (shared with error rendering). The client adds the
   * credentials it sends and the secret-named values it receives.
   */
  secrets?: SecretRegistry;
  /**
   * Told of every change the server accepted (a 2xx answer to a method other than GET, HEAD or
   * OPTIONS): how the CLI knows a command changed something (src/cli.ts, a closed stdout).
   */
  onChange?: (change: {
    method: HttpMethod;
    path: string;
    status: number;
    requestId: string | undefined;
    /** The id of what a 201 created, when its answer names one: a lost output still says it. */
    created: string | undefined;
  }) => void;
  /**
   * Told of a wait before a retry longer than a moment (a 429's or a 503's Retry-After), as a
   * line for stderr; under --debug the trace says it instead.
   */
  onWait?: (note: string) => void;
}

export interface Page<T> {
  items: T[];
  next_cursor?: string | null;
}
