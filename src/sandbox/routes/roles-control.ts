import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { isoSeconds } from '../../api/time.js';
import { badRequest, notFound } from '../domain/errors.js';
import { expiryMs } from '../domain/grants.js';
import type { RouteContext } from './context.js';

/** Assignments one seeding call may make (a 1 MiB body holds about 10,000). */
const SEED_MAX = 20_000;

const control = { auth: 'public', faultFree: true } as const;
const controlTags = ['sandbox control'];

/**
 * Test controls: the whole audit trail (every tenant), assignment counts (to check bulk runs),
 * and seeding assignments directly (large states for benchmarks, without 100,000 API calls).
 */
export default function roleControlRoutes(app: FastifyInstance, { state }: RouteContext): void {
  app.post<{
    Body: {
      tenant_id: string;
      items: Array<{ user_id: string; role_id: string; expires_at?: string | null }>;
    };
  }>(
    '/_sandbox/assignments',
    {
      config: { ...control, operation: 'sandbox_assignments_seed' },
      schema: {
        tags: controlTags,
        summary: 'Seed role assignments directly',
        description:
          `Makes up to ${SEED_MAX.toLocaleString('en')} assignments in one tenant at once, as seed data: no authorization, no ` +
          'audit entries (assigned_by is "sandbox"). Every user must be a member of the tenant\'s organisation and every role ' +
          'a live tenant role of the tenant; a pair already held, or given twice, is refused (400) and nothing is made.',
        body: Type.Object({
          tenant_id: Type.String(),
          items: Type.Array(
            Type.Object({
              user_id: Type.String({ minLength: 1 }),
              role_id: Type.String({ minLength: 1 }),
              expires_at: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
            }),
            { maxItems: SEED_MAX },
          ),
        }),
      },
    },
    async (request) => {
      const { identity, roles } = state;
      const tenant = identity.tenantsById.get(request.body.tenant_id);
      if (!tenant) throw notFound(`tenant ${request.body.tenant_id}`);
      const now = state.clock.now();
      const seen = new Set<string>();
      const rows = request.body.items.map((item, i) => {
        const user = identity.users.get(item.user_id);
        const role = roles.get(tenant.id, item.role_id);
        const where = `items.${i}`;
        if (!user || user.org_id !== tenant.org_id)
          throw badRequest(`${where}: no user ${item.user_id} in ${tenant.slug}`);
        if (!role || role.deleted_at !== null || role.scope !== 'tenant')
          throw badRequest(`${where}: no live tenant role ${item.role_id} in ${tenant.slug}`);
        const pair = `${user.id}|${role.id}`;
        const held = identity
          .assignmentsOf(user.id, tenant.id)
          .some((a) => a.role_id === role.id && identity.isActive(a, now));
        if (held || seen.has(pair)) throw badRequest(`${where}: ${user.id} already holds ${role.name}`);
        seen.add(pair);
        const expires = item.expires_at ? expiryMs(item.expires_at, `${where}: `) : null;
        if (expires !== null && expires <= now) throw badRequest(`${where}: expires_at is not in the future`);
        return { user, role, expiresAt: expires === null ? null : isoSeconds(expires) };
      });
      const at = state.clock.iso();
      for (const { user, role, expiresAt } of rows) {
        identity.addAssignment({
          user_id: user.id,
          tenant_id: tenant.id,
          role_id: role.id,
          role_name: role.name,
          assigned_by: 'sandbox',
          assigned_at: at,
          expires_at: expiresAt,
          justification: null,
        });
      }
      return { created: rows.length };
    },
  );

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
