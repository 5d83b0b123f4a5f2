import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import {
  DELIVERY_FAILURE_CAUSES,
  type DeliveryFailureCause,
  EVENT_TYPES,
  type EventType,
} from '../../api/constants.js';
import { StringEnum } from '../../api/schemas/common.js';
import { DeliverySummary, EventTypeSchema } from '../../api/schemas/webhooks.js';
import { isoSeconds } from '../../api/time.js';
import { type DeliverySettings, fairCaps } from '../delivery/engine.js';
import { pastHistorySpanMs, recordPastOutcome, sampleEventData } from '../delivery/events.js';
import { describeSchedule } from '../delivery/schedule.js';
import { badRequest, notFound } from '../domain/errors.js';
import type { WebhookRecord } from '../domain/webhooks.js';
import type { RouteContext } from './context.js';

const control = { auth: 'public', faultFree: true } as const;
const tags = ['sandbox control'];
/** Events listed in a response; more are counted only. */
const LISTED = 1000;

const EngineSettings = Type.Object(
  {
    time_scale: Type.Number({ minimum: 0, maximum: 1000, description: 'Multiplies the retry schedule' }),
    request_timeout_ms: Type.Integer({ minimum: 1, maximum: 300_000 }),
    concurrency: Type.Integer({
      minimum: 1,
      maximum: 4096,
      description: 'Attempts in flight across every target',
    }),
    per_webhook_concurrency: Type.Union([Type.Integer({ minimum: 1, maximum: 4096 }), Type.Null()], {
      description: 'Attempts in flight per webhook (null: a quarter of concurrency)',
    }),
    per_tenant_concurrency: Type.Union([Type.Integer({ minimum: 1, maximum: 4096 }), Type.Null()], {
      description: 'Attempts in flight per tenant (null: half of concurrency)',
    }),
  },
  { additionalProperties: false },
);

/** The settings in effect (the fairness caps as they apply, whether set or derived). */
function settingsView(s: DeliverySettings) {
  const caps = fairCaps(s);
  return {
    time_scale: s.timeScale,
    request_timeout_ms: s.requestTimeoutMs,
    concurrency: s.concurrency,
    per_webhook_concurrency: caps.webhook,
    per_tenant_concurrency: caps.tenant,
  };
}

/**
 * Webhook test controls under /_sandbox (not platform API): emit events of any kind, fill a
 * dead-letter queue, tune and watch the delivery engine, read a seeded webhook's secret.
 */
export default function webhookControlRoutes(app: FastifyInstance, { state }: RouteContext): void {
  // A clock moved forward makes due retries run now, not at the next timer.
  app.addHook('onResponse', async (request) => {
    if (request.method === 'POST' && request.routeOptions.url === '/_sandbox/clock') state.delivery.kick();
  });

  const webhookById = (id: string): WebhookRecord => {
    const webhook = state.webhooks.byId(id);
    if (!webhook || webhook.deleted_at !== null) throw notFound(`webhook ${id}`);
    return webhook;
  };

  app.post<{
    Body: {
      type: EventType;
      tenant_id?: string;
      webhook_id?: string;
      count?: number;
      data?: Record<string, unknown>;
    };
  }>(
    '/_sandbox/webhooks/events',
    {
      config: { ...control, operation: 'sandbox_webhook_events_create' },
      schema: {
        tags,
        summary: 'Emit events',
        description:
          `Emits count events (default 1) of a kind (${EVENT_TYPES.join(', ')}). With webhook_id, each goes to that webhook only, whatever its kinds ` +
          '(a disabled one is refused: 409 webhook_disabled, nothing is emitted); ' +
          'with tenant_id, to every enabled webhook of the tenant subscribed to the kind. data replaces the generated data. ' +
          `Answers the events and delivery ids (the first ${LISTED}) and how many deliveries were created.`,
        body: Type.Object(
          {
            type: EventTypeSchema,
            tenant_id: Type.Optional(Type.String()),
            webhook_id: Type.Optional(Type.String()),
            count: Type.Optional(Type.Integer({ minimum: 1, maximum: 200_000 })),
            data: Type.Optional(Type.Object({}, { additionalProperties: true })),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            count: Type.Integer({ description: 'Events emitted' }),
            deliveries: Type.Integer({ description: 'Deliveries created (0: no webhook receives the kind)' }),
            events: Type.Array(
              Type.Object({
                id: Type.String(),
                type: Type.String(),
                delivery_ids: Type.Array(Type.String()),
              }),
              { description: `The first ${LISTED} events` },
            ),
            truncated: Type.Boolean({ description: 'More events were emitted than listed' }),
          }),
          400: { $ref: 'ErrorBody#', description: 'Invalid input' },
          404: { $ref: 'ErrorBody#', description: 'Unknown webhook or tenant' },
          409: { $ref: 'ErrorBody#', description: 'webhook_disabled: the webhook is disabled' },
        },
      },
    },
    async (request, reply) => {
      const { type, webhook_id, data } = request.body;
      const only = webhook_id === undefined ? undefined : webhookById(webhook_id);
      const tenantId = only?.tenant_id ?? request.body.tenant_id;
      if (tenantId === undefined) throw badRequest('give tenant_id or webhook_id');
      if (!state.identity.tenantsById.has(tenantId) && !only) throw notFound(`tenant ${tenantId}`);
      const count = request.body.count ?? 1;
      const events: Array<{ id: string; type: string; delivery_ids: string[] }> = [];
      let deliveries = 0;
      for (let i = 0; i < count; i++) {
        const emitted = state.delivery.emit(
          tenantId,
          type,
          data ?? sampleEventData(type, state.clock.now()),
          only,
        );
        deliveries += emitted.deliveries.length;
        if (events.length < LISTED) {
          events.push({
            id: emitted.event.id,
            type,
            delivery_ids: emitted.deliveries.map((d) => d.id),
          });
        }
      }
      return reply.code(201).send({ count, deliveries, events, truncated: count > LISTED });
    },
  );

  app.post<{
    Body: {
      webhook_id: string;
      count: number;
      type?: EventType;
      error_code?: DeliveryFailureCause;
      status_code?: number | null;
    };
  }>(
    '/_sandbox/webhooks/dead-letters',
    {
      config: { ...control, operation: 'sandbox_dead_letters_create' },
      schema: {
        tags,
        summary: 'Fill a dead-letter queue',
        description:
          'Records count deliveries of new events as failed after max_attempts (history only: nothing is sent) and dead-letters them, ' +
          "their attempts spaced as the retry schedule's nominal delays and ending at the sandbox's now (so the queue stays oldest first), " +
          'for benchmarks and demos of bulk replay. Default kind exception.sla.breached, cause 5xx_server_error with status 500.',
        body: Type.Object(
          {
            webhook_id: Type.String(),
            count: Type.Integer({ minimum: 1, maximum: 200_000 }),
            type: Type.Optional(EventTypeSchema),
            error_code: Type.Optional(StringEnum(DELIVERY_FAILURE_CAUSES)),
            status_code: Type.Optional(
              Type.Union([Type.Integer({ minimum: 100, maximum: 599 }), Type.Null()]),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            count: Type.Integer({ description: 'Deliveries dead-lettered' }),
            summary: DeliverySummary,
          }),
          400: { $ref: 'ErrorBody#', description: 'Invalid input' },
          404: { $ref: 'ErrorBody#', description: 'Unknown webhook' },
        },
      },
    },
    async (request, reply) => {
      const webhook = webhookById(request.body.webhook_id);
      const type = request.body.type ?? 'exception.sla.breached';
      const cause = request.body.error_code ?? '5xx_server_error';
      const code =
        request.body.status_code === undefined
          ? cause === '5xx_server_error'
            ? 500
            : null
          : request.body.status_code;
      // The history ends now (its last attempt, and the dead-lettering, at the sandbox's now), so
      // the queue stays oldest first and --since/--until agree with the times shown.
      const from = state.clock.now() - pastHistorySpanMs(webhook.max_attempts);
      const at = isoSeconds(from);
      for (let i = 0; i < request.body.count; i++) {
        const event = state.webhooks.createEvent(webhook.tenant_id, type, sampleEventData(type, from), at);
        const delivery = state.webhooks.createDelivery(webhook, event, { createdAt: at });
        recordPastOutcome(state.webhooks, delivery, 'failed', from, {
          code,
          cause,
          error: `${cause}: ${code === null ? 'recorded by /_sandbox/webhooks/dead-letters' : `the target answered ${code}`}`,
        });
      }
      return reply.code(201).send({ count: request.body.count, summary: state.webhooks.summary(webhook.id) });
    },
  );

  app.get(
    '/_sandbox/webhooks/engine',
    {
      config: { ...control, operation: 'sandbox_engine_get' },
      schema: { tags, summary: 'Delivery engine settings, schedule and counters' },
    },
    async () => ({
      settings: settingsView(state.delivery.settings),
      schedule: describeSchedule(5),
      stats: { ...state.delivery.currentStats(), unsettled: state.delivery.unsettled },
    }),
  );

  app.put<{
    Body: Partial<{
      time_scale: number;
      request_timeout_ms: number;
      concurrency: number;
      per_webhook_concurrency: number | null;
      per_tenant_concurrency: number | null;
    }>;
  }>(
    '/_sandbox/webhooks/engine',
    {
      config: { ...control, operation: 'sandbox_engine_update' },
      schema: { tags, summary: 'Change delivery engine settings', body: Type.Partial(EngineSettings) },
    },
    async (request) => {
      const b = request.body;
      const settings = state.delivery.configure({
        ...(b.time_scale === undefined ? {} : { timeScale: b.time_scale }),
        ...(b.request_timeout_ms === undefined ? {} : { requestTimeoutMs: b.request_timeout_ms }),
        ...(b.concurrency === undefined ? {} : { concurrency: b.concurrency }),
        ...(b.per_webhook_concurrency === undefined
          ? {}
          : { perWebhookConcurrency: b.per_webhook_concurrency }),
        ...(b.per_tenant_concurrency === undefined ? {} : { perTenantConcurrency: b.per_tenant_concurrency }),
      });
      return { settings: settingsView(settings) };
    },
  );

  app.post<{ Body: { timeout_ms?: number } }>(
    '/_sandbox/webhooks/settle',
    {
      config: { ...control, operation: 'sandbox_deliveries_settle' },
      schema: {
        tags,
        summary: 'Wait until every delivery is delivered or failed',
        description:
          'Answers when nothing is pending or retrying, or after timeout_ms (default 10000) with settled false.',
        body: Type.Object({ timeout_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })) }),
      },
    },
    async (request) => {
      const settled = await state.delivery.settled(request.body?.timeout_ms ?? 10_000);
      return { settled, stats: { ...state.delivery.currentStats(), unsettled: state.delivery.unsettled } };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/_sandbox/webhooks/:id/secret',
    {
      config: { ...control, operation: 'sandbox_webhook_secrets_get' },
      schema: {
        tags,
        summary: "A webhook's signing secrets",
        description:
          'For seeded webhooks, whose secret nobody was shown: the current secret and the one the last rotation replaced.',
        params: Type.Object({ id: Type.String() }),
      },
    },
    async (request) => {
      const webhook = webhookById(request.params.id);
      return {
        id: webhook.id,
        secret: webhook.secret,
        previous_secret: webhook.rotatedOut.at(-1)?.secret ?? null,
      };
    },
  );
}
