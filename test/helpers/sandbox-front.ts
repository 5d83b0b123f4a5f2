/**
 * What the two servers tests put in front of a sandbox share (lossy-proxy.ts: answers lost or
 * refused; reshaping-proxy.ts: answers in another server's shape): reading a request, passing it on
 * to the sandbox without its hop-by-hop headers, and a loopback server that lives for the file.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';

/** One request as received: its method, path (with query), headers (hop-by-hop ones left out) and body. */
export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** The sandbox's answer, headers without the ones this server sets itself. */
export interface Upstream {
  status: number;
  headers: Record<string, string>;
  text: string;
}

const HOP_IN = ['host', 'connection', 'content-length'];
const HOP_OUT = ['content-length', 'content-encoding', 'transfer-encoding', 'connection'];

async function received(request: IncomingMessage): Promise<Received> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_IN.includes(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { method: request.method ?? 'GET', path: request.url ?? '/', headers, body: Buffer.concat(chunks) };
}

/** Sends a request on to the sandbox (at `path`, with `body`) and reads its whole answer. */
export async function passOn(
  sandbox: () => Sandbox,
  path: string,
  { method, headers }: Pick<Received, 'method' | 'headers'>,
  body: Buffer,
): Promise<Upstream> {
  const upstream = await fetch(`${sandbox().url}${path}`, {
    method,
    headers,
    ...(body.length > 0 ? { body } : {}),
  });
  const out: Record<string, string> = {};
  upstream.headers.forEach((value, name) => {
    if (!HOP_OUT.includes(name)) out[name] = value;
  });
  return { status: upstream.status, headers: out, text: await upstream.text() };
}

/**
 * A loopback server for the test file that hands each request, read whole, to `handle`; its URL
 * once listening. The sandbox may be gone when a request a test abandoned reaches it (the file's
 * last test cut its run): the client is gone too, so the socket is closed, never an unhandled rejection.
 */
export function useFront(
  handle: (request: Received, response: ServerResponse) => Promise<void>,
): () => string {
  const server = createServer((request, response) => {
    received(request)
      .then((r) => handle(r, response))
      .catch(() => request.socket.destroy());
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return () => url;
}

/**
 * Passes one request on to `target` (the sandbox's URL) as it streams, and its answer back as it
 * streams: the body of a plain forwarder a test puts in front of the sandbox. `answered` may act
 * as the answer comes (close the forwarder) and give headers of its own to add.
 */
export function pipeOn(
  target: string,
  req: IncomingMessage,
  res: ServerResponse,
  answered?: (answer: IncomingMessage) => Record<string, string> | undefined,
): void {
  const { hostname, port } = new URL(target);
  const out = httpRequest(
    { host: hostname, port, path: req.url, method: req.method, headers: req.headers },
    (answer) => {
      const extra = answered?.(answer);
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...extra });
      answer.pipe(res);
    },
  );
  req.pipe(out);
}
