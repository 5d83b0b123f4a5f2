import type { FastifyInstance } from 'fastify';
import { DEVICE_CODE_GRANT, OAUTH_GRANT_TYPES, OAUTH_PATHS, OAUTH_SCOPES } from '../../api/constants.js';
import { PKCE_METHODS } from '../../api/pkce.js';
import { AuthorizationServerMetadata, OAuthErrorBody, RevocationRequest } from '../../api/schemas/oauth.js';
import { revokeToken } from '../domain/token-revocation.js';
import type { RouteContext } from './context.js';
import {
  authenticateClient,
  formBody,
  NO_STORE,
  OAuthError,
  oauthFormEndpoint,
  param,
  sendOAuthError,
  toOAuthError,
} from './oauth-client-auth.js';

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'];

/**
 * What lets an off-the-shelf OAuth client use the sandbox: its authorization server metadata
 * (RFC 8414), found at the well-known path of the issuer, and token revocation (RFC 7009), which
 * `svc logout` uses to end a session server-side.
 */
export default function oauthServerRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get(
    OAUTH_PATHS.metadata,
    {
      config: { auth: 'public', faultFree: true, operation: 'oauth_metadata_get' },
      schema: {
        tags: ['oauth'],
        summary: 'Authorization server metadata (RFC 8414)',
        description:
          'The issuer is the base URL (the iss of every token and of every authorization response, RFC 9207); ' +
          'PKCE with S256 only; public clients (none) and confidential ones (client_secret_basic, client_secret_post); ' +
          'device authorization (RFC 8628) for terminals that cannot receive a redirect.',
        response: { 200: AuthorizationServerMetadata },
      },
    },
    async () => {
      const issuer = ctx.baseUrl();
      return {
        issuer,
        authorization_endpoint: `${issuer}${OAUTH_PATHS.authorize}`,
        token_endpoint: `${issuer}${OAUTH_PATHS.token}`,
        revocation_endpoint: `${issuer}${OAUTH_PATHS.revoke}`,
        device_authorization_endpoint: `${issuer}${OAUTH_PATHS.deviceAuthorization}`,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: [...OAUTH_GRANT_TYPES, DEVICE_CODE_GRANT],
        code_challenge_methods_supported: [...PKCE_METHODS],
        token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
        revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
        scopes_supported: Object.keys(OAUTH_SCOPES),
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${issuer}/_sandbox/openapi.json`,
      };
    },
  );

  app.post(
    OAUTH_PATHS.revoke,
    {
      ...oauthFormEndpoint('oauth_tokens_revoke'),
      schema: {
        tags: ['oauth'],
        summary: 'Revoke a token (RFC 7009)',
        description:
          'Form-encoded; the client authenticates as at the token endpoint (client_secret_basic, client_secret_post, or ' +
          'client_id alone for the public first-party client). A refresh token or an access token issued to the client ends ' +
          'its whole token family at once: the refresh token and every access token issued with it (RFC 7009 §2.1). An unknown, ' +
          'expired or already revoked token is answered 200 all the same (§2.2); a token issued to another client is refused ' +
          '(400 invalid_request). No idempotency key: revoking twice is revoking once.',
        consumes: ['application/x-www-form-urlencoded'],
        body: RevocationRequest,
        response: {
          200: { type: 'null', description: 'Revoked (or nothing to revoke); no body' },
          400: OAuthErrorBody,
          401: OAuthErrorBody,
        },
      },
    },
    async (request, reply) => {
      try {
        const body = formBody(request);
        const client = authenticateClient(ctx, request, body);
        const token = param(body, 'token');
        if (token === undefined) throw new OAuthError('invalid_request', 'token is required');
        revokeToken(ctx.state, client, token, ctx.baseUrl(), request.id);
        return reply.code(200).headers(NO_STORE).send();
      } catch (error) {
        return sendOAuthError(reply, toOAuthError(error as OAuthError));
      }
    },
  );
}
