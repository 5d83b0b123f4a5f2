import type { FastifyInstance } from 'fastify';
import {
  ApiKeyCreateBody,
  ApiKeyCreated,
  ApiKeyItemParams,
  ApiKeyList,
  ApiKeyParams,
} from '../../api/schemas/api-keys.js';
import { API_KEY_WARNING, issueApiKey, listApiKeys, publicKey, revokeApiKey } from '../domain/api-keys.js';
import { errorResponses, type RouteContext } from './context.js';

export default function apiKeyRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { state } = ctx;
  const tags = ['api keys'];

  app.post<{ Params: { id: string }; Body: ApiKeyCreateBody }>(
    '/v1/tenants/:id/api-keys',
    {
      config: { operation: 'api_keys_create' },
      schema: {
        tags,
        summary: 'Issue an API key for a tenant',
        description:
          "Request and response bodies are not shown in the reference; these are the sandbox's choices. " +
          'The key is a bearer credential usable at once, bound to the tenant: publishable keys (svc_pk_…) read with ' +
          'the permissions of tenant_viewer; service-role keys (svc_sk_…) act as tenant_admin and need a justification ' +
          '(at least 10 characters besides surrounding spaces), which is written with every call made with the key to the security events log. ' +
          'Caller: a user with their own login (not an API key, nor a third-party OAuth client’s token acting for the user: 403 user_required, a key would outlive the client; the first-party svc-cli login may) with permission api_key.manage who holds every permission of the role the key acts as ' +
          '(403 insufficient_permission), without an end date: a key lasts until it is revoked, so a caller who holds them only until some time (a just-in-time grant) is refused ' +
          '(403 insufficient_permission naming until when); and api_key.manage itself held without an end date, the one rule of every standing credential ' +
          '(an OAuth client’s secret when rotated, a webhook’s signing secret): a just-in-time api_key.manage is 403 insufficient_permission naming until when. ' +
          'Idempotency key required. The key is returned once, with a warning; only its hash is stored.',
        params: ApiKeyParams,
        body: ApiKeyCreateBody,
        response: { 201: ApiKeyCreated, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const { kind, name, justification } = request.body;
      const { record, key } = issueApiKey(
        state,
        request.principal!,
        request.tenant!,
        {
          kind,
          name,
          justification,
        },
        request.id,
      );
      return reply.code(201).send({ ...publicKey(state, record), key, warning: API_KEY_WARNING });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/tenants/:id/api-keys',
    {
      config: { operation: 'api_keys_list' },
      schema: {
        tags,
        summary: "List a tenant's API keys",
        description:
          'Not in the reference. Newest first, revoked keys included; keys themselves are never returned. ' +
          'Only the keys the caller may manage: those whose role (tenant_viewer for publishable, tenant_admin for service-role keys) grants nothing the caller lacks, so a key manager without every permission of tenant_admin sees no service-role key, nor its justification; `withheld` counts the keys left out, so an empty list is never read as a tenant without keys. The audit trail is not filtered so: its api_key entries name every key issued or revoked (id, name, prefix, justification, never the key) to whoever may read the trail (audit_trail.read), since a record of changes must not leave any out.',
        params: ApiKeyParams,
        response: { 200: ApiKeyList, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const { items, withheld } = listApiKeys(state, request.principal!, request.tenant!);
      return { items: items.map((k) => publicKey(state, k)), withheld };
    },
  );

  app.delete<{ Params: { id: string; keyId: string } }>(
    '/v1/tenants/:id/api-keys/:keyId',
    {
      config: { operation: 'api_keys_revoke' },
      schema: {
        tags,
        summary: 'Revoke an API key',
        description:
          'Not in the reference. The key stops working at once (an audit-trail entry says who revoked it); revoking twice returns the same record. ' +
          'The caller must hold every permission of the role the key acts as, as to issue it (403 insufficient_permission naming what they lack; the key keeps working).',
        params: ApiKeyItemParams,
        response: { 200: { $ref: 'ApiKey#' }, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      publicKey(
        state,
        revokeApiKey(state, request.principal!, request.tenant!, request.params.keyId, request.id),
      ),
  );
}
