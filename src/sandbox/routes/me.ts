import type { FastifyInstance } from 'fastify';
import { livePermissions, liveRoleNames, liveTenants, thirdPartyClient } from '../domain/authorization.js';
import { primaryRole } from '../domain/identity.js';
import type { SandboxState } from '../state.js';
import type { Principal } from '../types.js';
import { errorResponses, type RouteContext } from './context.js';

export default function meRoutes(app: FastifyInstance, { state }: RouteContext): void {
  app.get(
    '/v1/me',
    {
      config: { operation: 'me_get' },
      schema: {
        tags: ['identity'],
        summary: 'The calling identity',
        description:
          'Who the credential belongs to, its organisation, and the tenants of the credential where the caller holds a live role ' +
          '(with its highest role in each): after a revocation or an expiry a tenant leaves this list at once, and a caller with ' +
          'no live role gets an empty list (and tenant_id null) — the identity is still true, the authority is gone. ' +
          "X-Tenant-Id is optional here; when sent it must be one of the credential's tenants, and it becomes tenant_id. " +
          "permissions: what the caller's live roles grant in that tenant now (a sandbox addition). " +
          "(Response body: not shown in the reference; this is the sandbox's choice.)",
        response: { 200: { $ref: 'Me#' }, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const p = request.principal!;
      const tenants = liveTenants(state, p).map((t) => ({
        id: t.id,
        slug: t.slug,
        display_name: t.display_name,
        role: primaryRole(liveRoleNames(state, p, t.id)) ?? 'none',
      }));
      const org = p.orgId ? state.identity.orgs.get(p.orgId) : undefined;
      const isKey = p.user === null;
      const tenantId = request.tenant?.id ?? tenants[0]?.id ?? null;
      return {
        id: p.subject,
        type: isKey ? 'api_key' : 'user',
        // A key by its own name (given at creation; a kind's default otherwise).
        name: p.user?.name ?? keyName(state, p),
        email: p.user?.email ?? null,
        tenant_id: tenantId,
        // What the caller may do there now, so a client's dry run predicts what needs no role
        // reading (role.read): a replay's read permission (svc webhooks replay --dry-run).
        permissions: tenantId === null ? [] : [...livePermissions(state, p, tenantId)].sort(),
        tenants,
        org: org
          ? {
              id: org.id,
              name: org.name,
              role: p.user && state.identity.isOrgAdmin(p.user.id, org.id) ? 'org_admin' : null,
            }
          : null,
        credential: {
          kind: p.kind,
          expires_at: p.expiresAtMs === null ? null : state.clock.iso(p.expiresAtMs),
          scopes: p.scopes,
          // A third party's client (not svc-cli) is refused what only users may do (user_required):
          // said, so a client predicts it (svc plan) as it does a key's refusals.
          ...(p.clientId ? { client_id: p.clientId, third_party: thirdPartyClient(p) !== null } : {}),
          // A key is seen through to its issuer (self_assignment): say who, so a client can predict it.
          ...(isKey ? { issued_by: p.issuedBy ?? null } : {}),
        },
      };
    },
  );
}

/** An API key's own name, as its record has it; a kind's name and the id for a key not found. */
function keyName(state: SandboxState, p: Principal): string {
  const tenant = p.tenantIds[0];
  const record = tenant === undefined ? undefined : state.identity.apiKeyById(tenant, p.subject);
  return record?.name ?? `${p.kind === 'publishable_key' ? 'Publishable' : 'Service-role'} key ${p.subject}`;
}
