import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach } from 'vitest';

/**
 * A hostile (or merely broken) API server for tests: a tiny node:http server whose answer to
 * every request is chosen by the test. It records what it received — method, URL, headers,
 * body — so a test can also assert what svc sent (a token that must not go elsewhere, a retry
 * that must not happen) and how many bytes of a huge answer it actually served.
 */

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** The headers as sent, names and values in turn (a `__proto__` header is only seen here). */
  rawHeaders: string[];
  body: string;
}

export type Answer = (req: IncomingMessage, res: ServerResponse, received: Received, hit: number) => void;

export interface HostileServer {
  url: string;
  seen: Received[];
  /** Bytes written by `streamed` answers since this server started (one server at a time per file). */
  bytesServed: () => number;
  /** Replaces the answer for the requests that follow. */
  answer(next: Answer): void;
  close(): Promise<void>;
}

let bytesServed = 0;

export async function hostileServer(
  initial: Answer = answers.json(200, {}),
  options: { host?: string } = {},
): Promise<HostileServer> {
  let answer = initial;
  const seen: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body,
      };
      seen.push(received);
      answer(req, res, received, seen.length);
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${(server.address() as AddressInfo).port}`;
  bytesServed = 0;
  return {
    url,
    seen,
    bytesServed: () => bytesServed,
    answer(next) {
      answer = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A hostile server per test (closed after each), or per file with `{ perFile: true }`. */
export function useHostileServer(
  options: { perFile?: boolean } = {},
): (listen?: { host?: string }) => Promise<HostileServer> {
  const open: HostileServer[] = [];
  const closeAll = async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  };
  if (options.perFile) afterAll(closeAll);
  else afterEach(closeAll);
  return async (listen = {}) => {
    const server = await hostileServer(undefined, listen);
    open.push(server);
    return server;
  };
}

/** Ready-made answers. */
export const answers = {
  json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
    return (_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
  },
  /** A body sent exactly as given, with the given content type (or none). */
  raw(status: number, body: string, contentType?: string, headers: Record<string, string> = {}): Answer {
    return (_req, res) => {
      res.writeHead(status, { ...(contentType ? { 'content-type': contentType } : {}), ...headers });
      res.end(body);
    };
  },
  redirect(status: number, location: string): Answer {
    return (_req, res) => {
      res.writeHead(status, { location, 'content-type': 'text/html' });
      res.end(`<a href="${location}">moved</a>`);
    };
  },
  /** Promises more bytes than it sends, then closes the connection mid-body. */
  cutOff(status: number, body: string, promised: number): Answer {
    return (_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(promised) });
      res.write(body);
      setTimeout(() => res.socket?.destroy(), 20);
    };
  },
  /**
   * A JSON-looking answer of `bytes` bytes, streamed in 64 KiB chunks without a Content-Length
   * (so only a byte counter can stop it), with back-pressure: a client that stops reading stops
   * the stream, and `bytesServed` tells how far it got.
   */
  streamed(status: number, bytes: number, options: { contentLength?: boolean } = {}): Answer {
    return (_req, res) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        ...(options.contentLength ? { 'content-length': String(bytes) } : {}),
      });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let left = bytes;
      const pump = () => {
        while (left > 0) {
          const size = Math.min(chunk.length, left);
          left -= size;
          bytesServed += size;
          if (!res.write(size === chunk.length ? chunk : chunk.subarray(0, size))) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => {
        left = 0;
      });
      pump();
    };
  },
};

/** A tenant id for calls to a hostile server (it checks none). */
export const HOSTILE_TENANT = '00000000-0000-4000-8000-000000000001';

/** The environment that points svc at `server` with a token and a tenant (`extra` on top). */
export function hostileEnv(
  server: { url: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    SVC_BASE_URL: server.url,
    SVC_TOKEN: 'test-token',
    SVC_TENANT: HOSTILE_TENANT,
    NO_COLOR: '1',
    ...extra,
  };
}
