import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from './context.js';

const control = { auth: 'public', faultFree: true } as const;
const controlTags = ['sandbox control'];

/** Test controls: the whole audit trail (every tenant), and assignment counts (to check bulk runs). */
export default function roleControlRoutes(app: FastifyInstance, { state }: RouteContext): void {
  app.get<{ Querystring: { tenant_id?: string; user_id?: string; action?: string; limit?: number } }>(
    '/_sandbox/audit-trail',
    {
      config: { ...control, operation: 'sandbox_audit_trail_list' },
      schema: {
        tags: controlTags,
        summary: 'The audit trail of every tenant',
        description:
          'Newest last, across tenants (GET /v1/audit_trail is the platform operation, one tenant at a time). ' +
          'Filters: tenant_id, user_id, action (role.assigned, role.revoked, webhook.created, …).',
        querystring: Type.Object({
          tenant_id: Type.Optional(Type.String()),
          user_id: Type.Optional(Type.String()),
          action: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1000 })),
        }),
      },
    },
    async (request) => {
      const { tenant_id, user_id, action } = request.query;
      const matches = state.audit.entries.filter(
        (e) =>
          (tenant_id === undefined || e.tenant_id === tenant_id) &&
          (user_id === undefined || e.user_id === user_id) &&
          (action === undefined || e.action === action),
      );
      return { total: matches.length, items: matches.slice(-(request.query.limit ?? 1000)) };
    },
  );

  app.get<{ Querystring: { tenant_id?: string; role_id?: string } }>(
    '/_sandbox/assignments',
    {
      config: { ...control, operation: 'sandbox_assignments_count' },
      schema: {
        tags: controlTags,
        summary: 'Count role assignments',
        description:
          'total (every assignment ever made), active, users (distinct users with an active one) and duplicates ' +
          '(user and role pairs with more than one active assignment — always 0 unless something is wrong).',
        querystring: Type.Object({
          tenant_id: Type.Optional(Type.String()),
          role_id: Type.Optional(Type.String()),
        }),
      },
    },
    async (request) => {
      const { tenant_id, role_id } = request.query;
      const now = state.clock.now();
      let total = 0;
      let active = 0;
      const pairs = new Map<string, number>();
      for (const a of state.identity.assignments) {
        if ((tenant_id && a.tenant_id !== tenant_id) || (role_id && a.role_id !== role_id)) continue;
        total++;
        if (!state.identity.isActive(a, now)) continue;
        active++;
        const key = `${a.tenant_id}|${a.user_id}|${a.role_id}`;
        pairs.set(key, (pairs.get(key) ?? 0) + 1);
      }
      const users = new Set([...pairs.keys()].map((k) => k.split('|').slice(0, 2).join('|'))).size;
      const duplicates = [...pairs.values()].filter((n) => n > 1).length;
      return { total, active, users, duplicates };
    },
  );
}
