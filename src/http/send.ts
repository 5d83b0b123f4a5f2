import { setMaxListeners } from 'node:events';
import { STATUS_CODES } from 'node:http';
import { InterruptedError } from '../errors.js';
import { contentCodings, decodedBody, hasNoBody, isDecodeError } from './encoding.js';
import { ConnectionError, ConnectionTimeoutError } from './errors.js';
import { formatBytes, ResponseTooLargeError, readCapped, tooLarge } from './response.js';
import { type Dispatcher, request } from './undici.js';

export type Headers = Record<string, string | string[] | undefined>;

export interface Outcome {
  status: number;
  statusText: string;
  headers: Headers;
  /** The body, decoded from its Content-Encoding. */
  text: string;
  /** What the body is when it cannot be decoded (an unknown coding, or not what it says it is). */
  undecodable?: string;
}

export interface ExchangeOptions {
  timeoutMs: number;
  /** The answer is read no further than this (ResponseTooLargeError). */
  maxBytes: number;
  /** Aborts the exchange (Ctrl-C). */
  signal: AbortSignal | undefined;
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
  const timer = setTimeout(() => {
    timeout.aborted = true;
    controller.abort();
  }, limit);
  timer.unref();
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
  let received: { bytes: number } | undefined;
  try {
    const response = await request(dispatcher, url, {
      method: method as Dispatcher.HttpMethod,
      headers,
      body: body ?? null,
      signal: controller.signal,
    });
    received = { bytes: 0 };
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
      return { ...answer, text: await readCapped(decoded.body, maxBytes, overCap, received) };
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
    if (signal?.aborted) throw new InterruptedError('interrupted; the request was cancelled');
    if (timeout.aborted) {
      throw new ConnectionTimeoutError(`no answer from ${url.origin} within ${limit / 1000} s`, {
        hint: 'check the server, or raise the limit with --timeout',
      });
    }
    if (received) {
      throw new ConnectionError(
        `the answer from ${url.origin} was cut off after ${formatBytes(received.bytes)}: ${networkReason(error)}`,
        { hint: 'try again; if it keeps happening, check the server or the proxy between', cause: error },
      );
    }
    throw new ConnectionError(`cannot reach ${url.origin}: ${networkReason(error)}`, {
      hint: 'is the server running? check --base-url and your network or proxy settings',
      cause: error,
      mayHaveArrived: !NEVER_SENT.has(errorCode(error) ?? ''),
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', forward);
  }
}

/** Failures before a connection existed: the request cannot have reached the server. */
const NEVER_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function errorCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return (error as { code?: string })?.code ?? cause?.code;
}

function networkReason(error: unknown): string {
  const code = errorCode(error);
  const message = (error as Error)?.message ?? String(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
