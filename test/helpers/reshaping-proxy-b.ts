import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';

/**
 * Another reasonable server of the API, played by a proxy in front of a test sandbox: every
 * request is passed on, and `reshape` may change the JSON answer (drop a field a reference leaves
 * "not shown", page a list another way, word a status differently) before svc reads it. The sandbox
 * still does the work, so a test can check the real state afterwards through `sandbox().url`.
 */
export interface Exchange {
  method: string;
  /** The path with its query, as svc sent it. */
  path: string;
  status: number;
  /** The answer's JSON body (undefined when it had none or was not JSON); `reshape` may change it in place. */
  body: unknown;
  /** Headers to add to the answer. */
  headers: Record<string, string>;
}

export type Reshape = (exchange: Exchange) => void;

export interface ReshapingProxy {
  url: string;
  /** The requests svc sent through it (`METHOD path`), in order. */
  seen: string[];
  /** Replaces the reshaping for the requests that follow (none after each test). */
  reshape(next: Reshape | undefined): void;
  /** The path passed on in place of the one asked (a server that pages with its own parameters). */
  rewrite(next: ((method: string, path: string) => string) | undefined): void;
}

function bodyOf(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export function useReshapingProxy(sandbox: () => Sandbox): () => ReshapingProxy {
  let reshape: Reshape | undefined;
  let rewrite: ((method: string, path: string) => string) | undefined;
  const seen: string[] = [];
  const server = createServer((request, response) => {
    (async () => {
      const body = await bodyOf(request);
      const method = request.method ?? 'GET';
      const path = request.url ?? '/';
      seen.push(`${method} ${path}`);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (value === undefined || ['host', 'connection', 'content-length'].includes(name)) continue;
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const upstream = await fetch(`${sandbox().url}${rewrite?.(method, path) ?? path}`, {
        method,
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      const text = await upstream.text();
      const out: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
          out[name] = value;
      });
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (reshape && json !== undefined) {
        const exchange: Exchange = { method, path, status: upstream.status, body: json, headers: {} };
        reshape(exchange);
        response.writeHead(exchange.status, { ...out, ...exchange.headers });
        response.end(JSON.stringify(exchange.body));
        return;
      }
      response.writeHead(upstream.status, out);
      response.end(text);
    })().catch(() => request.socket.destroy());
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    reshape = undefined;
    rewrite = undefined;
    seen.length = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return () => ({
    url,
    seen,
    reshape(next) {
      reshape = next;
    },
    rewrite(next) {
      rewrite = next;
    },
  });
}

/** Keeps only `fields` of an object (the reference's minimum of a record). */
export function keepOnly(record: unknown, fields: readonly string[]): void {
  if (record === null || typeof record !== 'object') return;
  for (const key of Object.keys(record)) {
    if (!fields.includes(key)) delete (record as Record<string, unknown>)[key];
  }
}
