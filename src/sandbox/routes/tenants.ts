import type { FastifyInstance } from 'fastify';
import { HEADERS, TENANT_PAGE } from '../../api/constants.js';
import { TenantList, TenantListQuery, type TenantSummary } from '../../api/schemas/tenants.js';
import { primaryRole, type Tenant } from '../domain/identity.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.js';
import { rolesIn } from '../plugins/auth.js';
import { forbidden } from '../problem.js';
import { errorResponses, type RouteContext } from './context.js';

export default function tenantRoutes(app: FastifyInstance, { state }: RouteContext): void {
  app.get<{ Querystring: TenantListQuery }>(
    '/v1/tenants',
    {
      config: { tenant: 'optional', scopes: ['read:tenants'] },
      schema: {
        tags: ['tenants'],
        summary: 'List tenants visible to the caller',
        description:
          "Without X-SVC-Org-Id: the credential's tenants. With X-SVC-Org-Id (which must be the caller's organisation): " +
          'the tenants of that organisation the caller belongs to, or — for an org_admin — every tenant of the organisation; ' +
          'such a cross-tenant listing is written to the security events log. Order: created_at, then id. ' +
          'X-Tenant-Id is optional here. The caller must belong to at least one tenant (else 403 no_tenant_membership).',
        querystring: TenantListQuery,
        headers: {
          type: 'object',
          properties: {
            [HEADERS.org]: {
              type: 'string',
              description: 'Organisation id (cross-tenant listing needs org_admin)',
            },
          },
        },
        response: { 200: TenantList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const p = request.principal!;
      const { identity } = state;
      const limit = request.query.limit ?? TENANT_PAGE.default;
      const { role, subscription_tier: tier } = request.query;
      const orgHeader = request.headers[HEADERS.org];
      const orgId = typeof orgHeader === 'string' && orgHeader !== '' ? orgHeader : undefined;

      const members = p.tenantIds
        .map((id) => identity.tenantsById.get(id))
        .filter((t): t is Tenant => t !== undefined);
      if (members.length === 0) {
        throw forbidden('no_tenant_membership', 'listing tenants needs membership in at least one tenant');
      }
      let crossTenant = false;
      if (orgId !== undefined) {
        if (orgId !== p.orgId || !identity.orgs.has(orgId)) {
          throw forbidden('org_forbidden', `organisation ${orgId} is not yours`);
        }
        crossTenant = p.user !== null && identity.isOrgAdmin(p.user.id, orgId);
      }
      const fingerprint = filterFingerprint({ role, tier, org: orgId, who: p.subject });
      const after = request.query.cursor ? decodeCursor(request.query.cursor, fingerprint) : undefined;

      const roleOf = (t: Tenant) =>
        primaryRole(rolesIn(state, p, t.id)) ?? (crossTenant ? 'org_admin' : undefined);
      const matches = (t: Tenant): boolean =>
        (orgId === undefined || t.org_id === orgId) &&
        (tier === undefined || t.subscription_tier === tier) &&
        (role === undefined || roleOf(t) === role);

      // Org-wide lists walk the global sorted index from the cursor; member lists are short.
      const source = crossTenant
        ? identity.tenants
        : members.sort((a, b) => a.createdMs - b.createdMs || (a.id < b.id ? -1 : 1));
      let start = 0;
      if (after) {
        start = crossTenant
          ? identity.tenantIndexAfter(after.k, after.i)
          : source.findIndex((t) => t.createdMs > after.k || (t.createdMs === after.k && t.id > after.i));
        if (start === -1) start = source.length;
      }
      const page: Tenant[] = [];
      let more = false;
      for (let i = start; i < source.length; i++) {
        const t = source[i]!;
        if (!matches(t)) continue;
        if (page.length === limit) {
          more = true;
          break;
        }
        page.push(t);
      }
      const last = page[page.length - 1];
      if (crossTenant) {
        const foreign = page.filter((t) => !p.tenantIds.includes(t.id)).map((t) => t.id);
        if (foreign.length > 0) {
          state.recordSecurityEvent({
            kind: 'cross_tenant_list',
            actor: p.subject,
            org_id: orgId ?? null,
            tenant_ids: foreign.slice(0, 50),
            request_id: request.id,
            detail: `org_admin listed ${foreign.length} tenant(s) outside the credential's tenants`,
          });
        }
      }
      const items: TenantSummary[] = page.map((t) => ({
        id: t.id,
        slug: t.slug,
        display_name: t.display_name,
        default_currency: t.default_currency,
        time_zone: t.time_zone,
        role: roleOf(t) ?? 'none',
        created_at: t.created_at,
        subscription_tier: t.subscription_tier,
      }));
      return {
        items,
        next_cursor: more && last ? encodeCursor({ k: last.createdMs, i: last.id }, fingerprint) : null,
      };
    },
  );
}
