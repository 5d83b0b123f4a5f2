import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAUTH_PATHS } from '../../api/constants.js';
import { codeChallengeS256, sameSecret } from '../../api/pkce.js';
import { OAuthErrorBody, TokenRequest, TokenResponse } from '../../api/schemas/oauth.js';
import { DomainError } from '../domain/errors.js';
import { primaryRole } from '../domain/identity.js';
import type { OAuthClientRecord } from '../domain/oauth.js';
import type { FormBody } from '../plugins/form.js';
import { ApiProblem } from '../problem.js';
import { randomId, signJwt } from '../tokens.js';
import type { RouteContext } from './context.js';

/** An RFC 6749 §5.2 error: `{"error","error_description"}`, 400 unless said otherwise. */
export class OAuthError extends Error {
  readonly error: string;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(error: string, description: string, status = 400, headers: Record<string, string> = {}) {
    super(description);
    this.error = error;
    this.status = status;
    this.headers = headers;
  }
}

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  return reply
    .code(error.status)
    .headers({ ...NO_STORE, ...error.headers })
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error: error.error, error_description: error.message }));
}

/** Any failure on this route — a parser error, an injected fault — answered in the RFC 6749 shape. */
function toOAuthError(error: FastifyError | ApiProblem | DomainError | OAuthError): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof DomainError) return toOAuthError(ApiProblem.of(error));
  if (error instanceof ApiProblem) {
    const code =
      error.status >= 500
        ? 'temporarily_unavailable'
        : error.status === 429
          ? 'slow_down'
          : 'invalid_request';
    return new OAuthError(code, error.message, error.status, error.headers);
  }
  const status = error.statusCode ?? 500;
  if (status >= 500) return new OAuthError('server_error', 'internal error in the sandbox', 500);
  if (status === 415)
    return new OAuthError('invalid_request', 'send the parameters as application/x-www-form-urlencoded', 415);
  return new OAuthError('invalid_request', error.message, status);
}

/** One value of a form parameter; a repeated parameter is an error (RFC 6749 §3.2). */
function param(body: FormBody, name: string): string | undefined {
  const value = body[name];
  if (Array.isArray(value)) throw new OAuthError('invalid_request', `parameter ${name} is repeated`);
  return value === undefined || value === '' ? undefined : value;
}

interface BasicCredentials {
  id: string;
  secret: string;
}

function basicCredentials(header: string | undefined): BasicCredentials | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  const challenge = { 'www-authenticate': 'Basic realm="svc sandbox"' };
  if (!match) {
    throw new OAuthError(
      'invalid_client',
      'Authorization must be HTTP Basic with the client credentials',
      401,
      challenge,
    );
  }
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) throw new OAuthError('invalid_client', 'malformed Basic credentials', 401, challenge);
  // RFC 6749 §2.3.1: both parts are form-urlencoded before they are joined.
  const unform = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
  try {
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('invalid_client', 'malformed Basic credentials', 401, challenge);
  }
}

/**
 * Client authentication: client_secret_basic or client_secret_post (never both), or a public
 * client identified by client_id alone (the first-party CLI, which proves itself with PKCE).
 */
function authenticateClient(ctx: RouteContext, request: FastifyRequest, body: FormBody): OAuthClientRecord {
  const basic = basicCredentials(request.headers.authorization);
  const bodyId = param(body, 'client_id');
  const bodySecret = param(body, 'client_secret');
  if (basic && bodySecret !== undefined) {
    throw new OAuthError(
      'invalid_request',
      'use one client authentication method, not Basic and client_secret',
    );
  }
  if (basic && bodyId !== undefined && bodyId !== basic.id) {
    throw new OAuthError('invalid_request', 'client_id differs from the client of the Basic credentials');
  }
  const id = basic?.id ?? bodyId;
  const challenge: Record<string, string> = basic ? { 'www-authenticate': 'Basic realm="svc sandbox"' } : {};
  if (id === undefined) throw new OAuthError('invalid_client', 'client_id is required', 401, challenge);
  const client = ctx.state.oauth.clients.get(id);
  if (!client) throw new OAuthError('invalid_client', 'unknown client', 401, challenge);
  if (client.secretHash !== null) {
    const secret = basic?.secret ?? bodySecret;
    if (secret === undefined) {
      throw new OAuthError(
        'invalid_client',
        'this client must authenticate with its client_secret',
        401,
        challenge,
      );
    }
    if (!ctx.state.oauth.secretMatches(client, secret)) {
      throw new OAuthError('invalid_client', 'client authentication failed', 401, challenge);
    }
  }
  return client;
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

interface Grant {
  userId: string;
  tenantIds: string[];
  scopes: string[];
  family: string;
}

/** A signed access token (a sandbox JWT with scope, client_id and fam claims) and, when allowed, a refresh token. */
function issueTokens(ctx: RouteContext, client: OAuthClientRecord, grant: Grant): TokenResponse {
  const { state } = ctx;
  const now = Math.floor(state.clock.now() / 1000);
  const user = state.identity.users.get(grant.userId);
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
      scope: grant.scopes.join(' '),
      client_id: client.client_id,
      fam: grant.family,
    },
    state.jwtSecret,
  );
  const response: TokenResponse = {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: client.token_lifetime_seconds,
    scope: grant.scopes.join(' '),
  };
  if (client.grant_types.includes('refresh_token')) {
    response.refresh_token = state.oauth.issueRefreshToken({
      clientId: client.client_id,
      userId: grant.userId,
      tenantIds: grant.tenantIds,
      scopes: grant.scopes,
      family: grant.family,
      expiresAtMs: state.clock.now() + client.refresh_token_lifetime_seconds * 1000,
    });
  }
  return response;
}

function revokeFamily(ctx: RouteContext, family: string, request: FastifyRequest, detail: string): void {
  const { state } = ctx;
  if (!state.revokedTokenFamilies.has(family)) state.oauth.familiesRevoked++;
  state.revokedTokenFamilies.add(family);
  state.recordSecurityEvent({
    kind: 'oauth_token_family_revoked',
    actor: 'oauth',
    org_id: null,
    tenant_ids: [],
    request_id: request.id,
    detail,
  });
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
      revokeFamily(ctx, entry.family, request, `authorization code of ${client.client_id} presented twice`);
    }
    throw new OAuthError(
      'invalid_grant',
      'the authorization code was already used; the tokens issued with it are revoked',
    );
  }
  // Any presentation by its client uses the code up, so a wrong verifier cannot be retried.
  entry.usedAtMs = state.clock.now();
  if (entry.expiresAtMs <= state.clock.now())
    throw new OAuthError('invalid_grant', 'the authorization code has expired');
  if (entry.redirectUri !== redirectUri) {
    throw new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request');
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
  const family = randomId('fam', 12);
  entry.family = family;
  return issueTokens(ctx, client, {
    userId: entry.userId,
    tenantIds: entry.tenantIds,
    scopes: entry.scopes,
    family,
  });
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
    revokeFamily(ctx, record.family, request, `rotated refresh token of ${client.client_id} presented again`);
    throw new OAuthError(
      'invalid_grant',
      'the refresh token was already used; every token of its family is revoked, log in again',
    );
  }
  if (record.expiresAtMs <= state.clock.now())
    throw new OAuthError('invalid_grant', 'the refresh token has expired');
  let scopes = record.scopes;
  if (scope !== undefined) {
    scopes = scope.split(' ').filter(Boolean);
    const extra = scopes.filter((s) => !record.scopes.includes(s));
    if (scopes.length === 0 || extra.length > 0) {
      throw new OAuthError(
        'invalid_scope',
        `scope may only narrow the original grant (${record.scopes.join(' ')})`,
      );
    }
  }
  const member = new Set(state.identity.memberTenants(record.userId).map((t) => t.id));
  const tenantIds = record.tenantIds.filter((id) => member.has(id));
  if (tenantIds.length === 0) {
    throw new OAuthError('invalid_grant', 'the user no longer belongs to the tenants of this grant');
  }
  record.rotatedAtMs = state.clock.now();
  return issueTokens(ctx, client, { userId: record.userId, tenantIds, scopes, family: record.family });
}

export default function oauthTokenRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.post<{ Body: FormBody }>(
    OAUTH_PATHS.token,
    {
      config: { operation: 'oauth_tokens_issue', idempotent: false },
      attachValidation: true,
      errorHandler: (error, _request, reply) => sendOAuthError(reply, toOAuthError(error)),
      schema: {
        tags: ['oauth'],
        summary: 'Exchange an authorization code or a refresh token',
        description:
          'Form-encoded (application/x-www-form-urlencoded). Client authentication: client_id + client_secret in the body ' +
          '(client_secret_post) or HTTP Basic (client_secret_basic), never both; the first-party client svc-cli is public ' +
          '(client_id only, PKCE). authorization_code: the code is single-use (a second use revokes the tokens issued with it), ' +
          'lives 60 s, and is bound to the client, the redirect_uri and the S256 code_challenge; code_verifier must match, and ' +
          'must be absent when the request had no challenge. refresh_token: rotates on every use; presenting a rotated refresh ' +
          'token revokes its whole family (access tokens included); `scope` may narrow the grant. Errors follow RFC 6749 §5.2 ' +
          '(`{"error","error_description"}`, 400, or 401 for invalid_client), not the sandbox error body. No idempotency key: ' +
          'the OAuth protocol has its own replay rules. (Response body: not shown in the reference; this is RFC 6749 §5.1.)',
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenRequest,
        response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      const body: FormBody = request.body && typeof request.body === 'object' ? request.body : {};
      let grant = 'unknown';
      try {
        if (!request.headers['content-type']?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
          throw new OAuthError('invalid_request', 'send the parameters as application/x-www-form-urlencoded');
        }
        const repeated = Object.entries(body).find(([, value]) => Array.isArray(value));
        if (repeated) throw new OAuthError('invalid_request', `parameter ${repeated[0]} is repeated`);
        const grantType = param(body, 'grant_type');
        grant = grantType ?? 'missing';
        if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
        if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
          throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported`);
        }
        const client = authenticateClient(ctx, request, body);
        if (!client.grant_types.includes(grantType)) {
          throw new OAuthError('unauthorized_client', `this client may not use the ${grantType} grant`);
        }
        const tokens =
          grantType === 'authorization_code'
            ? authorizationCodeGrant(ctx, request, client, body)
            : refreshTokenGrant(ctx, request, client, body);
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
