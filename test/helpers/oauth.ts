// Over 300 lines: every OAuth helper the tests share (consent robot, sandbox sessions, codes,
// spawned logins), so that no test file writes its own.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ISSUER_NOTICE_MS } from '../../src/auth/metadata.js';
import { codeChallengeS256, createCodeVerifier } from '../../src/auth/pkce.js';
import type { StoredCredential } from '../../src/config/store.js';
import { CLI_CLIENT_ID } from '../../src/sandbox/domain/oauth.js';
import { tenantId } from '../../src/sandbox/seed.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import type { Browser } from '../../src/system/browser.js';
import { type Clock, realSleep, realTimer } from '../../src/system/clock.js';
import { writeConsentRobot } from '../../src/tour/consent-robot.js';
import { FIXED_NOW, runInProcess, useTempDirs } from './context.js';
import { call, useSandbox } from './sandbox.js';
import { BIN, baseEnv, ROOT, type SvcResult } from './svc.js';
import { useTempDir } from './temp.js';

export const TREASURY = tenantId('acme-treasury');

/** Creates an OAuth client in Acme Treasury as the seeded admin; returns the creation response. */
export async function createClient(sandbox: Sandbox, body: Record<string, unknown> = {}): Promise<any> {
  const response = await call(sandbox, 'POST', '/v1/oauth/clients', {
    token: sandbox.adminToken,
    tenant: TREASURY,
    body: {
      name: 'Vendor portal',
      redirect_uris: ['https://vendor.example/callback', 'http://127.0.0.1/callback'],
      scopes: ['read:reconciliations', 'read:exceptions'],
      idempotency_key: `create-${Math.random()}`,
      ...body,
    },
  });
  if (response.status !== 201) throw new Error(`client creation failed: ${response.text}`);
  return response.body;
}

/** A caller of the sandbox's routes: a token and its tenant (useGrantRules' `admin()`, `as(user)`). */
export type Caller = { token: string; tenant: string };

/**
 * An OAuth client's changes through the routes, as `caller`, and what the sandbox holds of it:
 * what the reach tests of test/sandbox try a client with.
 */
export function clientChanges(sandbox: () => Sandbox, key: () => string) {
  return {
    patch: (caller: Caller, id: string, body: Record<string, unknown>) =>
      call(sandbox(), 'PATCH', `/v1/oauth/clients/${id}`, { ...caller, body }),
    rotate: (caller: Caller, id: string) =>
      call(sandbox(), 'POST', `/v1/oauth/clients/${id}/rotate-secret`, {
        ...caller,
        body: { idempotency_key: key() },
      }),
    stored: (id: string) => {
      const c = sandbox().state.oauth.clients.get(id)!;
      return { scopes: c.scopes, redirect_uris: c.redirect_uris, secret_rotated_at: c.secret_rotated_at };
    },
  };
}

export function authorizeUrl(sandbox: Sandbox, params: Record<string, string | undefined>): string {
  const url = new URL('/oauth/authorize', sandbox.url);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

export interface ConsentOutcome {
  /** The status of the authorize GET (200 consent page, 303 error redirect, 400 error page). */
  status: number;
  html: string;
  /** Where the browser is sent in the end (the redirect URI with code or error), if anywhere. */
  location: URL | undefined;
}

/** Plays the browser on the consent page: loads it, then approves or denies as `user`. */
export async function consent(
  url: string,
  options: { user?: string; decision?: 'approve' | 'deny' } = {},
): Promise<ConsentOutcome> {
  const page = await fetch(url, { redirect: 'manual' });
  const html = await page.text();
  if (page.status !== 200) {
    const location = page.headers.get('location');
    return { status: page.status, html, location: location ? new URL(location) : undefined };
  }
  const ticket = /name="ticket" value="([^"]+)"/.exec(html)?.[1];
  if (!ticket) throw new Error(`no ticket on the consent page:\n${html}`);
  // The form's own action: `authorize` for a redirect login, `device` for a device code.
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1] ?? 'authorize';
  const answer = await fetch(new URL(action, url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      ticket,
      user_id: options.user ?? 'usr_admin',
      decision: options.decision ?? 'approve',
    }).toString(),
  });
  const location = answer.headers.get('location');
  return { status: 200, html, location: location ? new URL(location) : undefined };
}

/** A POST to the token endpoint with form parameters. */
export async function tokenRequest(
  sandbox: Sandbox,
  params: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) form.append(k, v);
  const response = await fetch(`${sandbox.url}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form.toString(),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body, headers: response.headers };
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = createCodeVerifier();
  return { verifier, challenge: codeChallengeS256(verifier) };
}

/** Runs the whole authorization code flow for a client and returns the code and what was sent. */
export async function authorizationCode(
  sandbox: Sandbox,
  client: { client_id: string },
  options: { redirectUri?: string; scope?: string; user?: string; state?: string; pkce?: Pkce | null } = {},
): Promise<{ code: string; redirectUri: string; verifier: string | undefined; location: URL }> {
  const redirectUri = options.redirectUri ?? 'http://127.0.0.1:51234/callback';
  const proof = options.pkce === undefined ? pkce() : options.pkce;
  const outcome = await consent(
    authorizeUrl(sandbox, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: options.scope,
      state: options.state ?? 'state-123',
      code_challenge: proof?.challenge,
      code_challenge_method: proof ? 'S256' : undefined,
    }),
    { user: options.user ?? 'usr_admin' },
  );
  const code = outcome.location?.searchParams.get('code');
  if (!code || !outcome.location)
    throw new Error(`no code: ${outcome.status} ${outcome.location} ${outcome.html}`);
  return { code, redirectUri, verifier: proof?.verifier, location: outcome.location };
}

/**
 * The authorization code flow for a confidential client, then its code exchanged for tokens;
 * `extra` adds to (or overrides) the token request's parameters.
 */
export async function codeTokens(
  sandbox: Sandbox,
  client: { client_id: string; client_secret?: string },
  options: Parameters<typeof authorizationCode>[2] = {},
  extra: Record<string, string | undefined> = {},
): Promise<Awaited<ReturnType<typeof tokenRequest>>> {
  const { code, redirectUri, verifier } = await authorizationCode(sandbox, client, options);
  return tokenRequest(sandbox, {
    grant_type: 'authorization_code',
    client_id: client.client_id,
    client_secret: client.client_secret,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    ...extra,
  });
}

export interface LiveSvc {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /**
   * Resolves with the first match of `pattern` in stderr (waits for it: up to 30 s, far above need
   * for a spawned svc, which once started 5 s late on a loaded CI machine).
   */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  done: Promise<SvcResult>;
}

/**
 * Spawns the built svc and keeps hold of it (to answer its browser step, signal it, read /proc).
 * `input` is written to its standard input, which is then closed; `null` leaves it open (the test
 * writes to `child.stdin`: a pipe that has not ended).
 */
export function spawnSvc(
  args: string[],
  env: Record<string, string | undefined>,
  input: string | null = '',
): LiveSvc {
  const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(env), cwd: ROOT });
  let out = '';
  let err = '';
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    for (const w of [...waiters]) w();
  });
  const done = new Promise<SvcResult>((resolve) => {
    child.on('close', (code) => {
      for (const w of [...waiters]) w();
      resolve({ code, stdout: out, stderr: err });
    });
  });
  if (input !== null) child.stdin.end(input);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    done,
    waitForStderr(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(err);
          if (match) {
            cleanup();
            resolve(match);
          } else if (child.exitCode !== null) {
            cleanup();
            reject(new Error(`svc exited ${child.exitCode} before printing ${pattern}\n${err}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`svc did not print ${pattern} in time\n${err}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(check), 1);
        };
        waiters.push(check);
        check();
      });
    },
  };
}

/** The authorization URL as `svc login` prints it: on a line of its own, indented. */
export const AUTHORIZE_LINE = /^ {2}(http\S+\/oauth\/authorize\?\S+)$/m;

/** The authorization URL and loopback redirect a waiting `svc login` printed. */
export async function printedLogin(
  live: Pick<LiveSvc, 'waitForStderr'>,
): Promise<{ url: string; redirectUri: URL; state: string }> {
  const [, url] = await live.waitForStderr(AUTHORIZE_LINE);
  await live.waitForStderr(/waiting for the browser/);
  const parsed = new URL(url!);
  return {
    url: url!,
    redirectUri: new URL(parsed.searchParams.get('redirect_uri')!),
    state: parsed.searchParams.get('state')!,
  };
}

/** How many token endpoint requests the sandbox answered, by status. */
export async function tokenRequests(sandbox: Sandbox): Promise<number> {
  const stats = (await call(sandbox, 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats)
    .filter(([key]) => key.startsWith('POST /v1/oauth/token '))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** Resolves when nothing listens on the port any more (connect → ECONNREFUSED). */
export function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/**
 * A browser for in-process logins: "opening" the authorization URL plays the person at the
 * consent page (approve or deny as `user`) and follows the redirect to svc's loopback, as
 * clicking the button does. `opened` are the URLs it was given; `settled()` resolves when every
 * visit is over and rejects with the first failure.
 */
export function consentBrowser(
  options: { user?: string; decision?: 'approve' | 'deny' } = {},
): Browser & { opened: string[]; pages: Array<{ status: number; text: string }>; settled(): Promise<void> } {
  const opened: string[] = [];
  /** The pages svc's loopback answered the redirect with (the tab the user is left with). */
  const pages: Array<{ status: number; text: string }> = [];
  const visits: Array<Promise<void>> = [];
  return {
    opened,
    pages,
    async open(url) {
      opened.push(url);
      const visit = (async () => {
        const { location } = await consent(url, options);
        if (!location) return;
        const page = await fetch(location);
        pages.push({ status: page.status, text: await page.text() });
      })();
      // Seen by settled(); never an unhandled rejection in the meantime.
      visit.catch(() => undefined);
      visits.push(visit);
    },
    async settled() {
      await Promise.all(visits);
    },
  };
}

let robot: string | undefined;

/** An SVC_BROWSER value that answers the sandbox's consent page (see src/tour/consent-robot.ts). */
export function consentRobot(): string {
  if (!robot) {
    // Named at collection, written before the file's tests (./temp.ts says why); the value is
    // writeConsentRobot's for that directory.
    const dir = useTempDir('svc-robot-', (made) => {
      writeConsentRobot(made);
    });
    // One robot per test file: the next file in this worker (modules are kept, vitest.config.ts
    // isolate: false) writes its own rather than finding this one removed.
    afterAll(() => {
      robot = undefined;
    });
    robot = `"${process.execPath}" "${join(dir, 'consent-robot.cjs')}"`;
  }
  return robot;
}

/** Parses the credential file of a config dir. */
export function storedCredential(configDir: string, profile = 'default'): any {
  return JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')).profiles?.[profile];
}

/** A session of the sandbox's CLI client (scope admin, as Ada), as `svc login` stores it. */
export async function sandboxSession(sandbox: Sandbox): Promise<StoredCredential> {
  const { code, redirectUri, verifier } = await authorizationCode(
    sandbox,
    { client_id: CLI_CLIENT_ID },
    { scope: 'admin' },
  );
  const tokens = await tokenRequest(sandbox, {
    grant_type: 'authorization_code',
    client_id: CLI_CLIENT_ID,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  return {
    type: 'oauth',
    access_token: tokens.body.access_token,
    refresh_token: tokens.body.refresh_token,
    client_id: CLI_CLIENT_ID,
    token_url: `${sandbox.url}/v1/oauth/token`,
    obtained_at: new Date().toISOString(),
  };
}

/**
 * A test file's own sandbox with one `svc login` made in it (in-process, the consent browser)
 * before its tests: the env its commands run with, its config dir, and a way to move the stored
 * access token's expiry into the past, so that the next request refreshes the session first.
 */
export function useLoggedIn() {
  const sandbox = useSandbox();
  const dirs = useTempDirs();
  const env = () => ({
    ...dirs(),
    SVC_BASE_URL: sandbox().url,
    SVC_CLIENT_ID: 'svc-cli',
    SVC_TENANT: TREASURY,
  });
  beforeAll(async () => {
    const browser = consentBrowser();
    const r = await runInProcess(['login'], env(), { now: Date.now(), browser });
    await browser.settled();
    if (r.code !== 0) throw new Error(r.stderr);
  });
  return {
    sandbox,
    env,
    configDir: () => dirs().SVC_CONFIG_DIR,
    expireStoredToken(): void {
      const path = join(dirs().SVC_CONFIG_DIR, 'credentials.json');
      const file = JSON.parse(readFileSync(path, 'utf8'));
      file.profiles.default.expires_at = '2020-01-01T00:00:00Z';
      writeFileSync(path, JSON.stringify(file));
    },
  };
}

/**
 * A clock for a login that gets a response without `iss`: its wait of ISSUER_NOTICE_MS before it
 * says it waits for the metadata read (src/auth/issuer-check.ts: one line, and the tab answered
 * with the "Checking the response" page) ends only when the test calls `open()`, never by time,
 * so what the page and the terminal say does not depend on whether the read answered within 1 s
 * (review29a L1). Every other wait is real; `now` is fixed (FIXED_NOW unless given).
 */
export function issuerNoticeClock(now = FIXED_NOW): Clock & { open(): void } {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    open: () => open(),
    now: () => now,
    timer: realTimer,
    sleep: (ms: number, signal?: AbortSignal) =>
      ms !== ISSUER_NOTICE_MS
        ? realSleep(ms, signal)
        : new Promise<void>((resolve, reject) => {
            signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
            void opened.then(resolve);
          }),
  };
}
