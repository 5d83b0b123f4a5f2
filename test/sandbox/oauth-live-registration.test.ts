/**
 * The client's registration as it is now, not as it was when the consent page was shown: a
 * redirect URI or a scope an administrator took off the client is no longer honoured at the
 * approval, at the code exchange or at a refresh (RFC 9700 §4.1, RFC 6749 §3.1.2.4, §3.3, §6).
 */
import { describe, expect, it } from 'vitest';
import { decodeJwtClaims } from '../../src/auth/jwt.js';
import {
  authorizationCode,
  authorizeUrl,
  createClient,
  pkce,
  TREASURY,
  tokenRequest,
} from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox();
const LOOPBACK = 'http://127.0.0.1/callback';
const REMOVED = 'https://vendor.example/callback';

async function update(client: any, body: Record<string, unknown>) {
  const r = await call(sandbox(), 'PATCH', `/v1/oauth/clients/${client.client_id}`, {
    token: sandbox().adminToken,
    tenant: TREASURY,
    body,
  });
  if (r.status !== 200) throw new Error(`update failed: ${r.text}`);
}

/** The consent page for `redirectUri`, opened now and answered after `meanwhile` ran. */
async function approveAfter(client: any, redirectUri: string, meanwhile: () => Promise<void>) {
  const page = await fetch(
    authorizeUrl(sandbox(), {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: 'read:reconciliations read:exceptions',
      state: 'st',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    }),
  );
  expect(page.status).toBe(200);
  const ticket = /name="ticket" value="([^"]+)"/.exec(await page.text())![1]!;
  await meanwhile();
  const answer = await fetch(`${sandbox().url}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ticket, user_id: 'usr_admin', decision: 'approve' }).toString(),
  });
  return { status: answer.status, location: answer.headers.get('location'), html: await answer.text() };
}

function exchange(client: any, grant: { code: string; redirectUri: string; verifier: string | undefined }) {
  return tokenRequest(sandbox(), {
    grant_type: 'authorization_code',
    client_id: client.client_id,
    client_secret: client.client_secret,
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
  });
}

describe('a consent page approved after the client changed', () => {
  it('shows an error page, never redirecting, when its redirect URI was removed', async () => {
    const client = await createClient(sandbox());
    const answer = await approveAfter(client, REMOVED, () => update(client, { redirect_uris: [LOOPBACK] }));
    expect([answer.status, answer.location]).toEqual([400, null]);
    expect(answer.html).toContain(`${REMOVED} is no longer a redirect URI of Vendor portal`);
  });

  it('redirects with invalid_scope when a scope it asked for was removed', async () => {
    const client = await createClient(sandbox());
    const answer = await approveAfter(client, REMOVED, () =>
      update(client, { scopes: ['read:reconciliations'] }),
    );
    expect(answer.status).toBe(303);
    const location = new URL(answer.location!);
    expect(`${location.origin}${location.pathname}`).toBe(REMOVED);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'invalid_scope',
      error_description: 'scope read:exceptions is no longer allowed for this client',
      state: 'st',
      iss: sandbox().url,
    });
  });
});

describe('the token endpoint after the client changed', () => {
  it('refuses a code whose redirect URI was removed since it was issued', async () => {
    const client = await createClient(sandbox());
    const grant = await authorizationCode(sandbox(), client, { redirectUri: REMOVED });
    await update(client, { redirect_uris: [LOOPBACK] });
    const r = await exchange(client, grant);
    expect([r.status, r.body]).toEqual([
      400,
      {
        error: 'invalid_grant',
        error_description: `the redirect_uri ${REMOVED} is no longer registered for this client`,
      },
    ]);
  });

  it('issues only the scopes the client still has, at the exchange and at a refresh, and says so', async () => {
    const client = await createClient(sandbox());
    const grant = await authorizationCode(sandbox(), client);
    await update(client, { scopes: ['read:reconciliations'] });
    const first = await exchange(client, grant);
    expect([first.status, first.body.scope]).toEqual([200, 'read:reconciliations']);
    expect(decodeJwtClaims(first.body.access_token)!.scope).toBe('read:reconciliations');

    const other = await createClient(sandbox());
    const tokens = (await exchange(other, await authorizationCode(sandbox(), other))).body;
    expect(tokens.scope).toBe('read:reconciliations read:exceptions');
    await update(other, { scopes: ['read:exceptions'] });
    const refresh = (token: string) =>
      tokenRequest(sandbox(), {
        grant_type: 'refresh_token',
        client_id: other.client_id,
        client_secret: other.client_secret,
        refresh_token: token,
      });
    const refreshed = await refresh(tokens.refresh_token);
    expect([refreshed.status, refreshed.body.scope]).toEqual([200, 'read:exceptions']);
    expect(decodeJwtClaims(refreshed.body.access_token)!.scope).toBe('read:exceptions');
    // Given back to the client, the scope does not come back to a grant that lost it.
    await update(other, { scopes: ['read:reconciliations', 'read:exceptions'] });
    const again = await refresh(refreshed.body.refresh_token);
    expect([again.status, again.body.scope]).toEqual([200, 'read:exceptions']);
  });

  it('refuses a refresh when none of the scopes of its grant is left to the client', async () => {
    const client = await createClient(sandbox(), { scopes: ['read:exceptions', 'read:tenants'] });
    const tokens = (
      await exchange(client, await authorizationCode(sandbox(), client, { scope: 'read:exceptions' }))
    ).body;
    await update(client, { scopes: ['read:tenants'] });
    const r = await tokenRequest(sandbox(), {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      client_secret: client.client_secret,
      refresh_token: tokens.refresh_token,
    });
    expect([r.status, r.body]).toEqual([
      400,
      {
        error: 'invalid_grant',
        error_description:
          'none of the scopes of this grant (read:exceptions) is still allowed for this client',
      },
    ]);
  });
});
