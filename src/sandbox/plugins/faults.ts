import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { ApiProblem } from '../problem.js';
import { errorBodyText } from './shared.js';

/**
 * Fault injection, for testing clients: a share of /v1 requests fails with fail_status (503 by
 * default, service_unavailable; another 5xx is internal_error) + Retry-After
 * or has its connection dropped — either before the handler runs (no side effect) or after it
 * (the side effect happened but the answer is lost: only idempotency keys save the client) —
 * plus added latency and a global rate limit answered with 429.
 */
export interface FaultConfig {
  /** Share of requests, 0 to 1, answered with `fail_status`. */
  fail_rate: number;
  fail_status: number;
  /** Retry-After sent with injected failures and 429s: seconds or an HTTP date; null for none. */
  retry_after: string | null;
  /** Share of requests, 0 to 1, whose connection is dropped without an answer. */
  drop_rate: number;
  latency_ms: number;
  /** Requests per second across the sandbox; 0 turns the limit off. */
  rate_limit: number;
  /** When injected failures strike: before the handler, after it, or either (half each). */
  phase: 'before' | 'after' | 'both';
  /** Seed of the fault dice, for reproducible runs; null for Math.random. */
  seed: number | null;
}

export const NO_FAULTS: FaultConfig = {
  fail_rate: 0,
  fail_status: 503,
  retry_after: '1',
  drop_rate: 0,
  latency_ms: 0,
  rate_limit: 0,
  phase: 'both',
  seed: null,
};

/** mulberry32: a small seeded PRNG. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Arrival {
  method: string;
  url: string;
  /** Resolves once the sandbox has seen the client's connection close (a client that went away). */
  gone: Promise<void>;
}

/** A request `FaultInjector.hold` keeps in flight, where latency is spent, until the test releases it. */
export interface HeldRequest {
  /** Resolves once the request is held (its key registered): its method, its URL, and `gone`. */
  arrived: Promise<Arrival>;
  /** Lets the request go on to its handler; a hold no request reached yet is dropped. */
  release(): void;
}

export class FaultInjector {
  config: FaultConfig;
  #random: () => number = Math.random;
  /** Holds not yet released: waiting for their request, or holding it (`spent`). */
  #holds: Array<{
    matches: (method: string, url: string) => boolean;
    spent: boolean;
    arrive(request: Arrival): void;
    released: Promise<void>;
    release(): void;
  }> = [];
  #tokens = 0;
  readonly #now: () => number;
  /** When the bucket was last refilled (set by update()). */
  #lastRefill = 0;

  /** `now` is the sandbox's clock, so a test that moves it also refills the rate limit's bucket. */
  constructor(config: Partial<FaultConfig>, now: () => number) {
    this.#now = now;
    this.config = { ...NO_FAULTS };
    this.update(config);
  }

  update(change: Partial<FaultConfig>): FaultConfig {
    this.config = { ...this.config, ...change };
    this.#random = this.config.seed === null ? Math.random : seeded(this.config.seed);
    this.#tokens = this.config.rate_limit;
    this.#lastRefill = this.#now();
    return this.config;
  }

  roll(rate: number): boolean {
    return rate > 0 && this.#random() < rate;
  }

  /** Fault before the handler, or after it, per `phase`. */
  before(): boolean {
    return this.config.phase === 'before' || (this.config.phase === 'both' && this.#random() < 0.5);
  }

  /** Token bucket: false when the request is over the limit. */
  take(): boolean {
    const limit = this.config.rate_limit;
    if (limit <= 0) return true;
    const now = this.#now();
    this.#tokens = Math.min(limit, this.#tokens + ((now - this.#lastRefill) / 1000) * limit);
    this.#lastRefill = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /**
   * For in-process tests: holds the next /v1 request `matches` picks (a faultable one, where latency
   * is spent: after authentication and after its idempotency key is registered) until `release()`,
   * so a request stays in flight exactly as long as the test needs, however slow a loaded machine
   * makes either side — never latency that is "usually long enough". One request per hold; the
   * sandbox releases every hold when it closes.
   */
  hold(matches: (method: string, url: string) => boolean = () => true): HeldRequest {
    let arrive!: (request: Arrival) => void;
    let release!: () => void;
    const arrived = new Promise<Arrival>((resolve) => (arrive = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold = { matches, spent: false, arrive, released, release: () => {} };
    hold.release = () => {
      const at = this.#holds.indexOf(hold);
      if (at !== -1) this.#holds.splice(at, 1);
      release();
    };
    this.#holds.push(hold);
    return { arrived, release: hold.release };
  }

  /** Waits while a hold keeps this request; the hold is then spent. */
  async held(method: string, url: string, socket: Socket): Promise<void> {
    const hold = this.#holds.find((h) => !h.spent && h.matches(method, url));
    if (!hold) return;
    hold.spent = true;
    const gone = new Promise<void>((resolve) => {
      if (socket.destroyed) resolve();
      else socket.once('close', () => resolve());
    });
    hold.arrive({ method, url, gone });
    await hold.released;
  }

  /** Lets every held request go on, and drops the holds no request reached. */
  releaseAll(): void {
    for (const hold of this.#holds.splice(0)) hold.release();
  }

  /** Retry-After of injected failures: none when turned off (null), never an empty header. */
  retryHeaders(): Record<string, string> {
    const value = this.config.retry_after?.trim();
    return value ? { 'retry-after': value } : {};
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The code of an injected failure follows its status as x-error-codes pairs them (problem.ts):
 * 503 service_unavailable, any other fail_status internal_error — never a 500 that says 503's code.
 */
export function faultCode(status: number): 'service_unavailable' | 'internal_error' {
  return status === 503 ? 'service_unavailable' : 'internal_error';
}

export function registerFaults(app: FastifyInstance, faults: FaultInjector): void {
  app.addHook('onRequest', async (request, reply) => {
    request.fault = null;
    if (request.routeOptions.config?.faultFree || !request.url.startsWith('/v1/')) return;
    const c = faults.config;
    if (!faults.take()) {
      throw new ApiProblem(
        429,
        'rate_limited',
        `rate limit of ${c.rate_limit} requests per second exceeded`,
        {
          headers: { 'retry-after': c.retry_after?.trim() || '1' },
        },
      );
    }
    if (faults.roll(c.drop_rate)) {
      if (faults.before()) {
        reply.hijack();
        request.raw.socket.destroy();
        return;
      }
      request.fault = 'drop';
    } else if (faults.roll(c.fail_rate)) {
      if (faults.before()) {
        const code = faultCode(c.fail_status);
        throw new ApiProblem(c.fail_status, code, `injected fault: ${code.replace('_', ' ')}`, {
          headers: faults.retryHeaders(),
        });
      }
      request.fault = 'fail';
    }
  });
}

/**
 * Added latency (and a test's hold) is spent as handler time — after authentication and after the idempotency key
 * is registered — like a slow backend.
 */
export function registerLatency(app: FastifyInstance, faults: FaultInjector): void {
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.config?.faultFree || !request.url.startsWith('/v1/')) return;
    await faults.held(request.method, request.url, request.raw.socket);
    const ms = faults.config.latency_ms;
    if (ms > 0) await sleep(ms);
  });
  // A request a test left held must not keep the sandbox from closing.
  app.addHook('preClose', async () => faults.releaseAll());
}

/** Registered after idempotency's onSend, so the real answer is stored before it is lost. */
export function registerLateFaults(app: FastifyInstance, faults: FaultInjector): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.fault === 'drop') {
      request.raw.socket.destroy();
      return payload;
    }
    if (request.fault === 'fail') {
      // What the lost answer was: only a write that succeeded changed anything.
      const changed = WRITES.has(request.method) && reply.statusCode < 300;
      const status = faults.config.fail_status;
      reply.code(status);
      reply.headers(faults.retryHeaders());
      reply.type('application/json; charset=utf-8');
      return errorBodyText(
        request.id,
        faultCode(status),
        `injected fault: ${changed ? 'the change was applied' : 'the request was handled'}, the answer lost`,
      );
    }
    return payload;
  });
}
