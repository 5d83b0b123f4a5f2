import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';

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
  /** Answer a request itself instead of passing it on (another platform's refusal); undefined: pass it on. */
  refuse?: (
    method: string,
    path: string,
    body: string,
  ) => { status: number; body: unknown; headers?: Record<string, string> } | undefined;
  /**
   * Another server's answer to a request the sandbox applied (a 204 with no body, a 202 of another
   * shape): given the sandbox's status and body, what is sent instead; undefined: the sandbox's.
   */
  reshape?: (method: string, path: string, status: number, text: string) => Reshaped | undefined;
  /** The body passed on in place of the one sent (a platform that keeps no stored answers: a fresh key each time). */
  body?: (method: string, path: string, body: string) => string;
  /** The path (with its query) passed on in place of the one asked: a platform that ignores a parameter. */
  rewrite?: (method: string, path: string) => string;
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

function bodyOf(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
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
  const server = createServer((request, response) => {
    // The sandbox may be gone when a request a test abandoned reaches it (the file's last test
    // cut its run): the client is gone too, so the socket is closed, never an unhandled rejection.
    forward(request, response).catch(() => request.socket.destroy());
  });
  const forward = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await bodyOf(request);
    const method = request.method ?? 'GET';
    const path = request.url ?? '/';
    const count = (seen.get(`${method} ${path}`) ?? 0) + 1;
    seen.set(`${method} ${path}`, count);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined || ['host', 'connection', 'content-length'].includes(name)) continue;
      if (name === 'idempotency-key' && method === 'DELETE' && options.ignoreDeleteKeys) continue;
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    await options.before?.(method, path);
    if (method === 'DELETE') deletes.push({ path, key: headers['idempotency-key'] });
    const refusal = options.refuse?.(method, path, body.toString('utf8'));
    if (refusal) {
      refused.push(`${method} ${path}`);
      response.writeHead(refusal.status, { 'content-type': 'application/json', ...refusal.headers });
      response.end(JSON.stringify(refusal.body));
      return;
    }
    const sent = options.body ? Buffer.from(options.body(method, path, body.toString('utf8'))) : body;
    if (options.body) delete headers['idempotency-key'];
    const upstream = await fetch(`${sandbox().url}${options.rewrite?.(method, path) ?? path}`, {
      method,
      headers,
      ...(sent.length > 0 ? { body: sent } : {}),
    });
    const text = await upstream.text();
    const lost = lose(method, path, count);
    if (lost === 'hang') return;
    if (lost === 'drop') {
      request.socket.destroy();
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
    const reshaped = options.reshape?.(method, path, upstream.status, text);
    if (reshaped) {
      response.writeHead(reshaped.status, {
        ...(reshaped.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...reshaped.headers,
      });
      response.end(reshaped.body ?? '');
      return;
    }
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
        out[name] = value;
    });
    response.writeHead(upstream.status, out);
    response.end(text);
  };
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return () => ({
    url,
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
