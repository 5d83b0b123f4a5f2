import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

/** One request as a target received it: the raw body bytes and the headers. */
export interface Received {
  at: number;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface Target {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A target's answer: its status and body, sent after `delayMs` and once `until` has settled. */
export interface Answer {
  status: number;
  body?: string;
  delayMs?: number;
  /** The answer waits for this (a gate()'s): a request in flight for as long as a test needs it. */
  until?: PromiseLike<unknown>;
}

/**
 * Answers held back until the test opens the gate (`until` in an Answer): a delivery in flight
 * while a run is cut, without a fixed delay that has to outlast the cut on a loaded machine.
 */
export function gate(): { until: Promise<void>; open(): void } {
  let open = () => {};
  const until = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { until, open };
}

/**
 * A real local HTTP target for webhook deliveries. `answer` decides each response from the
 * request number (1-based) and the request; returning 'hang' never answers, 'stall' sends a 200
 * head and part of a body, then never finishes.
 */
export async function startTarget(
  answer: (n: number, request: Received) => Answer | 'hang' | 'stall',
): Promise<Target> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        at: Date.now(),
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(request);
      const reply = answer(received.length, request);
      if (reply === 'hang' || reply === 'stall') {
        if (reply === 'stall') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('part');
        }
        hanging.push(res);
        return;
      }
      const send = () => {
        res.writeHead(reply.status, { 'content-type': 'text/plain' });
        res.end(reply.body ?? '');
      };
      const after = () => (reply.delayMs ? setTimeout(send, reply.delayMs) : send());
      // No gate: at once (a resolved promise would still put the answer off by a turn).
      if (reply.until === undefined) after();
      else void Promise.resolve(reply.until).then(after);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const target: Target = {
    url,
    received,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  afterAll(() => target.close());
  return target;
}
