import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { isoSeconds } from '../../api/time.js';
import { SandboxClock } from '../clock.js';
import { badRequest, notFound } from '../domain/errors.js';
import type { FaultConfig } from '../plugins/faults.js';
import { RETRY_AFTER_PATTERN } from '../retry-after.js';
import type { RouteContext } from './context.js';

const control = { auth: 'public', faultFree: true } as const;
const tags = ['sandbox control'];

const FaultSchema = Type.Object(
  {
    fail_rate: Type.Number({ minimum: 0, maximum: 1 }),
    fail_status: Type.Integer({ minimum: 500, maximum: 599 }),
    // One schema with two types, not a union: with type coercion on, a union's string branch
    // turned null into "", and a null branch turned "" into null.
    retry_after: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      pattern: RETRY_AFTER_PATTERN,
      description:
        'Retry-After of injected failures and 429s: delay-seconds or an HTTP-date (RFC 9110 §10.2.3); null sends none with injected failures',
    }),
    drop_rate: Type.Number({ minimum: 0, maximum: 1 }),
    latency_ms: Type.Integer({ minimum: 0, maximum: 60_000 }),
    rate_limit: Type.Number({ minimum: 0 }),
    phase: Type.Union([Type.Literal('before'), Type.Literal('after'), Type.Literal('both')]),
    seed: Type.Union([Type.Integer(), Type.Null()]),
  },
  { additionalProperties: false },
);

/**
 * Test controls under /_sandbox: not part of the platform API. Bound to loopback like the rest of
 * the sandbox, and, like the rest, served only to a Host no web page can rebind and changed only
 * from no origin or the sandbox's own (plugins/host-origin.ts); they mint tokens, move the clock,
 * inject faults and expose counters.
 */
export default function controlRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { state, faults } = ctx;
  const stats = new Map<string, number>();
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route.startsWith('/_sandbox')) return;
    const key = `${request.method} ${route} ${reply.statusCode}`;
    stats.set(key, (stats.get(key) ?? 0) + 1);
  });

  app.get(
    '/_sandbox/health',
    { config: { ...control, operation: 'sandbox_health_get' }, schema: { tags, summary: 'Liveness' } },
    async () => ({
      ok: true,
      now: state.clock.iso(),
    }),
  );

  app.get(
    '/_sandbox/users',
    {
      config: { ...control, operation: 'sandbox_users_list' },
      schema: { tags, summary: 'Seeded users and their roles' },
    },
    async () => ({
      items: [...state.identity.users.values()].map((u) => ({
        ...u,
        tenants: state.identity.memberTenants(u.id).map((t) => ({
          id: t.id,
          slug: t.slug,
          roles: state.identity.rolesOf(u.id, t.id),
        })),
      })),
    }),
  );

  app.post<{ Body: { user_id: string; expires_in_seconds?: number; tenant_ids?: string[] } }>(
    '/_sandbox/tokens',
    {
      config: { ...control, operation: 'sandbox_tokens_create' },
      schema: {
        tags,
        summary: 'Mint a user JWT',
        description: "Its tenants claim lists the user's tenants (or tenant_ids, which must be among them).",
        body: Type.Object({
          user_id: Type.String(),
          expires_in_seconds: Type.Optional(Type.Integer({ minimum: -86_400, maximum: 31_536_000 })),
          tenant_ids: Type.Optional(Type.Array(Type.String())),
        }),
      },
    },
    async (request) => {
      const { user_id, expires_in_seconds, tenant_ids } = request.body;
      if (!state.identity.users.has(user_id)) throw notFound(`user ${user_id}`);
      const { token, expiresAt } = ctx.issueToken(user_id, {
        ...(expires_in_seconds === undefined ? {} : { expiresInSeconds: expires_in_seconds }),
        ...(tenant_ids === undefined ? {} : { tenantIds: tenant_ids }),
      });
      return { access_token: token, token_type: 'Bearer', expires_at: expiresAt };
    },
  );

  app.post<{ Body: { tenant_id: string; kind: 'publishable' | 'service_role'; name?: string } }>(
    '/_sandbox/api-keys',
    {
      config: { ...control, operation: 'sandbox_api_keys_create' },
      schema: {
        tags,
        summary: 'Mint an API key for a tenant',
        body: Type.Object({
          tenant_id: Type.String(),
          kind: Type.Union([Type.Literal('publishable'), Type.Literal('service_role')]),
          name: Type.Optional(Type.String()),
        }),
      },
    },
    async (request) => {
      const { tenant_id, kind, name } = request.body;
      if (!state.identity.tenantsById.has(tenant_id)) throw notFound(`tenant ${tenant_id}`);
      const { record, key } = state.identity.createApiKey({
        tenant_id,
        kind,
        name: name ?? `${kind} key`,
        created_by: 'sandbox',
        justification: kind === 'service_role' ? 'minted by a sandbox test control' : null,
      });
      return { id: record.id, key, kind, tenant_id };
    },
  );

  app.get(
    '/_sandbox/faults',
    {
      config: { ...control, operation: 'sandbox_faults_get' },
      schema: { tags, summary: 'Current fault injection' },
    },
    async () => faults.config,
  );
  app.put<{ Body: Partial<FaultConfig> }>(
    '/_sandbox/faults',
    {
      config: { ...control, operation: 'sandbox_faults_update' },
      schema: { tags, summary: 'Change fault injection', body: Type.Partial(FaultSchema) },
    },
    async (request) => faults.update(request.body),
  );

  app.get(
    '/_sandbox/clock',
    {
      config: { ...control, operation: 'sandbox_clock_get' },
      schema: { tags, summary: "The sandbox's clock" },
    },
    async () => ({
      now: state.clock.iso(),
      offset_seconds: state.clock.offsetMs / 1000,
    }),
  );
  app.post<{ Body: { advance_seconds: number } }>(
    '/_sandbox/clock',
    {
      config: { ...control, operation: 'sandbox_clock_advance' },
      schema: {
        tags,
        summary: 'Move the clock forward',
        description:
          'Moves the sandbox clock (expiries, purges, rate limits, retry schedules, record times), not the wall clock: ' +
          "webhook deliveries are signed with the wall clock's time (t of X-SVC-Signature), so receivers still verify them. " +
          'The clock stays before 9999-01-01T00:00:00Z (RFC 3339 times have four-digit years): a larger advance_seconds ' +
          'is 400 invalid_request naming the most it may be, and the clock does not move. It never moves back.',
        body: Type.Object({ advance_seconds: Type.Number({ minimum: 0 }) }),
      },
    },
    async (request) => {
      if (!Number.isFinite(request.body.advance_seconds)) throw badRequest('advance_seconds must be finite');
      // Checked before anything moves: an advance beyond it once left every Date header "Invalid Date".
      const max = Math.floor(state.clock.maxAdvanceMs() / 1000);
      if (request.body.advance_seconds > max) {
        throw badRequest(
          `advance_seconds must be at most ${max}: the sandbox clock stays before ${isoSeconds(SandboxClock.LIMIT_MS)}`,
        );
      }
      state.clock.advance(request.body.advance_seconds * 1000);
      return { now: state.clock.iso(), offset_seconds: state.clock.offsetMs / 1000 };
    },
  );

  app.get(
    '/_sandbox/security-events',
    {
      config: { ...control, operation: 'sandbox_security_events_list' },
      schema: { tags, summary: 'Security events log' },
    },
    async () => ({
      items: state.securityEvents,
    }),
  );

  app.get(
    '/_sandbox/openapi.json',
    {
      config: { ...control, operation: 'sandbox_openapi_get' },
      schema: {
        tags,
        summary: 'This OpenAPI document',
        description:
          'The document `svc sandbox openapi` prints (docs/openapi.json), for tools that read it over HTTP.',
      },
    },
    async () => app.swagger(),
  );

  app.get(
    '/_sandbox/stats',
    {
      config: { ...control, operation: 'sandbox_stats_get' },
      schema: { tags, summary: 'Request counts by route and status' },
    },
    async () => Object.fromEntries([...stats.entries()].sort()),
  );
}
