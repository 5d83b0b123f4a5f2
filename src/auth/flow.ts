// Just over 300 lines: the one browser login flow (loopback, the browser or a pasted address, the
// token exchange), whose timeouts and pages must say how it ended, beside the steps that end it.
import { OAUTH_PATHS } from '../api/constants.js';
import { loginCommand, refuseUrlQueries } from '../config/settings.js';
import type { Context } from '../context.js';
import { AuthError } from '../errors.js';
import { joinUrl } from '../http/path.js';
import { sym } from '../output/symbols.js';
import { linkedSignal } from '../system/linked-signal.js';
import { type ExpectedResponse, issuerMissing } from './authorization-response.js';
import { ISSUER_STEP, issuerChecked, refusedPage } from './issuer-check.js';
import { describeWait, type LoopbackReceiver, type PageEnding, startLoopback } from './loopback.js';
import { promisesIssuer } from './metadata.js';
import { codeChallengeS256, createCodeVerifier, createState } from './pkce.js';
import {
  invalidClientHint,
  oauthErrorCode,
  requestToken,
  type TokenSet,
  tokenRequestFailed,
  tokenUrl,
} from './token-endpoint.js';

export const DEFAULT_BROWSER_TIMEOUT_SECONDS = 300;

export interface BrowserFlowOptions {
  clientId: string;
  /** Where the client id came from, with how to change it there (invalidClientHint). */
  clientIdFrom?: string | undefined;
  clientSecret: string | undefined;
  /** Scopes to ask for; none lets the server grant the client's default scopes. */
  scopes: string[];
  port: number | undefined;
  openBrowser: boolean;
  timeoutSeconds: number;
  /** What the browser is told once it all succeeded: `login` ("Logged in") or `authorize` ("Authorized"). */
  kind: 'login' | 'authorize';
  /**
   * Runs before the login page is shown (the user's time is asked for only when its end can be
   * kept: review21c F5) and again just before the code is exchanged (which opens a session at
   * the server): throws to stop there, e.g. when the tokens could not be stored
   * (browser-login.ts, loginStorable).
   */
  beforeExchange?: () => void;
  /**
   * Why the client id may be wrong (it read 404 before the browser opened): said first if the
   * browser never comes back.
   */
  clientDoubt?: string | undefined;
}

/** A login whose URL was printed for the user to open timed out: what to do instead. */
function printedUrlTimeoutHint(ctx: Context, options: BrowserFlowOptions): string {
  const longer = `a longer --browser-timeout (it was ${options.timeoutSeconds} s)`;
  return options.kind === 'login'
    ? `run the login again with ${longer}, or log in with a code: \`${loginCommand(ctx.settings())} --device\``
    : `run it again with ${longer}`;
}

/** What a timed-out login says to do: the doubt about the client first, if there is one. */
function timeoutHint(
  ctx: Context,
  options: BrowserFlowOptions,
  openBrowser: boolean,
): { timeoutHint?: string } {
  // The URL was printed already (--no-browser, SSH): more time, or (a login) a code instead.
  const usual = openBrowser ? undefined : printedUrlTimeoutHint(ctx, options);
  if (!options.clientDoubt) return usual === undefined ? {} : { timeoutHint: usual };
  return { timeoutHint: `${options.clientDoubt}; otherwise ${usual ?? 'run the login again'}` };
}

/** The browser's last page, by how the flow ended (no secrets, no server text). */
function ending(kind: BrowserFlowOptions['kind'], failedStep?: string): PageEnding {
  if (failedStep === undefined) {
    return kind === 'login'
      ? {
          ok: true,
          title: 'Logged in',
          text: 'svc stored the login. You can close this tab and return to your terminal.',
        }
      : {
          ok: true,
          title: 'Authorized',
          text: 'svc received the tokens. You can close this tab and return to your terminal.',
        };
  }
  return {
    ok: false,
    title: kind === 'login' ? 'Login failed' : 'Authorization failed',
    text: `svc could not finish: ${failedStep}. See your terminal for why and what to do.`,
  };
}

export interface BrowserFlowResult {
  tokens: TokenSet;
  tokenUrl: string;
  requestedScope: string | undefined;
}

/**
 * Which SSH variable says this is an SSH session, if one does: a browser svc opened would open on
 * the remote machine (or fail), not in front of the user. An explicit SVC_BROWSER or BROWSER
 * (a command that forwards URLs, say) is still used.
 */
function overSsh(ctx: Context): string | undefined {
  if (ctx.env.SVC_BROWSER || ctx.env.BROWSER) return undefined;
  return ['SSH_CONNECTION', 'SSH_TTY', 'SSH_CLIENT'].find((name) => ctx.env[name]);
}

/**
 * The code from whichever comes first: the browser's redirect reaching the loopback port, or its
 * address pasted into the terminal (paste.ts). Both check the state and the issuer.
 */
async function codeFromEither(
  ctx: Context,
  receiver: LoopbackReceiver,
  expected: ExpectedResponse,
): Promise<string> {
  const { readPastedRedirect } = await import('./paste.js');
  const stop = new AbortController();
  try {
    return await Promise.race([
      receiver.code(),
      readPastedRedirect({
        input: ctx.io.stdin,
        redirectUri: receiver.redirectUri,
        expected,
        prompt: (text) => ctx.out.stderr(text),
        warn: (text) => ctx.out.warn(text),
        signal: stop.signal,
      }),
    ]);
  } finally {
    stop.abort();
  }
}

/**
 * The authorization code flow with PKCE for a native app (RFC 8252): a loopback redirect on
 * 127.0.0.1, the authorization URL opened in the browser (or printed), one callback with the
 * right state, then the code exchanged at the token endpoint. Works with any server that serves
 * `{app_url}/oauth/authorize` and `{base_url}/v1/oauth/token`. Without a browser here (--no-browser,
 * or an SSH session) and with a terminal, the address the browser ends on may also be pasted.
 * `complete` (storing the login, say) runs before the browser hears: its page says "Logged in"
 * only when the exchange and `complete` succeeded, and that the login failed otherwise.
 */
export async function authorizeWithBrowser<T>(
  ctx: Context,
  options: BrowserFlowOptions,
  complete: (result: BrowserFlowResult) => Promise<T>,
): Promise<T> {
  // Its pages are opened at app_url: one with a query is refused here, where it is used (review25c L3).
  refuseUrlQueries(ctx.settings(), ['app_url']);
  const api = await ctx.api();
  const { values } = ctx.settings();
  const baseUrl = values.base_url!;
  const appUrl = values.app_url ?? baseUrl;
  const verifier = createCodeVerifier();
  const state = createState();
  // The issuer (RFC 9207) is usually the server's origin, or one of the configured URLs.
  const issuers = [baseUrl, appUrl, new URL(baseUrl).origin, new URL(appUrl).origin];
  /** Responses (a code, an error) that came without `iss`: refused once the read says the server promises one. */
  const unissued = new Set<string | AuthError>();
  const expected: ExpectedResponse = { state, issuers, noIssuer: (response) => unissued.add(response) };
  const ssh = overSsh(ctx);
  const openBrowser = options.openBrowser && !ssh;
  options.beforeExchange?.();
  const receiver = await startLoopback({
    ...(options.port === undefined ? {} : { port: options.port }),
    ...expected,
    timeoutMs: options.timeoutSeconds * 1000,
    ...timeoutHint(ctx, options, openBrowser),
    signal: ctx.signal,
    sleep: ctx.clock.sleep,
    onStray: (reason) => ctx.out.warn(reason),
  });
  // Whether the server promises `iss` (its metadata) is read alongside the page, never before it
  // (review28c F2), and awaited only once a response without `iss` came; it ends with the login.
  // Linked, not AbortSignal.any, and unlinked at the end: nothing left on ctx.signal (review28e L6).
  const readEnds = new AbortController();
  const read = linkedSignal([ctx.signal, readEnds.signal]);
  const issuerPromised = promisesIssuer(api, tokenUrl(baseUrl), read.signal);
  issuerPromised.catch(() => {});
  let code: string;
  const requestedScope = options.scopes.length > 0 ? options.scopes.join(' ') : undefined;
  /** What the browser is told when the login ends here: the step that failed, if any. */
  let failedStep: string | undefined = 'the login was cancelled or timed out';
  /** The page instead, when the response's own failure ends the login (the server's `error`). */
  let failurePageShown: PageEnding | undefined;
  try {
    const url = joinUrl(appUrl, OAUTH_PATHS.authorize);
    const params: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: options.clientId,
      redirect_uri: receiver.redirectUri,
      scope: requestedScope,
      state,
      code_challenge: codeChallengeS256(verifier),
      code_challenge_method: 'S256',
    };
    for (const [name, value] of Object.entries(params))
      if (value !== undefined) url.searchParams.set(name, value);
    const link = url.toString();
    if (openBrowser) {
      ctx.out.info('opening the login page in your browser; if it does not open, visit:');
      ctx.out.info(`  ${link}`);
      try {
        await ctx.browser.open(link);
      } catch (error) {
        ctx.out.warn(`could not open a browser (${(error as Error).message}); open the URL above yourself`);
      }
    } else {
      if (ssh && options.openBrowser) {
        ctx.out.info(`an SSH session (${ssh} is set): svc does not open a browser on this machine`);
      }
      ctx.out.info('open this URL in a browser, on this machine or any other, to log in:');
      ctx.out.info(`  ${link}`);
    }
    const wait = `up to ${describeWait(options.timeoutSeconds)}; Ctrl-C to cancel`;
    try {
      if (openBrowser || !ctx.io.stdinIsTTY) {
        ctx.out.info(`waiting for the browser on ${receiver.redirectUri} (${wait})${sym.ellipsis}`);
        code = await receiver.code();
      } else {
        ctx.out.info(
          `when you approve, the browser goes to ${receiver.redirectUri}?${sym.ellipsis}: on this machine that finishes the login; ` +
            `on another one the page cannot be reached ${sym.dash} copy its address from the address bar and paste it here ` +
            `(${wait})`,
        );
        code = await codeFromEither(ctx, receiver, expected);
      }
    } catch (error) {
      // An error response without `iss` from a server that promises it may be another server's
      // (RFC 9207 §2.4): not said as this server's refusal (review28e L4), on the page either
      // (its tab was held until now: the same words as the terminal).
      if (error instanceof AuthError && unissued.has(error)) {
        if (await issuerChecked(ctx, issuerPromised, receiver)) {
          failedStep = ISSUER_STEP;
          throw issuerMissing().error;
        }
        failurePageShown = refusedPage(error);
      }
      throw error;
    }
    if (unissued.has(code) && (await issuerChecked(ctx, issuerPromised, receiver))) {
      failedStep = ISSUER_STEP;
      throw issuerMissing().error;
    }
    failedStep = 'svc cannot store a login now';
    options.beforeExchange?.();
    failedStep = 'the authorization code could not be exchanged for tokens';
    const result = await exchange(
      api,
      baseUrl,
      code,
      receiver.redirectUri,
      verifier,
      options,
      loginCommand(ctx.settings()),
    );
    failedStep = 'the tokens could not be stored';
    const completed = await complete({ ...result, requestedScope });
    failedStep = undefined;
    return completed;
  } finally {
    readEnds.abort();
    read.end();
    await receiver.close(failurePageShown ?? ending(options.kind, failedStep));
  }
}

/** The authorization code exchanged at the token endpoint (a refusal is an AuthError, exit 3). */
async function exchange(
  api: Awaited<ReturnType<Context['api']>>,
  baseUrl: string,
  code: string,
  redirectUri: string,
  verifier: string,
  options: BrowserFlowOptions,
  login: string,
): Promise<Omit<BrowserFlowResult, 'requestedScope'>> {
  const url = tokenUrl(baseUrl);
  const form = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: options.clientId,
    client_secret: options.clientSecret,
  };
  try {
    return { tokens: await requestToken(api, url, form), tokenUrl: url };
  } catch (error) {
    const secrets = [code, verifier, options.clientSecret].filter((s): s is string => s !== undefined);
    throw tokenRequestFailed(
      'the authorization code could not be exchanged for tokens',
      error,
      secrets,
      oauthErrorCode(error) !== 'invalid_client'
        ? 'run the login again'
        : invalidClientHint(options, login, error),
    );
  }
}
