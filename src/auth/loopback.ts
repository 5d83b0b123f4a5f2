import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthError, InterruptedError, UsageError } from '../errors.js';
import { counted } from '../output/format.js';
import { realSleep, type Sleep } from '../system/clock.js';
import { type ExpectedResponse, readAuthorizationResponse } from './authorization-response.js';

/**
 * The redirect target of a native-app login (RFC 8252 §7.3): an HTTP server on 127.0.0.1 at an
 * ephemeral port (or a chosen one) that accepts exactly one authorization response on
 * `/callback`. Other paths get 404, and a request with a missing or wrong `state` gets a 400 page
 * — it was not started by this login (any local process or web page can make one), so the wait
 * goes on until the real response or the timeout. The response with the right state ends the
 * wait: with its code, or with its failure (a foreign `iss`, RFC 9207, or an `error`). A code is
 * not yet a login: the browser's request is held open and answered by `close(ending)` once svc
 * knows how the login ended (the code exchanged and stored, or not), so the page never says
 * "Logged in" for a login that then failed. The port is closed when the login ends, however it
 * ends (success, failure, timeout, Ctrl-C).
 */

export const CALLBACK_PATH = '/callback';
const HOST = '127.0.0.1';

export interface LoopbackOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** The state sent with the authorization request. */
  state: string;
  /** Issuer identifiers an `iss` parameter may carry; an `iss` outside them is refused. */
  issuers: string[];
  /** Told of a response that came without `iss`: its code or its error (ExpectedResponse.noIssuer). */
  noIssuer?: ExpectedResponse['noIssuer'];
  timeoutMs: number;
  /** The fix said when `timeoutMs` runs out; by default, to open the printed URL (--no-browser). */
  timeoutHint?: string;
  signal: AbortSignal;
  /** Waits out `timeoutMs`: the Context's clock (real time unless a test brings its own). */
  sleep?: Sleep;
  /**
   * Told about the first callback request turned away because its state is missing or wrong, and,
   * when the port closes, how many more were: a flood of them (any local process can send them)
   * must not scroll the URL and the instructions away (attack28a L4).
   */
  onStray?: (reason: string) => void;
}

export interface LoopbackReceiver {
  /** `http://127.0.0.1:PORT/callback`. */
  readonly redirectUri: string;
  readonly port: number;
  /** The authorization code, once the right callback arrived; its browser request is held open. */
  code(): Promise<string>;
  /**
   * Answers the held browser request (if one is) now, leaving the port open: a page that claims
   * nothing the login has not decided yet (a check that takes long: flow.ts).
   */
  answer(ending: PageEnding): Promise<void>;
  /**
   * Answers the browser request holding the code (if one is) with how the login ended — without
   * `ending`, a failure page — then closes the port (idempotent).
   */
  close(ending?: PageEnding): Promise<void>;
}

/** The page a held browser request is answered with. */
export interface PageEnding {
  ok: boolean;
  title: string;
  text: string;
}

/** What the held request gets when the login ended without saying how. */
const FAILED: PageEnding = {
  ok: false,
  title: 'Login failed',
  text: 'svc could not finish the login. See your terminal for why and what to do.',
};

/** The page of a response that fails the login by itself (a foreign `iss`, the server's `error`). */
export const failurePage = (text: string): PageEnding => ({
  ok: false,
  title: 'Login failed',
  text: `${text} Return to your terminal.`,
});

/** How long the login waits for the browser, as said while it waits and when it gives up. */
export function describeWait(seconds: number): string {
  return seconds % 60 === 0 ? counted(seconds / 60, 'minute') : `${seconds} s`;
}

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  connection: 'close',
};

function page(title: string, text: string): string {
  const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svc</title>' +
    '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1d2330}</style>' +
    `</head><body><h1>${html(title)}</h1><p>${html(text)}</p></body></html>\n`
  );
}

export async function startLoopback(options: LoopbackOptions): Promise<LoopbackReceiver> {
  let settle: { resolve: (code: string) => void; reject: (error: unknown) => void } | undefined;
  const outcome = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // A rejection nobody awaited yet must not crash the process; code() re-raises it.
  outcome.catch(() => {});
  /** Aborted once the login is over: later callbacks are turned away and the timeout's wait ends. */
  const over = new AbortController();
  /** The browser request that brought the code, answered by close(ending). */
  let held: ServerResponse | undefined;

  /** Callback requests turned away (the first is said at once, the rest counted at the end). */
  let strays = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const answer = (status: number, title: string, text: string) => {
      response.writeHead(status, PAGE_HEADERS).end(page(title, text));
    };
    const url = new URL(request.url ?? '/', `http://${HOST}`);
    if (url.pathname !== CALLBACK_PATH || request.method !== 'GET') {
      answer(404, 'Not found', 'This is the svc login callback; nothing else lives here.');
      return;
    }
    if (over.signal.aborted) {
      answer(400, 'Already finished', 'This login has already finished. Return to your terminal.');
      return;
    }
    const result = readAuthorizationResponse(url.searchParams, options);
    if (result.kind === 'stray') {
      // Not this login's response (a stray local request, or a forgery): turned away, the wait goes on.
      answer(
        400,
        'Not this login',
        'This response does not belong to the login svc is waiting for, so it was ignored. Open only the URL svc printed.',
      );
      strays += 1;
      if (strays === 1) {
        options.onStray?.(
          `${result.reason.replace('a response', 'a request to the login callback')}; still waiting`,
        );
      }
      return;
    }
    if (result.kind === 'failure' && result.unchecked) {
      // Held, as a code is: the page says the server's error only once the caller took it as
      // this server's, and the same as the terminal otherwise (issuer_missing).
      held = response;
      finish(() => settle!.reject(result.error), undefined, true);
      return;
    }
    if (result.kind === 'failure') {
      const ending = failurePage(result.page);
      answer(400, ending.title, ending.text);
      finish(() => settle!.reject(result.error), response);
      return;
    }
    // Held open until close(ending): the page says how the login ended, not that a code came.
    held = response;
    finish(() => settle!.resolve(result.code), undefined, true);
  });
  server.keepAliveTimeout = 1_000;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    if (closing === undefined && strays > 1) {
      const more = strays - 1;
      options.onStray?.(
        `${counted(more, 'more request')} to the login callback ${more === 1 ? 'was' : 'were'} turned away (a missing or wrong state)`,
      );
    }
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
  const onAbort = () =>
    finish(() => settle!.reject(new InterruptedError('interrupted; the login was cancelled')));
  /**
   * Ends the wait: the browser's answer is sent first (when there is one), then the port closes,
   * then the caller hears — or with `keepOpen`, the caller hears at once and close() ends it.
   */
  function finish(result: () => void, response?: ServerResponse, keepOpen = false): void {
    if (over.signal.aborted) return;
    over.abort();
    options.signal.removeEventListener('abort', onAbort);
    if (keepOpen) {
      result();
      return;
    }
    let closed = false;
    const closeNow = () => {
      if (closed) return;
      closed = true;
      void close().then(result, result);
    };
    if (response && !response.writableFinished) {
      response.once('finish', closeNow);
      response.once('close', closeNow);
    } else closeNow();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(
          new UsageError(`--port ${options.port}: 127.0.0.1:${options.port} is already in use`, {
            hint: 'choose another port, or leave --port out for a free one',
          }),
        );
      } else reject(error);
    });
    server.listen({ host: HOST, port: options.port ?? 0 }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  (options.sleep ?? realSleep)(options.timeoutMs, over.signal).then(
    () => {
      const span = describeWait(options.timeoutMs / 1000);
      finish(() =>
        settle!.reject(
          new AuthError(`timed out after ${span} waiting for the browser to finish the login`, {
            code: 'login_timeout',
            hint:
              options.timeoutHint ?? 'run the login again (with --no-browser, open the printed URL yourself)',
          }),
        ),
      );
    },
    // The login ended first: the wait was cancelled.
    () => {},
  );
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });

  async function answerHeld(ending: PageEnding): Promise<void> {
    const response = held;
    held = undefined;
    if (!response || response.writableEnded || response.destroyed) return;
    await new Promise<void>((resolve) => {
      response.once('finish', resolve);
      response.once('close', resolve);
      response.writeHead(ending.ok ? 200 : 400, PAGE_HEADERS).end(page(ending.title, ending.text));
    });
  }

  return {
    redirectUri: `http://${HOST}:${port}${CALLBACK_PATH}`,
    port,
    code: () => outcome,
    answer: answerHeld,
    close: async (ending = FAILED) => {
      finish(() => settle!.reject(new InterruptedError('the login was cancelled')));
      await answerHeld(ending);
      await close();
    },
  };
}
