import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { canonicalJson } from '../../api/canonical-json.js';
import { characters } from '../../api/characters.js';
import { IdempotencyKey } from '../../api/schemas/common.js';
import type { SandboxClock } from '../clock.js';
import { ApiProblem } from '../problem.js';
import type { Principal } from '../types.js';

interface StoredResponse {
  fingerprint: string;
  state: 'in_flight' | 'done';
  status: number;
  body: string;
  contentType: string;
  expiresAtMs: number;
}

const RETENTION_MS = 24 * 3600 * 1000;

/**
 * Idempotency for every POST (except those whose route opts out), and for a DELETE, PATCH or PUT
 * that sends an Idempotency-Key header (optional: the reference is silent on them; a client that
 * retries a revoke whose answer was lost must not be told "not found" for its own change). A
 * POST's key travels in the JSON body (`idempotency_key`, as the reference says); an
 * Idempotency-Key header, when sent too, must carry the same value. Keys are scoped to the
 * principal (the user or API key, and the OAuth client it acts through), the tenant and the
 * operation, and kept 24 hours on the sandbox clock. The same key and body → the stored response, marked `Idempotent-Replayed: true` — a
 * one-time secret included, since only the principal that created it can replay it, so a lost
 * answer never loses a secret; the same key with another body or path → 409
 * idempotency_key_reused; a duplicate while the first still runs → 409
 * idempotency_request_in_progress; no key → 400 idempotency_key_required. Only requests that
 * reached their handler are remembered (not ones refused by authentication or validation; a refusal
 * the handler makes, such as a webhook's channel rule, is stored and replayed like a success), and
 * 5xx and 429 answers are not stored, so a retry runs again. An answer is stored when it is
 * sent, before a fault or a departed client can lose it.
 */
export class IdempotencyStore {
  readonly #entries = new Map<string, StoredResponse>();
  readonly #clock: SandboxClock;
  #writes = 0;

  constructor(clock: SandboxClock) {
    this.#clock = clock;
  }

  get(scope: string): StoredResponse | undefined {
    const entry = this.#entries.get(scope);
    if (entry && entry.expiresAtMs <= this.#clock.now()) {
      this.#entries.delete(scope);
      return undefined;
    }
    return entry;
  }

  begin(scope: string, fingerprint: string): void {
    this.#entries.set(scope, {
      fingerprint,
      state: 'in_flight',
      status: 0,
      body: '',
      contentType: '',
      expiresAtMs: this.#clock.now() + RETENTION_MS,
    });
    if (++this.#writes % 10_000 === 0) this.#prune();
  }

  finish(scope: string, status: number, body: string, contentType: string): void {
    const entry = this.#entries.get(scope);
    if (!entry) return;
    if (status >= 500 || status === 429) {
      this.#entries.delete(scope);
      return;
    }
    Object.assign(entry, { state: 'done', status, body, contentType });
  }

  abandon(scope: string): void {
    if (this.#entries.get(scope)?.state === 'in_flight') this.#entries.delete(scope);
  }

  #prune(): void {
    const now = this.#clock.now();
    for (const [scope, entry] of this.#entries) if (entry.expiresAtMs <= now) this.#entries.delete(scope);
  }
}

/** Who the key belongs to: a user through one client (or none), or one API key. */
function principalKey(principal: Principal | null): string {
  if (!principal) return 'anonymous';
  return principal.user
    ? `user:${principal.subject}:${principal.clientId ?? '-'}`
    : `key:${principal.subject}`;
}

function keyOf(body: unknown): string | undefined {
  const value =
    body && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>).idempotency_key
      : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** The longest idempotency key, in the body or the header (the schema's bound). */
const KEY_MAX = IdempotencyKey.maxLength!;
const KEY_TYPE_MESSAGE = `idempotency_key must be a string (1 to ${KEY_MAX} characters)`;

/** Other changes (DELETE, PATCH, PUT) take a key only as an optional Idempotency-Key header. */
const KEYED_BY_HEADER = new Set(['DELETE', 'PATCH', 'PUT']);

function headerKey(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  return typeof value === 'string' ? value : undefined;
}

/** The request's key: a POST's body member, another change's header; undefined when it has none. */
function requestKey(request: FastifyRequest): string | undefined {
  return request.method === 'POST' ? keyOf(request.body) : headerKey(request);
}

export function registerIdempotency(app: FastifyInstance, store: IdempotencyStore): void {
  app.decorateRequest('idempotency', null);
  const applies = (request: FastifyRequest) =>
    (request.method === 'POST' ||
      (KEYED_BY_HEADER.has(request.method) && headerKey(request) !== undefined)) &&
    request.url.startsWith('/v1/') &&
    request.routeOptions.config?.idempotent !== false;

  // Before validation, so a missing key is named as such rather than as a schema error.
  app.addHook('preValidation', async (request) => {
    request.idempotency = null;
    if (!applies(request)) return;
    if (request.method !== 'POST') {
      const key = headerKey(request)!;
      if (key.trim() === '' || characters(key) > KEY_MAX)
        throw new ApiProblem(400, 'invalid_request', `Idempotency-Key must be 1 to ${KEY_MAX} characters`);
      return;
    }
    const body = request.body;
    // A body that is not an object, or a key that is not a string, is named as such: it was sent.
    if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body)))
      throw new ApiProblem(400, 'invalid_request', 'the body must be a JSON object');
    const sent = (body as Record<string, unknown> | undefined)?.idempotency_key;
    if (sent !== undefined && typeof sent !== 'string') {
      throw new ApiProblem(400, 'invalid_request', KEY_TYPE_MESSAGE, {
        details: [{ field: 'idempotency_key', message: 'must be a string' }],
      });
    }
    const key = sent;
    if (key === undefined || key.trim() === '') {
      throw new ApiProblem(
        400,
        'idempotency_key_required',
        'every POST needs an idempotency_key in its JSON body',
        {
          details: [{ field: 'idempotency_key', message: 'is required' }],
        },
      );
    }
    if (characters(key) > KEY_MAX)
      throw new ApiProblem(400, 'invalid_request', `idempotency_key is longer than ${KEY_MAX} characters`);
    const fromHeader = headerKey(request);
    if (fromHeader !== undefined && key !== fromHeader) {
      throw new ApiProblem(
        400,
        'invalid_request',
        'idempotency_key in the body and the Idempotency-Key header differ',
      );
    }
  });

  // After validation: only a request about to run is remembered.
  app.addHook('preHandler', async (request, reply) => {
    if (!applies(request)) return;
    const key = requestKey(request)!;
    const operation = request.routeOptions.config?.operation ?? request.routeOptions.url ?? '';
    const scope = `${principalKey(request.principal)}|${request.tenant?.id ?? '-'}|${operation}|${key}`;
    const body = request.body;
    let rest: unknown = body;
    if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
      const { idempotency_key: _key, ...others } = body as Record<string, unknown>;
      rest = others;
    }
    const fingerprint = createHash('sha256')
      .update(`${request.method} ${request.url.split('?')[0]}\n${canonicalJson(rest)}`)
      .digest('hex');
    const existing = store.get(scope);
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        throw new ApiProblem(
          409,
          'idempotency_key_reused',
          `idempotency key ${JSON.stringify(key)} was already used with different parameters`,
        );
      }
      if (existing.state === 'in_flight') {
        throw new ApiProblem(
          409,
          'idempotency_request_in_progress',
          `a request with idempotency key ${JSON.stringify(key)} is still in progress`,
        );
      }
      return reply
        .code(existing.status)
        .header('idempotent-replayed', 'true')
        .type(existing.contentType)
        .send(existing.body);
    }
    store.begin(scope, fingerprint);
    request.idempotency = { scope, fingerprint };
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.idempotency) {
      const contentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
      store.finish(
        request.idempotency.scope,
        reply.statusCode,
        typeof payload === 'string' ? payload : '',
        contentType,
      );
    }
    return payload;
  });
  // A client that goes away does not stop the handler, whose answer onSend stores for the retry;
  // this only clears an entry that no answer ever finished (it would block its key for a day).
  app.addHook('onResponse', async (request) => {
    if (request.idempotency) store.abandon(request.idempotency.scope);
  });
}
