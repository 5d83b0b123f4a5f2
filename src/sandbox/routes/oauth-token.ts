// Over 300 lines: the token endpoint's three grants (RFC 6749 code and refresh, RFC 8628 device)
// share client authentication and token issuing; one flow read top to bottom.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DEVICE_CODE_GRANT, OAUTH_LIMITS, OAUTH_PATHS } from '../../api/constants.js';
import { codeChallengeS256, sameSecret } from '../../api/pkce.js';
import { OAuthErrorBody, TokenRequest, TokenResponse } from '../../api/schemas/oauth.js';
import { primaryRole } from '../domain/identity.js';
import {
  type AuthorizationCode,
  mayUseGrant,
  type OAuthClientRecord,
  redirectRegistered,
  scopesStillAllowed,
} from '../domain/oauth.js';
import { revokeTokenFamily } from '../domain/token-revocation.js';
import type { FormBody } from '../plugins/form.js';
import { randomId, signJwt } from '../tokens.js';
import type { RouteContext } from './context.js';
import {
  authenticateClient,
  formBody,
  NO_STORE,
  OAuthError,
  oauthFormEndpoint,
  param,
  sendOAuthError,
} from './oauth-client-auth.js';

export { OAuthError };

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

interface Grant {
  userId: string;
  tenantIds: string[];
  scopes: string[];
  /** RFC 6749 §6: a refresh with `scope` narrows the new access token only; the refresh token keeps `scopes`. */
  accessScopes?: string[];
  family: string;
  /** The family's absolute end, carried by a refresh; a new family's starts now. */
  familyEndsAtMs?: number;
}

/**
 * The scopes of a grant the client still has (RFC 6749 §3.3: the server may issue fewer than
 * were granted, and says which in `scope`): a scope taken off the client since leaves its new
 * tokens, and a grant with none left is refused.
 */
function liveScopes(client: OAuthClientRecord, scopes: string[]): string[] {
  const allowed = scopesStillAllowed(client, scopes);
  if (allowed.length === 0) {
    throw new OAuthError(
      'invalid_grant',
      `none of the scopes of this grant (${scopes.join(' ')}) is still allowed for this client`,
    );
  }
  return allowed;
}

/** A signed access token (a sandbox JWT with scope, client_id and fam claims) and, when allowed, a refresh token. */
function issueTokens(ctx: RouteContext, client: OAuthClientRecord, grant: Grant): TokenResponse {
  const { state } = ctx;
  const now = Math.floor(state.clock.now() / 1000);
  const user = state.identity.users.get(grant.userId);
  const accessScopes = grant.accessScopes ?? grant.scopes;
  state.oauth.noteFamily(client.client_id, grant.userId, grant.family);
  const accessToken = signJwt(
    {
      iss: ctx.baseUrl(),
      sub: grant.userId,
      aud: 'svc',
      iat: now,
      exp: now + client.token_lifetime_seconds,
      jti: randomId('jwt', 8),
      tenants: grant.tenantIds.map((id) => ({
        id,
        role: primaryRole(state.identity.rolesOf(grant.userId, id)) ?? 'none',
      })),
      org_id: user?.org_id ?? null,
      scope: accessScopes.join(' '),
      client_id: client.client_id,
      fam: grant.family,
    },
    state.jwtSecret,
  );
  const response: TokenResponse = {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: client.token_lifetime_seconds,
    scope: accessScopes.join(' '),
  };
  if (client.grant_types.includes('refresh_token')) {
    // Sliding (each new one lives refresh_token_lifetime_seconds), within the family's absolute end.
    const familyEndsAtMs =
      grant.familyEndsAtMs ?? state.clock.now() + OAUTH_LIMITS.tokenFamilyLifetimeSeconds * 1000;
    response.refresh_token = state.oauth.issueRefreshToken({
      clientId: client.client_id,
      userId: grant.userId,
      tenantIds: grant.tenantIds,
      scopes: grant.scopes,
      family: grant.family,
      expiresAtMs: Math.min(state.clock.now() + client.refresh_token_lifetime_seconds * 1000, familyEndsAtMs),
      familyEndsAtMs,
    });
  }
  return response;
}

function authorizationCodeGrant(
  ctx: RouteContext,
  request: FastifyRequest,
  client: OAuthClientRecord,
  body: FormBody,
): TokenResponse {
  const { state } = ctx;
  const code = param(body, 'code');
  const redirectUri = param(body, 'redirect_uri');
  const verifier = param(body, 'code_verifier');
  if (code === undefined) throw new OAuthError('invalid_request', 'code is required');
  if (redirectUri === undefined) throw new OAuthError('invalid_request', 'redirect_uri is required');
  const entry = state.oauth.findCode(code);
  if (!entry || entry.clientId !== client.client_id) {
    throw new OAuthError('invalid_grant', 'unknown authorization code');
  }
  if (entry.usedAtMs !== null) {
    // RFC 6749 §4.1.2: a code used twice revokes what was issued with it.
    if (entry.family) {
      revokeTokenFamily(
        ctx.state,
        entry.family,
        request.id,
        `authorization code of ${client.client_id} presented twice`,
      );
    }
    throw new OAuthError(
      'invalid_grant',
      entry.family || !entry.failure
        ? 'the authorization code was already used; the tokens issued with it are revoked'
        : `the authorization code was already presented, and that exchange failed (${entry.failure}), so no token was issued with it; an authorization code is used once: start a new authorization`,
    );
  }
  // Any presentation by its client uses the code up, so a wrong verifier cannot be retried; a
  // retry is told why that one failed.
  entry.usedAtMs = state.clock.now();
  let scopes: string[];
  try {
    checkExchange(client, entry, redirectUri, verifier, state.clock.now());
    scopes = liveScopes(client, entry.scopes);
  } catch (error) {
    if (error instanceof OAuthError) entry.failure = error.message;
    throw error;
  }
  const family = randomId('fam', 12);
  entry.family = family;
  return issueTokens(ctx, client, {
    userId: entry.userId,
    tenantIds: entry.tenantIds,
    scopes,
    family,
  });
}

/**
 * A code's exchange checks (expiry, redirect_uri, still registered for the client, PKCE): an
 * OAuthError naming the first that fails.
 */
function checkExchange(
  client: OAuthClientRecord,
  entry: AuthorizationCode,
  redirectUri: string,
  verifier: string | undefined,
  now: number,
): void {
  if (entry.expiresAtMs <= now) throw new OAuthError('invalid_grant', 'the authorization code has expired');
  if (entry.redirectUri !== redirectUri) {
    throw new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request');
  }
  if (!redirectRegistered(client, entry.redirectUri)) {
    throw new OAuthError(
      'invalid_grant',
      `the redirect_uri ${entry.redirectUri} is no longer registered for this client`,
    );
  }
  if (entry.challenge !== null) {
    if (verifier === undefined) throw new OAuthError('invalid_grant', 'code_verifier is required (PKCE)');
    if (!VERIFIER.test(verifier)) {
      throw new OAuthError('invalid_grant', 'code_verifier must be 43 to 128 characters of [A-Za-z0-9._~-]');
    }
    if (!sameSecret(codeChallengeS256(verifier), entry.challenge)) {
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
    }
  } else if (verifier !== undefined) {
    // RFC 9700 §2.1.1: a verifier without a challenge is a PKCE downgrade attempt.
    throw new OAuthError(
      'invalid_grant',
      'code_verifier sent, but the authorization request had no code_challenge',
    );
  }
}

function refreshTokenGrant(
  ctx: RouteContext,
  request: FastifyRequest,
  client: OAuthClientRecord,
  body: FormBody,
): TokenResponse {
  const { state } = ctx;
  const token = param(body, 'refresh_token');
  const scope = param(body, 'scope');
  if (token === undefined) throw new OAuthError('invalid_request', 'refresh_token is required');
  const record = state.oauth.findRefreshToken(token);
  if (!record || record.clientId !== client.client_id) {
    throw new OAuthError('invalid_grant', 'unknown refresh token');
  }
  if (state.revokedTokenFamilies.has(record.family)) {
    throw new OAuthError('invalid_grant', 'the refresh token was revoked');
  }
  if (record.rotatedAtMs !== null) {
    state.oauth.count('refresh_token', 'reuse_detected');
    revokeTokenFamily(
      ctx.state,
      record.family,
      request.id,
      `rotated refresh token of ${client.client_id} presented again`,
    );
    throw new OAuthError(
      'invalid_grant',
      'the refresh token was already used; every token of its family is revoked, log in again',
    );
  }
  if (record.expiresAtMs <= state.clock.now()) {
    const days = OAUTH_LIMITS.tokenFamilyLifetimeSeconds / 86_400;
    throw new OAuthError(
      'invalid_grant',
      record.expiresAtMs === record.familyEndsAtMs
        ? `the refresh token has expired: its grant reached the ${days} days a login lasts, however often it is refreshed; log in again`
        : 'the refresh token has expired',
    );
  }
  // RFC 6749 §6: `scope` narrows the new access token; the new refresh token keeps the grant.
  const granted = liveScopes(client, record.scopes);
  let accessScopes = granted;
  if (scope !== undefined) {
    accessScopes = scope.split(' ').filter(Boolean);
    const extra = accessScopes.filter((s) => !granted.includes(s));
    if (accessScopes.length === 0 || extra.length > 0) {
      const why = extra.length > 0 ? `; not granted: ${extra.join(' ')}` : '; scope was empty';
      throw new OAuthError(
        'invalid_scope',
        `scope may only narrow the original grant (${granted.join(' ')})${why}`,
      );
    }
  }
  const member = new Set(state.identity.memberTenants(record.userId).map((t) => t.id));
  const tenantIds = record.tenantIds.filter((id) => member.has(id));
  if (tenantIds.length === 0) {
    throw new OAuthError('invalid_grant', 'the user no longer belongs to the tenants of this grant');
  }
  record.rotatedAtMs = state.clock.now();
  return issueTokens(ctx, client, {
    userId: record.userId,
    tenantIds,
    scopes: granted,
    accessScopes,
    family: record.family,
    familyEndsAtMs: record.familyEndsAtMs,
  });
}

/**
 * RFC 8628 §3.4–3.5: a device polling for the user's answer. authorization_pending until the user
 * answers; slow_down (and 5 s more between polls from then on) when polled faster than the
 * interval; expired_token, access_denied; tokens once approved, and the device code is used up.
 */
function deviceCodeGrant(ctx: RouteContext, client: OAuthClientRecord, body: FormBody): TokenResponse {
  const { state } = ctx;
  const deviceCode = param(body, 'device_code');
  if (deviceCode === undefined) throw new OAuthError('invalid_request', 'device_code is required');
  const device = state.oauth.devices.find(deviceCode);
  if (!device || device.clientId !== client.client_id || device.issued) {
    throw new OAuthError('invalid_grant', 'unknown or already used device_code');
  }
  const now = state.clock.now();
  if (device.expiresAtMs <= now)
    throw new OAuthError('expired_token', 'the device code has expired; start again');
  const early = device.lastPollMs !== null && now - device.lastPollMs < device.intervalSeconds * 1000;
  device.lastPollMs = now;
  if (device.decision === null) {
    if (early) {
      device.intervalSeconds += 5;
      throw new OAuthError('slow_down', `poll at most every ${device.intervalSeconds} s`);
    }
    throw new OAuthError('authorization_pending', 'the user has not answered yet');
  }
  if (!device.decision.approved) throw new OAuthError('access_denied', 'the user denied the request');
  device.issued = true;
  return issueTokens(ctx, client, {
    userId: device.decision.userId,
    tenantIds: device.decision.tenantIds,
    scopes: liveScopes(client, device.scopes),
    family: randomId('fam', 12),
  });
}

export default function oauthTokenRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.post<{ Body: FormBody }>(
    OAUTH_PATHS.token,
    {
      ...oauthFormEndpoint('oauth_tokens_issue'),
      schema: {
        tags: ['oauth'],
        summary: 'Exchange an authorization code or a refresh token',
        description:
          'Form-encoded (application/x-www-form-urlencoded). Client authentication: client_id + client_secret in the body ' +
          '(client_secret_post) or HTTP Basic (client_secret_basic), never both; the first-party client svc-cli is public ' +
          '(client_id only, PKCE). authorization_code: the code is single-use (a second use revokes the tokens issued with it; after a failed exchange, which uses it up too, a second use is told why that one failed and that no token was issued), ' +
          'lives 60 s, and is bound to the client, the redirect_uri and the S256 code_challenge; code_verifier must match, and ' +
          'must be absent when the request had no challenge; a redirect_uri removed from the client since is invalid_grant. ' +
          'refresh_token: rotates on every use; presenting a rotated refresh ' +
          'token revokes its whole family (access tokens included); `scope` narrows the new access token only (RFC 6749 §6: the new refresh token keeps the scopes of the grant, and a refresh without `scope` gets them all back; a scope outside the grant is invalid_scope naming the grant). Every grant issues only the ' +
          'scopes the client still has (RFC 6749 §3.3): one taken off the client since the authorization leaves the new tokens ' +
          'and their `scope` (and does not come back to that grant if given back to the client); a grant with none left is ' +
          'invalid_grant. ' +
          `${DEVICE_CODE_GRANT} (RFC 8628 §3.4): device_code from the device authorization endpoint; authorization_pending ` +
          'until the user answers, slow_down (and 5 s more between polls) when polled faster than the interval, expired_token, ' +
          'access_denied, then tokens once (the device code is used up). Errors follow RFC 6749 §5.2 ' +
          '(`{"error","error_description"}`, 400, or 401 for invalid_client), not the sandbox error body. No idempotency key: ' +
          'the OAuth protocol has its own replay rules. (Response body: not shown in the reference; this is RFC 6749 §5.1.)',
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenRequest,
        response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      let grant = 'unknown';
      try {
        const body = formBody(request);
        const grantType = param(body, 'grant_type');
        grant = grantType ?? 'missing';
        if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
        if (
          grantType !== 'authorization_code' &&
          grantType !== 'refresh_token' &&
          grantType !== DEVICE_CODE_GRANT
        ) {
          throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported`);
        }
        const client = authenticateClient(ctx, request, body);
        // Only the grants the client is registered for (the device grant: svc-cli alone).
        if (!mayUseGrant(client, grantType)) {
          throw new OAuthError('unauthorized_client', `this client may not use the ${grantType} grant`);
        }
        const tokens =
          grantType === 'authorization_code'
            ? authorizationCodeGrant(ctx, request, client, body)
            : grantType === 'refresh_token'
              ? refreshTokenGrant(ctx, request, client, body)
              : deviceCodeGrant(ctx, client, body);
        ctx.state.oauth.count(grant, 'ok');
        return reply.code(200).headers(NO_STORE).send(tokens);
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        ctx.state.oauth.count(grant, error.error);
        return sendOAuthError(reply, error);
      }
    },
  );
}
