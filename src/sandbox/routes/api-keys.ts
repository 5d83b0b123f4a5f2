import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  ApiKeyCreateBody,
  ApiKeyCreated,
  ApiKeyItemParams,
  ApiKeyList,
  ApiKeyParams,
} from '../../api/schemas/api-keys.js';
import type { ApiKey, Tenant } from '../domain/identity.js';
import { rolesIn } from '../plugins/auth.js';
import { ApiProblem, forbidden, notFound } from '../problem.js';
import { errorResponses, type RouteContext } from './context.js';

export const API_KEY_WARNING = 'Store this key now: it is shown only once and cannot be retrieved later.';

function publicKey(key: ApiKey) {
  const { hash: _hash, ...rest } = key;
  return rest;
}

/**
 * The tenant named in the path, checked like X-Tenant-Id is elsewhere: it must be one of the
 * credential's tenants, the caller must be its tenant_admin, and a user must call (API keys
 * cannot mint or revoke keys, so a leaked key cannot make itself permanent).
 */
function adminTenant(ctx: RouteContext, request: FastifyRequest<{ Params: { id: string } }>): Tenant {
  const principal = request.principal!;
  const tenant = ctx.state.identity.tenantsById.get(request.params.id);
  if (!tenant || !principal.tenantIds.includes(tenant.id)) {
    throw forbidden(
      'tenant_forbidden',
      `tenant ${request.params.id} is not one of your credential's tenants`,
    );
  }
  if (request.tenant && request.tenant.id !== tenant.id) {
    throw new ApiProblem(400, 'tenant_mismatch', 'X-Tenant-Id and the tenant in the path differ');
  }
  if (!principal.user)
    throw forbidden('user_required', 'API keys are managed by users, not by other API keys');
  if (!rolesIn(ctx.state, principal, tenant.id).includes('tenant_admin')) {
    throw forbidden(
      'insufficient_role',
      `managing API keys needs role tenant_admin in tenant ${tenant.slug}`,
    );
  }
  return tenant;
}

export default function apiKeyRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { state } = ctx;
  const tags = ['api keys'];

  app.post<{ Params: { id: string }; Body: ApiKeyCreateBody }>(
    '/v1/tenants/:id/api-keys',
    {
      config: { tenant: 'optional' },
      schema: {
        tags,
        summary: 'Issue an API key for a tenant',
        description:
          "Request and response bodies are not shown in the reference; these are the sandbox's choices. " +
          'The key is a bearer credential usable at once, bound to the tenant: publishable keys (svc_pk_…) read with ' +
          'the permissions of tenant_viewer; service-role keys (svc_sk_…) act as tenant_admin and need a justification ' +
          '(at least 10 characters), which is written with every call made with the key to the security events log. ' +
          'Caller: a user (not an API key) holding tenant_admin in the tenant. Idempotency key required. The key is ' +
          'returned once, with a warning; only its hash is stored.',
        params: ApiKeyParams,
        body: ApiKeyCreateBody,
        response: { 201: ApiKeyCreated, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const tenant = adminTenant(ctx, request);
      const { kind, name, justification } = request.body;
      if (kind === 'service_role' && !justification?.trim()) {
        throw new ApiProblem(400, 'justification_required', 'a service_role key needs a justification', {
          details: [{ field: 'justification', message: 'is required for service_role keys' }],
        });
      }
      const { record, key } = state.identity.createApiKey({
        tenant_id: tenant.id,
        kind,
        name: name ?? `${kind === 'publishable' ? 'Publishable' : 'Service-role'} key`,
        created_by: request.principal!.subject,
        justification: justification?.trim() ?? null,
      });
      return reply.code(201).send({ ...publicKey(record), key, warning: API_KEY_WARNING });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/tenants/:id/api-keys',
    {
      config: { tenant: 'optional' },
      schema: {
        tags,
        summary: "List a tenant's API keys",
        description:
          'Not in the reference. Newest first, revoked keys included; keys themselves are never returned.',
        params: ApiKeyParams,
        response: { 200: ApiKeyList, ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ items: state.identity.apiKeysOf(adminTenant(ctx, request).id).map(publicKey) }),
  );

  app.delete<{ Params: { id: string; keyId: string } }>(
    '/v1/tenants/:id/api-keys/:keyId',
    {
      config: { tenant: 'optional' },
      schema: {
        tags,
        summary: 'Revoke an API key',
        description:
          'Not in the reference. The key stops working at once; revoking twice returns the same record.',
        params: ApiKeyItemParams,
        response: { 200: { $ref: 'ApiKey#' }, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const tenant = adminTenant(ctx, request);
      const key = state.identity.apiKeyById(tenant.id, request.params.keyId);
      if (!key) throw notFound(`API key ${request.params.keyId}`);
      key.revoked_at ??= state.clock.iso();
      return publicKey(key);
    },
  );
}
