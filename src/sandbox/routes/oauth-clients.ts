import type { FastifyInstance } from 'fastify';
import {
  OAuthClientCreateBody,
  OAuthClientList,
  OAuthClientParams,
  OAuthClientWithSecret,
  RotateSecretBody,
} from '../../api/schemas/oauth.js';
import { notFound } from '../domain/errors.js';
import { clientInput, type OAuthClientRecord, publicClient } from '../domain/oauth.js';
import { errorResponses, type RouteContext } from './context.js';

const WARNING =
  'Store the client_secret now: it is shown only in this response and cannot be retrieved again (rotate it if lost).';

function withSecret(client: OAuthClientRecord, secret: string) {
  return { ...publicClient(client), client_secret: secret, warning: WARNING };
}

export default function oauthClientRoutes(app: FastifyInstance, { state }: RouteContext): void {
  const clientOf = (tenantId: string, clientId: string): OAuthClientRecord => {
    const client = state.oauth.clients.get(clientId);
    if (!client || client.tenant_id !== tenantId) throw notFound(`OAuth client ${clientId}`);
    return client;
  };

  app.post<{ Body: OAuthClientCreateBody }>(
    '/v1/oauth/clients',
    {
      config: { operation: 'oauth_clients_create' },
      schema: {
        tags: ['oauth'],
        summary: 'Create an OAuth client',
        description:
          'Permission oauth_client.manage (tenant_admin has it); idempotency key required. Required fields: name, redirect_uris, scopes (the reference does not ' +
          'say). Defaults: grant_types both, token_lifetime_seconds 3600 (60 to 86400), refresh_token_lifetime_seconds ' +
          '2592000 (300 to 31536000, at least the access token lifetime), pkce_required true. Redirect URIs: absolute, https, ' +
          'or http on a loopback host only; no fragment. The secret (svc_cs_…, 256 random bits) is returned once, with ' +
          '`warning`; only its SHA-256 is kept. Tokens of the client act only in the tenant it was created in (even with ' +
          "X-SVC-Org-Id, and whoever approved them) and only as far as the approving user's live roles and the token's scopes allow.",
        body: OAuthClientCreateBody,
        response: { 201: OAuthClientWithSecret, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const { client, secret } = state.oauth.createClient(
        request.tenant!.id,
        clientInput(request.body),
        request.principal!.subject,
      );
      return reply.code(201).send(withSecret(client, secret));
    },
  );

  app.get(
    '/v1/oauth/clients',
    {
      config: { operation: 'oauth_clients_list' },
      schema: {
        tags: ['oauth'],
        summary: "List the tenant's OAuth clients",
        description: 'Never shows secrets. (Not in the reference.)',
        response: { 200: OAuthClientList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => ({
      items: [...state.oauth.clients.values()]
        .filter((c) => c.tenant_id === request.tenant!.id)
        .map(publicClient),
      next_cursor: null,
    }),
  );

  app.get<{ Params: { client_id: string } }>(
    '/v1/oauth/clients/:client_id',
    {
      config: { operation: 'oauth_clients_get' },
      schema: {
        tags: ['oauth'],
        summary: 'Fetch an OAuth client',
        description: 'Never shows the secret. (Not in the reference.)',
        params: OAuthClientParams,
        response: { 200: { $ref: 'OAuthClient#' }, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => publicClient(clientOf(request.tenant!.id, request.params.client_id)),
  );

  app.post<{ Params: { client_id: string } }>(
    '/v1/oauth/clients/:client_id/rotate-secret',
    {
      config: { operation: 'oauth_clients_rotate_secret' },
      schema: {
        tags: ['oauth'],
        summary: "Rotate an OAuth client's secret",
        description:
          'Idempotency key required. The reference shows secret_rotated_at but hides this operation ' +
          '(x-not-in-reference). The new secret is returned once with `warning`; the old one stops working at once; tokens ' +
          'already issued stay valid. secret_rotated_at becomes the rotation time.',
        params: OAuthClientParams,
        body: RotateSecretBody,
        response: { 200: OAuthClientWithSecret, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const client = clientOf(request.tenant!.id, request.params.client_id);
      return withSecret(client, state.oauth.rotateSecret(client));
    },
  );
}
