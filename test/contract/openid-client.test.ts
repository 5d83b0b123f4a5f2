import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { CLI_CLIENT_ID } from '../../src/sandbox/domain/oauth.js';
import { consent, createClient, TREASURY } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';

// An off-the-shelf OAuth client (openid-client 6, over oauth4webapi) against the sandbox: it
// discovers the server from its RFC 8414 metadata alone, then runs the authorization code flow
// with PKCE, refreshes, and revokes (RFC 7009) — issue 10.
const sandbox = useSandbox();
const REDIRECT = 'http://127.0.0.1:53123/callback';

async function discover(clientId: string, secret: string | undefined): Promise<oidc.Configuration> {
  return oidc.discovery(
    new URL(sandbox().url),
    clientId,
    secret,
    secret === undefined ? oidc.None() : oidc.ClientSecretPost(secret),
    // The sandbox listens on loopback http; openid-client wants https unless told otherwise.
    { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] },
  );
}

/** The status of GET /v1/me; a refusal as openid-client parses its RFC 6750 challenge. */
async function me(config: oidc.Configuration, token: string): Promise<string> {
  try {
    const response = await oidc.fetchProtectedResource(
      config,
      token,
      new URL('/v1/me', sandbox().url),
      'GET',
    );
    return String(response.status);
  } catch (error) {
    if (!(error instanceof oidc.WWWAuthenticateChallengeError)) throw error;
    const challenges = error.cause.map(
      (c) => `${c.scheme} realm=${c.parameters.realm} error=${c.parameters.error}`,
    );
    return `${error.status} ${challenges.join(', ')}`;
  }
}

describe('openid-client discovers the sandbox and completes the flow', () => {
  it.each([
    ['a confidential client created through the API', 'read:reconciliations'],
    ['the public first-party client svc-cli', 'admin'],
  ])('%s: code + PKCE, refresh, revocation', async (_kind, scope) => {
    const confidential = scope !== 'admin';
    const created = confidential ? await createClient(sandbox(), { redirect_uris: [REDIRECT] }) : undefined;
    const config = await discover(created?.client_id ?? CLI_CLIENT_ID, created?.client_secret);
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(sandbox().url);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);

    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope,
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const answered = await consent(url.href, { user: 'usr_admin' });
    expect(answered.location?.searchParams.get('iss')).toBe(sandbox().url);
    const tokens = await oidc.authorizationCodeGrant(config, answered.location!, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.scope).toBe(scope);
    expect(await me(config, tokens.access_token)).toBe('200');
    const records = await oidc.fetchProtectedResource(
      config,
      tokens.access_token,
      new URL('/v1/reconciliations', sandbox().url),
      'GET',
      undefined,
      new Headers({ 'x-tenant-id': TREASURY }),
    );
    expect(records.status).toBe(200);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(await me(config, refreshed.access_token)).toBe('200');

    await oidc.tokenRevocation(config, refreshed.refresh_token!, { token_type_hint: 'refresh_token' });
    expect(await me(config, refreshed.access_token)).toBe('401 bearer realm=svc error=invalid_token');
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});
