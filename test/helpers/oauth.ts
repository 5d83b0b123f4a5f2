import { codeChallengeS256, createCodeVerifier } from '../../src/auth/pkce.js';
import { tenantId } from '../../src/sandbox/seed.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { call } from './sandbox.js';

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
  const answer = await fetch(new URL('authorize', url), {
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
