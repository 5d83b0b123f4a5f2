import { afterEach } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { passOn, useFront } from './sandbox-front.js';

export interface LossyProxyOptions {
  /**
   * Which requests lose their answer (by default: the first DELETE of each path): true answers
   * 503 (Retry-After: 0) after the sandbox applied the request, `drop` closes the connection
   * without any answer (as a reset does), `hang` never answers (svc's timeout ends the wait), a
   * number answers that status instead of 503 (a 500 after the change, as `--fail-status 500`).
   */
  lose?: (method: string, path: string, seen: number) => boolean | number | 'drop' | 'hang';
  /** Awaited before a request is forwarded: something that happens meanwhile (a login elsewhere). */
  before?: (method: string, path: string) => Promise<void> | void;
  /** Strip Idempotency-Key from DELETEs: a platform that ignores the header. */
  ignoreDeleteKeys?: boolean;
  /**
   * Answer a request itself instead of passing it on (another platform's refusal); undefined: pass
   * it on. A header given as null is not sent: `date: null`, a server that sends no Date.
   */
  refuse?: (
    method: string,
    path: string,
    body: string,
  ) => { status: number; body: unknown; headers?: Record<string, string | null> } | undefined;
  /**
   * Another server's answer to a request the sandbox applied (a 204 with no body, a 202 of another
   * shape): given the sandbox's status, body and headers, what is sent instead (with only the
   * headers it names, and Node's own Date); undefined: the sandbox's.
   */
  reshape?: (
    method: string,
    path: string,
    status: number,
    text: string,
    headers: Record<string, string | string[] | undefined>,
  ) => Reshaped | undefined;
  /** The body passed on in place of the one sent (a platform that keeps no stored answers: a fresh key each time). */
  body?: (method: string, path: string, body: string) => string;
  /** The path (with its query) passed on in place of the one asked: a platform that ignores a parameter. */
  rewrite?: (method: string, path: string) => string;
  /** false: no answer carries a Date header (a server that sends none); asked at each request. */
  sendDate?: () => boolean;
}

/** What `reshape` sends instead of the sandbox's answer: `body` as is (none: an empty body). */
export interface Reshaped {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/** A refusal for `refuse` to answer with: the platform's error shape. */
export const refusal = (status: number, code: string, message = 'refused by the test proxy') => ({
  status,
  body: { error: { code, message } },
});

export interface LossyProxy {
  url: string;
  /** The DELETEs that reached the sandbox, in order, and whether each carried an Idempotency-Key. */
  deletes: Array<{ path: string; key: string | undefined }>;
  /** The requests answered by `refuse`, in order (`METHOD path`). */
  refused: string[];
  /** Start over: every path's next DELETE loses its answer again. */
  reset(): void;
}

/**
 * A proxy in front of a test sandbox that loses answers deterministically: the sandbox applies the
 * request, then the client gets a 503 (Retry-After: 0), as `--fault-phase after` does, but for
 * exactly the requests chosen — by default the first DELETE of each path, so every retry gets
 * through. With `ignoreDeleteKeys` it also plays a platform that ignores Idempotency-Key on DELETE;
 * with `refuse`, one that refuses some requests outright; with `reshape`, one that answers what it
 * did in another shape (attack18b: a 204 to a DELETE, a 202 `{"status":"queued"}` to a replay).
 */
export function useLossyProxy(sandbox: () => Sandbox, options: LossyProxyOptions = {}): () => LossyProxy {
  const seen = new Map<string, number>();
  const lose = options.lose ?? ((method, _path, count) => method === 'DELETE' && count === 1);
  const deletes: LossyProxy['deletes'] = [];
  const refused: string[] = [];
  const url = useFront(async (request, response) => {
    const { method, path, headers } = request;
    const count = (seen.get(`${method} ${path}`) ?? 0) + 1;
    seen.set(`${method} ${path}`, count);
    if (method === 'DELETE' && options.ignoreDeleteKeys) delete headers['idempotency-key'];
    await options.before?.(method, path);
    // Node adds a Date to every answer unless told not to.
    if (options.sendDate?.() === false) response.sendDate = false;
    if (method === 'DELETE') deletes.push({ path, key: headers['idempotency-key'] });
    const refusal = options.refuse?.(method, path, request.body.toString('utf8'));
    if (refusal) {
      refused.push(`${method} ${path}`);
      const sent = Object.entries(refusal.headers ?? {}).filter((h): h is [string, string] => h[1] !== null);
      // Node adds a Date to every answer unless told not to.
      if (refusal.headers?.date === null) response.sendDate = false;
      response.writeHead(refusal.status, { 'content-type': 'application/json', ...Object.fromEntries(sent) });
      response.end(JSON.stringify(refusal.body));
      return;
    }
    const sent = options.body
      ? Buffer.from(options.body(method, path, request.body.toString('utf8')))
      : request.body;
    if (options.body) delete headers['idempotency-key'];
    const upstream = await passOn(sandbox, options.rewrite?.(method, path) ?? path, request, sent);
    const lost = lose(method, path, count);
    if (lost === 'hang') return;
    if (lost === 'drop') {
      response.socket?.destroy();
      return;
    }
    if (lost !== false) {
      response.writeHead(lost === true ? 503 : lost, {
        'content-type': 'application/json',
        'retry-after': '0',
      });
      response.end(
        JSON.stringify({
          error: {
            code: 'service_unavailable',
            message: 'injected fault: the change was applied, the answer lost',
          },
        }),
      );
      return;
    }
    const reshaped = options.reshape?.(method, path, upstream.status, upstream.text, upstream.headers);
    if (reshaped) {
      response.writeHead(reshaped.status, {
        ...(reshaped.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...reshaped.headers,
      });
      response.end(reshaped.body ?? '');
      return;
    }
    const { date, ...undated } = upstream.headers;
    response.writeHead(upstream.status, options.sendDate?.() === false ? undated : upstream.headers);
    response.end(upstream.text);
  });
  return () => ({
    url: url(),
    deletes,
    refused,
    reset() {
      seen.clear();
      deletes.length = 0;
      refused.length = 0;
    },
  });
}

/**
 * A lossy proxy that loses the answers of creations: `lose(path, times)` makes the next `times`
 * POSTs to `path` lose their answer (the sandbox still applies them); every test starts with none.
 */
export function useLostCreations(sandbox: () => Sandbox) {
  const losing = new Map<string, number>();
  const proxy = useLossyProxy(sandbox, {
    lose: (method, path) => {
      const left = losing.get(path) ?? 0;
      if (method !== 'POST' || left === 0) return false;
      losing.set(path, left - 1);
      return true;
    },
  });
  afterEach(() => {
    losing.clear();
    proxy().reset();
  });
  return {
    proxy,
    lose(path: string, times: number) {
      losing.set(path, times);
    },
    /** Every answer gets through again. */
    stop() {
      losing.clear();
    },
  };
}

/** A platform that answers each DELETE it applied 204 with no body (another server's way: attack18b). */
export function useNoContentDeletes(sandbox: () => Sandbox): () => LossyProxy {
  return useLossyProxy(sandbox, {
    lose: () => false,
    reshape: (method, _path, status) => (method === 'DELETE' && status < 300 ? { status: 204 } : undefined),
  });
}

/** A platform that answers each DELETE 200 with an error object, having removed nothing (review18b R3). */
export function useErrorBodyDeletes(sandbox: () => Sandbox): () => LossyProxy {
  return useLossyProxy(sandbox, {
    lose: () => false,
    refuse: (method) =>
      method === 'DELETE'
        ? { status: 200, body: { error: { code: 'busy', message: 'try later' } } }
        : undefined,
  });
}

/** What a write the sandbox did is answered with instead: a status, a body as text, a content type. */
export interface WriteAnswer {
  status: number;
  body: string;
  type?: string;
}

/**
 * A proxy that answers a POST's or PATCH's 2xx, once the sandbox made the change, with `answer`
 * while it is set (a text/plain "OK", a web page, nothing): a write whose answer svc cannot read.
 * `answerWrites(a)` sets it, `answerWrites(undefined)` lets the sandbox's answers through again.
 */
export function useUnreadWrites(sandbox: () => Sandbox) {
  let answer: WriteAnswer | undefined;
  const proxy = useLossyProxy(sandbox, {
    lose: () => false,
    reshape: (method, _path, status) =>
      (method === 'POST' || method === 'PATCH') && status < 300 && answer
        ? {
            status: answer.status,
            body: answer.body,
            headers:
              answer.type === undefined ? {} : ({ 'content-type': answer.type } as Record<string, string>),
          }
        : undefined,
  });
  return {
    proxy,
    answerWrites(next: WriteAnswer | undefined): void {
      answer = next;
    },
  };
}

/** A hold on the next request `useHeldRequests` matches. */
export interface Hold {
  /** Resolves once the matching request has reached the proxy (and is held there). */
  arrived: Promise<void>;
  /** Lets the held request through to the sandbox. */
  release(): void;
  /** Resolves once the released request has been answered by the sandbox (its change made). */
  passed: Promise<void>;
}

/**
 * A proxy in front of the sandbox that holds the next request `matches` picks, once `hold()` is
 * called, until the test releases it (released after each test whatever happens); the requests
 * after it go through: a run kept busy for exactly as long as the test needs, however slow a
 * loaded machine makes the other side — never by latency that is "usually long enough" (s21: a
 * second process started 5 s late found the first, slowed by latency, already done). Only one is
 * held, so a second run that wrongly went ahead is not held too, and fails its test at once.
 */
export function useHeldRequests(sandbox: () => Sandbox, matches: (method: string, path: string) => boolean) {
  let next: { arrive(): void; released: Promise<void>; pass(): void } | undefined;
  const holds: Array<() => void> = [];
  const url = useFront(async (request, response) => {
    const hold = next && matches(request.method, request.path) ? next : undefined;
    if (hold) {
      next = undefined;
      hold.arrive();
      await hold.released;
    }
    const upstream = await passOn(sandbox, request.path, request, request.body);
    hold?.pass();
    response.writeHead(upstream.status, upstream.headers);
    response.end(upstream.text);
  });
  afterEach(() => {
    for (const release of holds.splice(0)) release();
    next = undefined;
  });
  return {
    url,
    hold(): Hold {
      let arrive!: () => void;
      let release!: () => void;
      let pass!: () => void;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      const passed = new Promise<void>((resolve) => (pass = resolve));
      next = { arrive, released, pass };
      holds.push(release);
      return { arrived, release, passed };
    },
  };
}

/**
 * svc's request timeouts (a Clock's `timer`) that end a request the proxy hangs (`lose: … 'hang'`)
 * once it has hung it, and no other: a test of "the first attempt timed out" whose verdict does not
 * depend on the attempts that are answered coming in within --timeout (on a loaded machine a
 * retry answered in 0.6 s timed out too, one more attempt than the test counted). The test's
 * `lose` calls `hang()` as it answers 'hang'; the request timed out is the one in flight, the last
 * to start its timer (one at a time: --concurrency 1, a single verb). Every other timeout fires on
 * the real clock only after `boundMs`, far above need: an upper bound, never the verdict.
 */
export function hangTimer(boundMs = 60_000) {
  const pending: Array<() => void> = [];
  return {
    timer(_ms: number, expire: () => void): () => void {
      pending.push(expire);
      const bound = setTimeout(expire, boundMs);
      bound.unref();
      return () => {
        clearTimeout(bound);
        const at = pending.indexOf(expire);
        if (at >= 0) pending.splice(at, 1);
      };
    },
    /** The request in flight is hung: its timeout fires (in a later turn). */
    hang(): void {
      const expire = pending.pop();
      if (expire) setImmediate(expire);
    },
  };
}
