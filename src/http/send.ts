import { setMaxListeners } from 'node:events';
import { STATUS_CODES } from 'node:http';
import { InterruptedError } from '../errors.js';
import { realTimer, type Timer } from '../system/clock.js';
import { outOfDescriptors } from '../system/system-errors.js';
import { addressSpaceFailure } from './address-space.js';
import {
  certificateRefused,
  failedAfterSending,
  namedProxy,
  networkReason,
  proxyFailure,
} from './connect-failure.js';
import { contentCodings, decodedBody, hasNoBody, isDecodeError } from './encoding.js';
import { ConnectionError, ConnectionTimeoutError, InterruptedAfterSendingError } from './errors.js';
import { isSafeMethod } from './options.js';
import { formatBytes, ResponseTooLargeError, readCapped, tooLarge } from './response.js';
import { type Dispatcher, ProxyRouter, request } from './undici.js';

export type Headers = Record<string, string | string[] | undefined>;

export interface Outcome {
  status: number;
  statusText: string;
  headers: Headers;
  /** The body, decoded from its Content-Encoding. */
  text: string;
  /** What the body is when it cannot be decoded (an unknown coding, or not what it says it is). */
  undecodable?: string;
  /** The body's bytes when they are not UTF-8 (`text` then has U+FFFD in their place). */
  notUtf8?: Buffer;
}

export interface ExchangeOptions {
  timeoutMs: number;
  /** Times `timeoutMs` (default: real time; a test's clock brings its own). */
  timer?: Timer;
  /** The answer is read no further than this (ResponseTooLargeError). */
  maxBytes: number;
  /** Aborts the exchange (Ctrl-C). */
  signal: AbortSignal | undefined;
  /** The proxy the request goes through (proxy.ts route), and the variable that named it. */
  proxy?: { url: URL; from: string | undefined } | undefined;
}

/**
 * One HTTP exchange: the request, then the answer read to the end through a byte counter,
 * within a timeout. Failures become typed errors: interrupted, timed out, too large, cut off
 * after the headers, or unreachable — each says which, so nothing is called unreachable that
 * answered.
 */
/** Signals whose listener limit was lifted (once each). */
const raisedLimit = new WeakSet<AbortSignal>();

export async function exchange(
  dispatcher: Dispatcher,
  method: string,
  url: URL,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  options: ExchangeOptions,
): Promise<Outcome> {
  const { timeoutMs: limit, maxBytes, signal } = options;
  // A timer cleared as soon as the answer is in, not AbortSignal.timeout() + AbortSignal.any():
  // those keep each request's objects alive until the timeout would fire, which over thousands
  // of requests (bulk runs) adds tens of megabytes.
  const controller = new AbortController();
  const timeout = { aborted: false };
  const cancelTimer = (options.timer ?? realTimer)(limit, () => {
    timeout.aborted = true;
    controller.abort();
  });
  const forward = () => controller.abort();
  if (signal?.aborted) controller.abort();
  else if (signal) {
    // Every request in flight listens to the one Ctrl-C signal (and removes its listener when
    // done): dozens at once is how bulk runs and svc plan work, not a leak to warn about.
    if (!raisedLimit.has(signal)) {
      setMaxListeners(0, signal);
      raisedLimit.add(signal);
    }
    signal.addEventListener('abort', forward, { once: true });
  }
  // Set once the status line and headers are in: a failure after that cut the answer off.
  let received: { status: number; bytes: number; notUtf8?: Buffer } | undefined;
  // Set once the request goes onto its connection, not aborted: from then on it may reach the server.
  // undici calls onConnect only on a connection that is up (TLS handshake done, the proxy's tunnel
  // open), just before it writes the request; unset, nothing of the request was written.
  let sent = false;
  try {
    const response = await unlessAborted(
      request(
        dispatcher,
        url,
        {
          method: method as Dispatcher.HttpMethod,
          headers,
          body: body ?? null,
          signal: controller.signal,
        },
        () => {
          if (!controller.signal.aborted) sent = true;
        },
      ),
      controller.signal,
      dispatcher,
    );
    received = { status: response.statusCode, bytes: 0 };
    const overCap = () => {
      // Stop the transfer at once: the rest of the answer is never read or kept.
      controller.abort();
      return tooLarge(method, url, maxBytes);
    };
    if (Number(response.headers['content-length']) > maxBytes) throw overCap();
    const answer = {
      status: response.statusCode,
      statusText: STATUS_CODES[response.statusCode] ?? '',
      headers: response.headers,
    };
    // A compressed answer is decoded as it is read, and the cap is on the decoded size.
    const codings = hasNoBody(method, response.statusCode) ? [] : contentCodings(response.headers);
    const decoded = decodedBody(response.body, codings);
    if ('cannot' in decoded) {
      const text = await readCapped(response.body, maxBytes, overCap, received);
      // An empty body has nothing to decode, whatever its coding.
      return text === '' ? { ...answer, text } : { ...answer, text, undecodable: decoded.cannot };
    }
    try {
      const text = await readCapped(decoded.body, maxBytes, overCap, received);
      return { ...answer, text, ...(received.notUtf8 ? { notUtf8: received.notUtf8 } : {}) };
    } catch (error) {
      if (!isDecodeError(error)) throw error;
      const said = codings.join(', ');
      return {
        ...answer,
        text: '',
        undecodable: `a body that is not the ${said} its Content-Encoding says (${error.message})`,
      };
    }
  } catch (error) {
    if (error instanceof ResponseTooLargeError) throw error;
    if (signal?.aborted) {
      // A change that was sent may be made all the same: only one never sent was cancelled.
      if (sent && !isSafeMethod(method)) throw new InterruptedAfterSendingError();
      throw new InterruptedError('interrupted; the request was cancelled');
    }
    if (timeout.aborted) {
      const within = `within ${limit / 1000} s`;
      // Still connecting (a SYN dropped, a TLS handshake or a proxy's CONNECT unanswered): the
      // request was never written, so it cannot have arrived (attack24a F2).
      if (!sent) {
        // Connected, but every connection of svc's own to it busy (a slow server under a bulk
        // run's --concurrency): the wait was svc's, not the network's (review24c L1).
        // Through a proxy, the same wait in the pool of tunnels, or a proxy that took the
        // connection and never answered the CONNECT, is said as what it was (s25).
        const why = dispatcher instanceof ProxyRouter ? dispatcher.whyNotSent(url) : undefined;
        const through = options.proxy ? ` through ${namedProxy(options.proxy)}` : '';
        if (why && 'busy' in why) {
          throw new ConnectionTimeoutError(
            `the request to ${url.origin}${through} was not sent ${within}: it waited for a free connection (svc had ${why.busy} open to it, all busy)`,
            {
              hint: 'nothing was sent; the server was slow to answer the requests before it: raise the limit with --timeout, or send fewer at once (--concurrency)',
              mayHaveArrived: false,
            },
          );
        }
        if (why && options.proxy) {
          throw new ConnectionTimeoutError(
            `${namedProxy(options.proxy)} did not answer svc's request for a tunnel to ${url.host} ${within}`,
            {
              hint: `nothing was sent; check the proxy in ${options.proxy.from ?? 'the proxy settings'} (it took the connection and said nothing), or NO_PROXY, or raise the limit with --timeout`,
              mayHaveArrived: false,
            },
          );
        }
        throw new ConnectionTimeoutError(`could not connect to ${url.origin}${through} ${within}`, {
          hint: `nothing was sent; check the server, your network${options.proxy ? ' and the proxy' : ''}, or raise the limit with --timeout`,
          mayHaveArrived: false,
        });
      }
      // An answer whose status came and whose body did not finish is no "no answer" (attack24a F4).
      if (received) {
        throw new ConnectionTimeoutError(
          `the answer from ${url.origin} (HTTP ${received.status}) did not finish ${within}`,
          {
            hint: 'check the server or the proxy between, or raise the limit with --timeout',
            answered: received.status,
          },
        );
      }
      throw new ConnectionTimeoutError(`no answer from ${url.origin} ${within}`, {
        hint: 'check the server, or raise the limit with --timeout',
      });
    }
    if (received) {
      throw new ConnectionError(
        `the answer from ${url.origin} was cut off after ${formatBytes(received.bytes)}: ${networkReason(error)}`,
        { hint: 'try again; if it keeps happening, check the server or the proxy between', cause: error },
      );
    }
    // Not the network's: the HTTP client could not start under a `ulimit -v` (address-space.ts).
    const memory = addressSpaceFailure(error);
    if (memory) throw memory;
    // This process's own limit, not the server or the network (nor a proxy's): no socket was made,
    // so nothing was sent (locks22 #3: "cannot reach … is the server running?", and in a bulk run
    // an unknown outcome). A later attempt may find a descriptor free: tried again as any connect is.
    const descriptors = outOfDescriptors(error);
    if (descriptors) {
      throw new ConnectionError(`cannot connect to ${url.origin}: ${descriptors}`, {
        hint: 'nothing was sent',
        cause: error,
        mayHaveArrived: false,
      });
    }
    // A request undici would not build (a header value it refuses): nothing left this process, and
    // neither the server nor the network is to blame. svc checks every value it puts in a header
    // before it sends (attack24c F1), so one reaching here is svc's own bug, said as such.
    if (!sent && isInvalidArgument(error)) {
      throw new ConnectionError(`svc could not make its request to ${url.origin}: ${networkReason(error)}`, {
        code: 'invalid_request',
        hint: 'nothing was sent; this is a bug in svc, please report it (run with --debug for details)',
        cause: error,
        mayHaveArrived: false,
        retryable: false,
      });
    }
    // Whether it may have arrived is what undici said (`sent`), not guessed from the error's code:
    // a TLS handshake refused or a tunnel the proxy would not open fail before the request is
    // written, with codes no list of socket errors holds (attack24a F1).
    // A certificate refused: the server (or the proxy) was reached and the fix is the trust's.
    const certificate = sent ? undefined : certificateRefused(url, options.proxy, error);
    if (certificate) throw certificate;
    if (sent) throw failedAfterSending(url, options.proxy, error);
    // From here on the request was never put on a connection: nothing was sent.
    if (options.proxy) throw proxyFailure(url, options.proxy, error);
    throw new ConnectionError(`cannot reach ${url.origin}: ${networkReason(error)}`, {
      hint: 'is the server running? check --base-url and your network or proxy settings',
      cause: error,
      mayHaveArrived: false,
    });
  } finally {
    cancelTimer();
    signal?.removeEventListener('abort', forward);
  }
}

/** Dispatchers left with a request svc gave up on (unlessAborted): closed by destroying them. */
const abandoned = new WeakSet<Dispatcher>();

/**
 * The request's answer, or its abort at once. undici takes a request's abort only once it has a
 * connection: one waiting for its connection (a proxy that never answers the CONNECT, whose own
 * wait is 300 s) went on past --timeout and Ctrl-C (exploratory test s12, contract12 #1). The
 * request given up is left to its dispatcher, which closeDispatcher then destroys.
 */
function unlessAborted(
  sent: Promise<Dispatcher.ResponseData>,
  signal: AbortSignal,
  dispatcher: Dispatcher,
): Promise<Dispatcher.ResponseData> {
  return new Promise((resolve, reject) => {
    const abort = () => {
      abandoned.add(dispatcher);
      sent.then(
        (late) => late.body.destroy(),
        () => undefined,
      );
      reject(signal.reason);
    };
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    sent.then(
      (response) => {
        signal.removeEventListener('abort', abort);
        resolve(response);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

/**
 * Closes a dispatcher once svc is done with it: its connections end when their requests have; one
 * left with a request svc gave up on is destroyed, or closing it would wait for that request.
 */
export async function closeDispatcher(dispatcher: Dispatcher): Promise<void> {
  await (abandoned.has(dispatcher) ? dispatcher.destroy() : dispatcher.close());
}

/** undici's refusal of a request's own parts (`UND_ERR_INVALID_ARG`), on the error or its cause. */
function isInvalidArgument(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as Error).cause, depth++) {
    if ((e as { code?: unknown }).code === 'UND_ERR_INVALID_ARG') return true;
  }
  return false;
}
