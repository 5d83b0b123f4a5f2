import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { SandboxClock } from '../clock.js';
import { ApiProblem } from '../problem.js';

interface StoredResponse {
  fingerprint: string;
  state: 'in_flight' | 'done';
  status: number;
  body: string;
  contentType: string;
  expiresAtMs: number;
}

const RETENTION_MS = 24 * 3600 * 1000;

/** JSON with object keys sorted, so equal bodies have equal fingerprints. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Idempotency for every POST (except those whose route opts out). The key travels in the JSON
 * body (`idempotency_key`, as the reference says); an Idempotency-Key header, when sent too,
 * must carry the same value. The same key and body → the
 * stored response, marked `Idempotent-Replayed: true`; the same key with another body or path →
 * 409 idempotency_key_reused; a duplicate while the first still runs → 409
 * idempotency_request_in_progress; no key → 400 idempotency_key_required. Keys are scoped to
 * the caller and tenant and kept 24 hours. 5xx and 429 answers are not stored, so a retry runs
 * again.
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

export function registerIdempotency(app: FastifyInstance, store: IdempotencyStore): void {
  app.decorateRequest('idempotency', null);
  app.addHook('preValidation', async (request, reply) => {
    request.idempotency = null;
    if (request.method !== 'POST' || !request.url.startsWith('/v1/')) return;
    if (request.routeOptions.config?.idempotent === false) return;
    const body = request.body;
    const fromBody =
      body && typeof body === 'object' && !Array.isArray(body)
        ? (body as Record<string, unknown>).idempotency_key
        : undefined;
    const fromHeader = request.headers['idempotency-key'];
    const key = typeof fromBody === 'string' ? fromBody : undefined;
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
    if (key.length > 255)
      throw new ApiProblem(400, 'invalid_request', 'idempotency_key is longer than 255 characters');
    if (typeof fromHeader === 'string' && fromBody !== fromHeader) {
      throw new ApiProblem(
        400,
        'invalid_request',
        'idempotency_key in the body and the Idempotency-Key header differ',
      );
    }
    const scope = `${request.principal?.subject ?? 'anonymous'}|${request.tenant?.id ?? '-'}|${key}`;
    const rest = body && typeof body === 'object' ? { ...(body as Record<string, unknown>) } : body;
    if (rest && typeof rest === 'object') delete (rest as Record<string, unknown>).idempotency_key;
    const fingerprint = createHash('sha256')
      .update(`${request.method} ${request.url.split('?')[0]}\n${canonical(rest)}`)
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
  app.addHook('onResponse', async (request) => {
    if (request.idempotency) store.abandon(request.idempotency.scope);
  });
  app.addHook('onRequestAbort', async (request) => {
    if (request.idempotency) store.abandon(request.idempotency.scope);
  });
}
