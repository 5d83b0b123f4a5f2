import type { FastifyInstance } from 'fastify';
import { HEADERS, TENANT_PAGE } from '../../api/constants.js';
import { TenantList, TenantListQuery, type TenantSummary } from '../../api/schemas/tenants.js';
import { visibleTenants } from '../domain/tenants.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.js';
import { errorResponses, type RouteContext } from './context.js';

export default function tenantRoutes(app: FastifyInstance, { state }: RouteContext): void {
  app.get<{ Querystring: TenantListQuery }>(
    '/v1/tenants',
    {
      config: { operation: 'tenants_list' },
      schema: {
        tags: ['tenants'],
        summary: 'List tenants visible to the caller',
        description:
          "Without X-SVC-Org-Id: the credential's tenants where the caller holds a live role. With X-SVC-Org-Id (which must be " +
          "the caller's organisation, else 403 org_forbidden, a security event): the same tenants within that organisation, or — " +
          'for an org_admin calling with its own credential (a JWT, or the first-party svc-cli client) — every tenant of the ' +
          'organisation; such a cross-tenant listing is written to the security events log. Tokens of an OAuth client created in ' +
          'a tenant see that tenant only, whoever approved them. Order: created_at, then id. X-Tenant-Id is optional here. ' +
          'The caller must hold a live role in at least one tenant (else 403 no_tenant_membership).',
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
      const limit = request.query.limit ?? TENANT_PAGE.default;
      const { role, subscription_tier: tier } = request.query;
      const orgHeader = request.headers[HEADERS.org];
      const orgId = typeof orgHeader === 'string' && orgHeader !== '' ? orgHeader : undefined;
      const view = visibleTenants(state, p, orgId, request.id);
      const fingerprint = filterFingerprint({ role, tier, org: orgId, who: p.subject });
      const after = request.query.cursor ? decodeCursor(request.query.cursor, fingerprint) : undefined;
      const matches = (t: (typeof view.source)[number]): boolean =>
        (tier === undefined || t.subscription_tier === tier) &&
        (role === undefined || view.rolesIn(t).includes(role));

      let start = 0;
      if (after) start = view.indexAfter(after.k, after.i);
      const page: typeof view.source = [];
      let more = false;
      for (let i = start; i < view.source.length; i++) {
        const t = view.source[i]!;
        if (!view.inScope(t) || !matches(t)) continue;
        if (page.length === limit) {
          more = true;
          break;
        }
        page.push(t);
      }
      view.logCrossTenant(page);
      const last = page[page.length - 1];
      const items: TenantSummary[] = page.map((t) => ({
        id: t.id,
        slug: t.slug,
        display_name: t.display_name,
        default_currency: t.default_currency,
        time_zone: t.time_zone,
        role: view.roleOf(t) ?? 'none',
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
