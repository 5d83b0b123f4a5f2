// An http proxy that accepts the connection and closes it on CONNECT (a misconfigured proxy, a
// plain web server named as one) made svc open new connections to it in a tight loop, for ever:
// ~200 a second, past --timeout, the retries and SIGTERM (exploratory test s12, contract12 #1).
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/errors.js';
import type { Timer } from '../../src/system/clock.js';
import { client, REMOTE, useLocalServers } from '../helpers/proxy-kit.js';

const local = useLocalServers();

/** A proxy that closes each connection: at once (`accept`), or on the CONNECT request (`http`); or never answers (`mute`). */
async function closingProxy(kind: 'accept' | 'http' | 'mute') {
  let connections = 0;
  // The mute proxy's `timer` (a client's) runs out once a CONNECT has arrived, not on the clock.
  let expire = () => {};
  const timer: Timer = (_ms, fire) => {
    expire = fire;
    return () => {
      expire = () => {};
    };
  };
  const mute = (socket: Socket) => {
    local.track(socket);
    socket.once('data', () => setImmediate(expire));
  };
  const server: Server =
    kind !== 'http'
      ? createServer((socket) => (kind === 'accept' ? socket.destroy() : mute(socket)))
      : // A plain web server: without a 'connect' listener Node closes a CONNECT request's socket.
        (createHttpServer((_req, res) => res.end('x')) as unknown as Server);
  // After 20 connections it stops listening (a refused dial ends any loop), so the test fails rather than hangs.
  server.on('connection', () => {
    if (++connections === 20) server.close();
  });
  const port = await local.listen(server);
  return { url: `http://127.0.0.1:${port}`, port, connections: () => connections, timer };
}

describe('ApiClient behind an http proxy that closes the connection', () => {
  it.each(['accept', 'http'] as const)(
    'proxy closes on %s: at most retries+1 connections, then one error naming the proxy, exit 1',
    async (kind) => {
      const proxy = await closingProxy(kind);
      const api = client(`http://${REMOTE}:8080`, {
        env: { HTTP_PROXY: proxy.url },
        allowInsecureHttp: true,
        retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 },
      });
      const error = await api.get('/v1/tenants').catch((e) => e);
      await api.close();
      expect(proxy.connections()).toBeLessThanOrEqual(3);
      expect(proxy.connections()).toBeGreaterThanOrEqual(1);
      expect(exitCodeFor(error)).toBe(1);
      expect([error.message, error.hint, error.mayHaveArrived]).toEqual([
        `the proxy http://127.0.0.1:${proxy.port} (HTTP_PROXY) closed the connection without answering, for http://${REMOTE}:8080`,
        'check that HTTP_PROXY names an HTTP proxy that accepts CONNECT, or NO_PROXY',
        false,
      ]);
    },
  );

  it.each(['timeout', 'Ctrl-C'] as const)(
    'a proxy that never answers: the %s ends the request, one connection, and svc says which',
    async (how) => {
      const proxy = await closingProxy('mute');
      const controller = new AbortController();
      const api = client(`http://${REMOTE}:8080`, {
        env: { HTTP_PROXY: proxy.url },
        allowInsecureHttp: true,
        ...(how === 'timeout' ? { timeoutMs: 100, timer: proxy.timer } : { signal: controller.signal }),
      });
      const pending = api.get('/v1/tenants').catch((e) => e);
      if (how === 'Ctrl-C') {
        while (proxy.connections() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        controller.abort();
      }
      const error = await pending;
      await api.close();
      expect([proxy.connections(), exitCodeFor(error)]).toEqual([1, how === 'timeout' ? 1 : 130]);
      expect(error.message).toBe(
        how === 'timeout'
          ? `the proxy ${proxy.url} (HTTP_PROXY) did not answer svc's request for a tunnel to ${REMOTE}:8080 within 0.1 s`
          : 'interrupted; the request was cancelled',
      );
    },
  );
});
