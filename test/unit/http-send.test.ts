// One HTTP exchange (src/http/send.ts) and the edges of the retry rules (src/http/retry.ts):
// which failure is which, in words, and where each rule stops.
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { proxySettings } from '../../src/http/proxy.js';
import { ResponseTooLargeError } from '../../src/http/response.js';
import {
  DEFAULT_RETRY_POLICY,
  IN_FLIGHT_WAIT,
  inFlightDelayMs,
  isRetryableStatus,
  parseRetryAfter,
} from '../../src/http/retry.js';
import { exchange } from '../../src/http/send.js';
import { ProxyRouter } from '../../src/http/undici.js';
import type { Timer } from '../../src/system/clock.js';

const servers: Server[] = [];
const agent = new Agent();
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise((r) => {
          s.closeAllConnections();
          s.close(r);
        }),
    ),
  );
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<URL> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`);
}

const options = { timeoutMs: 5_000, maxBytes: 1024, signal: undefined };

/** A timer that runs out when the test says (`expire`), not after its time. */
function manualTimer() {
  let fire = () => {};
  return {
    timer: ((_ms: number, expire: () => void) => {
      fire = expire;
      return () => {
        fire = () => {};
      };
    }) as Timer,
    expire: () => fire(),
  };
}
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('the exchange succeeded');
    },
    (e: Error & { hint?: string }) => ({ type: e.constructor.name, message: e.message, hint: e.hint }),
  );

describe('exchange', () => {
  it('returns status, status text, headers and text', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(418, { 'x-a': 'b' });
      res.end('short and stout');
    });
    const outcome = await exchange(agent, 'GET', url, {}, undefined, options);
    expect([outcome.status, outcome.statusText, outcome.headers['x-a'], outcome.text]).toEqual([
      418,
      "I'm a Teapot",
      'b',
      'short and stout',
    ]);
  });

  it('a header undici will not send: svc\'s own bug, nothing sent, never "cannot reach" (attack24c F1)', async () => {
    let asked = 0;
    const url = await serve((_req, res) => {
      asked++;
      res.end();
    });
    const error = await exchange(agent, 'GET', url, { 'x-a': 'b\u0007c' }, undefined, options).then(
      () => undefined,
      (e: Error & { hint?: string; code?: string; mayHaveArrived?: boolean; retryable?: boolean }) => e,
    );
    expect([error?.constructor.name, error?.code, error?.mayHaveArrived, error?.retryable]).toEqual([
      'ConnectionError',
      'invalid_request',
      false,
      false,
    ]);
    expect(error?.message).toMatch(
      new RegExp(`^svc could not make its request to ${url.origin}: invalid x-a header`),
    );
    expect(error?.hint).toBe(
      'nothing was sent; this is a bug in svc, please report it (run with --debug for details)',
    );
    expect(asked).toBe(0);
  });

  it('an unknown status has an empty status text', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(599);
      res.end();
    });
    expect((await exchange(agent, 'GET', url, {}, undefined, options)).statusText).toBe('');
  });

  it('reads an answer of exactly the cap; one byte more, announced or not, is too large', async () => {
    const url = await serve((req, res) => {
      const size = Number(new URL(req.url ?? '', 'http://x').searchParams.get('n'));
      if (req.headers['x-chunked']) {
        res.write('a'.repeat(size - 1));
        res.end('a');
      } else res.end('a'.repeat(size));
    });
    const at = (n: number) => new URL(`${url.href}?n=${n}`);
    expect((await exchange(agent, 'GET', at(1024), {}, undefined, options)).text).toHaveLength(1024);
    expect(await failure(exchange(agent, 'GET', at(1025), {}, undefined, options))).toEqual({
      type: 'ResponseTooLargeError',
      message: 'the answer to GET /v1/x is larger than 1 KiB; svc stopped reading it',
      hint: 'raise the limit with SVC_MAX_RESPONSE_BYTES (in bytes) if this answer is expected to be that large',
    });
    await expect(
      exchange(agent, 'GET', at(1025), { 'x-chunked': '1' }, undefined, options),
    ).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it('no answer in time: a timeout naming the origin and the limit', async () => {
    // The time runs out once the server has the request (a timer of the test's, not a race).
    const timer = manualTimer();
    const url = await serve(() => timer.expire());
    expect(
      await failure(
        exchange(agent, 'GET', url, {}, undefined, { ...options, timeoutMs: 150, timer: timer.timer }),
      ),
    ).toEqual({
      type: 'ConnectionTimeoutError',
      message: `no answer from ${url.origin} within 0.15 s`,
      hint: 'check the server, or raise the limit with --timeout',
    });
  });

  it.each([1, 2])(
    'a request that waited for a free connection of svc\'s own (%i): said so, not "could not connect" (review24c L1)',
    async (connections) => {
      // Every connection held by a request the server never answers; one more waits in svc's
      // pool, and its time runs out (the test's timer) once it is queued there.
      let got = 0;
      let all: () => void = () => {};
      const arrived = new Promise<void>((resolve) => {
        all = resolve;
      });
      const url = await serve(() => {
        if (++got === connections) all();
      });
      const router = new ProxyRouter(proxySettings({}), { connections });
      const hanging = Array.from({ length: connections }, () =>
        exchange(router, 'POST', url, {}, 'one', options).catch((e: unknown) => e),
      );
      await arrived;
      const timer = manualTimer();
      const waiting = failure(
        exchange(router, 'POST', url, {}, 'two', { ...options, timeoutMs: 300, timer: timer.timer }),
      );
      setImmediate(() => timer.expire());
      expect(await waiting).toEqual({
        type: 'ConnectionTimeoutError',
        message: `the request to ${url.origin} was not sent within 0.3 s: it waited for a free connection (svc had ${connections} open to it, all busy)`,
        hint: 'nothing was sent; the server was slow to answer the requests before it: raise the limit with --timeout, or send fewer at once (--concurrency)',
      });
      await router.destroy();
      await Promise.all(hanging);
    },
  );

  it('an answer whose body does not finish in time: its status said, not "no answer"', async () => {
    const timer = manualTimer();
    const url = await serve((_req, res) => {
      res.writeHead(201, { 'content-length': '100' });
      res.write('x'.repeat(10));
    });
    // The time runs out once undici has handed the answer's headers over: exchange takes them in
    // microtasks, before this macrotask.
    const watching = Object.create(agent, {
      dispatch: {
        value: (opts: Parameters<Agent['dispatch']>[0], handler: Parameters<Agent['dispatch']>[1]) => {
          const own = handler as { onHeaders?: (...args: unknown[]) => unknown };
          const onHeaders = own.onHeaders;
          own.onHeaders = function (this: unknown, ...args: unknown[]) {
            setImmediate(timer.expire);
            return onHeaders?.apply(this, args);
          };
          return agent.dispatch(opts, handler);
        },
      },
    }) as Agent;
    expect(
      await failure(
        exchange(watching, 'POST', url, {}, '{}', { ...options, timeoutMs: 2000, timer: timer.timer }),
      ),
    ).toEqual({
      type: 'ConnectionTimeoutError',
      message: `the answer from ${url.origin} (HTTP 201) did not finish within 2 s`,
      hint: 'check the server or the proxy between, or raise the limit with --timeout',
    });
  });

  it('Ctrl-C before or during the exchange: interrupted', async () => {
    const url = await serve(() => {});
    const stopped = new AbortController();
    stopped.abort();
    expect(
      await failure(exchange(agent, 'GET', url, {}, undefined, { ...options, signal: stopped.signal })),
    ).toEqual({
      type: 'InterruptedError',
      message: 'interrupted; the request was cancelled',
      hint: undefined,
    });
    const later = new AbortController();
    const pending = exchange(agent, 'GET', url, {}, undefined, { ...options, signal: later.signal });
    setTimeout(() => later.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(InterruptedError);
  });

  it('nothing listening: cannot reach, with the reason and its code once', async () => {
    const url = await serve(() => {});
    const closed = new URL(url.href);
    const server = servers.pop()!;
    await new Promise((r) => server.close(r));
    const error = await failure(exchange(agent, 'GET', closed, {}, undefined, options));
    expect(error.type).toBe('ConnectionError');
    expect(error.message).toBe(`cannot reach ${closed.origin}: connect ECONNREFUSED ${closed.host}`);
    expect(error.hint).toBe('is the server running? check --base-url and your network or proxy settings');
  });

  it('an answer cut off after its headers says how much came', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('x'.repeat(10));
      setTimeout(() => res.destroy(), 20);
    });
    const error = await failure(exchange(agent, 'GET', url, {}, undefined, options));
    expect(error.type).toBe('ConnectionError');
    expect(error.message).toMatch(
      new RegExp(`^the answer from ${url.origin.replace(/\./g, '\\.')} was cut off after 10 bytes: .+`),
    );
    expect(error.hint).toBe('try again; if it keeps happening, check the server or the proxy between');
  });

  it('a signal given and never used leaves no listener behind', async () => {
    const url = await serve((_req, res) => res.end('{}'));
    const signal = new AbortController().signal;
    await exchange(agent, 'GET', url, {}, undefined, { ...options, signal });
    await exchange(agent, 'GET', url, {}, undefined, { ...options, signal });
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

describe('retry rules', () => {
  it.each([
    ['get', 500, true],
    ['options', 500, true],
    ['head', 500, true],
    ['put', 500, false],
    ['delete', 408, true],
    ['GET', 499, false],
  ])('isRetryableStatus(%s, %i) is %s', (method, status, retried) => {
    expect(isRetryableStatus(method, status)).toBe(retried);
  });

  it.each([
    [' 7 ', 7000],
    ['7s', undefined],
    ['12 13', undefined],
    ['Thu, 01 Jan 2026 00:00:10 GMT', 10_000],
    ['  Thu, 01 Jan 2026 00:00:10 GMT  ', 10_000],
    ['2026-01-01', undefined],
    ['ab 1', undefined],
    ['Thx, 99 Foo 2026', undefined],
  ])('parseRetryAfter(%j) is %j', (value, ms) => {
    expect(parseRetryAfter(value, Date.parse('2026-01-01T00:00:00Z'))).toBe(ms);
  });

  it('waits at least 100 ms for an earlier attempt, and at most as long as the server says', () => {
    expect(IN_FLIGHT_WAIT).toEqual({ maxWaits: 12, maxTotalMs: 60_000, minDelayMs: 100 });
    expect(inFlightDelayMs(1, '0', DEFAULT_RETRY_POLICY, 0)).toBe(100);
    expect(inFlightDelayMs(1, '2', DEFAULT_RETRY_POLICY, 0)).toBe(2000);
    expect(inFlightDelayMs(3, undefined, DEFAULT_RETRY_POLICY, 0, () => 0)).toBe(500);
  });

  it('the default policy: 3 retries, 250 ms base, 8 s ceiling, Retry-After capped at a minute', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      maxRetries: 3,
      baseDelayMs: 250,
      maxDelayMs: 8_000,
      retryAfterCapMs: 60_000,
    });
  });
});
