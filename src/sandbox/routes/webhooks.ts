import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { DELIVERY_PAGE, DLQ_PAGE, type EventType } from '../../api/constants.js';
import { IdempotencyKey } from '../../api/schemas/common.js';
import {
  DeliveryList,
  type DeliveryListQuery,
  DeliveryListQuery as DeliveryListQuerySchema,
  DeliveryParams,
  DlqEntryParams,
  DlqList,
  type DlqListQuery,
  DlqListQuery as DlqListQuerySchema,
  TestEventBody,
  TestEventResult,
  WebhookCreateBody,
  WebhookDeliveryDetail,
  WebhookList,
  WebhookParams,
  WebhookUpdateBody,
  WebhookWithSecret,
} from '../../api/schemas/webhooks.js';
import { sampleEventData } from '../delivery/events.js';
import { describeSchedule } from '../delivery/schedule.js';
import { badRequest, notFound } from '../domain/errors.js';
import { deliveryView, dlqView, type WebhookRecord, webhookView } from '../domain/webhooks.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.js';
import type { SandboxState } from '../state.js';
import { errorResponses, type RouteContext } from './context.js';

const tags = ['webhooks'];
const HIDDEN =
  'x-svc-not-in-reference: the reference says "Operations to create, update or delete a webhook subscription: not shown"; ' +
  "this operation is the sandbox's.";
const SECRET_WARNING = 'Store the signing secret now: it is not shown again (rotate it to get a new one).';

export function checkTargetUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('url is not a valid URL', [{ field: 'url', message: 'is not a valid URL' }]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badRequest('url must be an http or https URL', [
      { field: 'url', message: 'must use http or https' },
    ]);
  }
  if (url.username || url.password) {
    throw badRequest('url must not carry credentials', [{ field: 'url', message: 'has a user or password' }]);
  }
  return url.href;
}

function webhookOf(state: SandboxState, tenantId: string, id: string): WebhookRecord {
  const webhook = state.webhooks.get(tenantId, id);
  if (!webhook) throw notFound(`webhook ${id}`);
  return webhook;
}

function timeParam(field: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const ms = Date.parse(raw);
  if (Number.isNaN(ms))
    throw badRequest(`${field} is not a timestamp`, [{ field, message: 'is not ISO 8601' }]);
  return ms;
}

/** The platform's /v1/webhooks endpoints: webhook.read to look, webhook.manage to change or send. */
export default function webhookRoutes(app: FastifyInstance, { state }: RouteContext): void {
  app.addHook('onClose', async () => state.delivery.close());

  app.get<{ Querystring: { limit?: number; cursor?: string } }>(
    '/v1/webhooks',
    {
      config: { operation: 'webhooks_list' },
      schema: {
        tags,
        summary: 'List webhooks',
        description:
          "The tenant's webhooks, oldest first. The reference shows no response body; this is the sandbox's: items and next_cursor. Secrets are never listed.",
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
          cursor: Type.Optional(Type.String({ maxLength: 2048 })),
        }),
        response: { 200: WebhookList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const fingerprint = filterFingerprint({ what: 'webhooks' });
      const after = request.query.cursor ? decodeCursor(request.query.cursor, fingerprint) : undefined;
      const all = state.webhooks.list(request.tenant!.id).filter((w) => !after || w.seq > after.k);
      const page = all.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map(webhookView),
        next_cursor:
          all.length > limit && last ? encodeCursor({ k: last.seq, i: last.id }, fingerprint) : null,
      };
    },
  );

  app.post<{ Body: WebhookCreateBody }>(
    '/v1/webhooks',
    {
      config: { operation: 'webhooks_create' },
      schema: {
        tags,
        summary: 'Create a webhook',
        description: `${HIDDEN} Returns the signing secret once (with a warning). max_attempts defaults to 5.`,
        body: WebhookCreateBody,
        response: { 201: WebhookWithSecret, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const url = checkTargetUrl(body.url);
      const webhook = state.webhooks.create(request.tenant!.id, { ...body, url });
      return reply
        .code(201)
        .send({ ...webhookView(webhook), secret: webhook.secret, warning: SECRET_WARNING });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/webhooks/:id',
    {
      config: { operation: 'webhooks_get' },
      schema: {
        tags,
        summary: 'Fetch one webhook',
        description: 'Not in the reference (its fields are "not shown"); the secret is never returned here.',
        params: WebhookParams,
        response: { 200: Type.Ref('Webhook'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => webhookView(webhookOf(state, request.tenant!.id, request.params.id)),
  );

  app.patch<{ Params: { id: string }; Body: WebhookUpdateBody }>(
    '/v1/webhooks/:id',
    {
      config: { operation: 'webhooks_update' },
      schema: {
        tags,
        summary: 'Update a webhook',
        description: `${HIDDEN} Changes apply to deliveries created afterwards; a disabled webhook receives no new events.`,
        params: WebhookParams,
        body: WebhookUpdateBody,
        response: { 200: Type.Ref('Webhook'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const change = { ...request.body };
      if (change.url !== undefined) change.url = checkTargetUrl(change.url);
      return webhookView(state.webhooks.update(webhook, change));
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/webhooks/:id',
    {
      config: { operation: 'webhooks_delete' },
      schema: {
        tags,
        summary: 'Delete a webhook',
        description: `${HIDDEN} A soft delete: the webhook disappears from every endpoint, and its deliveries still waiting for an attempt are cancelled (failed, not dead-lettered).`,
        params: WebhookParams,
        response: {
          200: Type.Object({ id: Type.String(), deleted: Type.Literal(true), deleted_at: Type.String() }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => {
      const webhook = state.webhooks.softDelete(webhookOf(state, request.tenant!.id, request.params.id));
      state.delivery.kick();
      return { id: webhook.id, deleted: true as const, deleted_at: webhook.deleted_at! };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/v1/webhooks/:id/rotate-secret',
    {
      config: { operation: 'webhooks_rotate_secret' },
      schema: {
        tags,
        summary: 'Rotate the signing secret',
        description:
          'Not in the reference ("how a webhook secret is issued or rotated: not shown"). Returns the new secret once. ' +
          'For 24 hours every delivery carries two v1 signatures, one per secret, so receivers can switch without losing events.',
        params: WebhookParams,
        body: Type.Object({ idempotency_key: IdempotencyKey }),
        response: { 200: WebhookWithSecret, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const webhook = state.webhooks.rotateSecret(webhookOf(state, request.tenant!.id, request.params.id));
      return { ...webhookView(webhook), secret: webhook.secret, warning: SECRET_WARNING };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/v1/webhooks/:id/restore-secret',
    {
      config: { operation: 'webhooks_restore_secret' },
      schema: {
        tags,
        summary: 'Undo the last secret rotation',
        description:
          'Not in the reference. While the secret a rotation replaced still signs (24 hours), puts it back as the only ' +
          'current secret (with any secret that was being rotated out before, as it was); the secret the rotation issued ' +
          'stops working at once. Receivers that kept the old secret never notice. 409 conflict when there is no rotation ' +
          'to undo. `svc webhooks listen --webhook` rotates to learn a secret for its session and restores it this way.',
        params: WebhookParams,
        body: Type.Object({ idempotency_key: IdempotencyKey }),
        response: { 200: Type.Ref('Webhook'), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      webhookView(state.webhooks.restoreSecret(webhookOf(state, request.tenant!.id, request.params.id))),
  );

  app.get<{ Params: { id: string }; Querystring: DeliveryListQuery }>(
    '/v1/webhooks/:id/deliveries',
    {
      config: { operation: 'webhook_deliveries_list' },
      schema: {
        tags,
        summary: 'List deliveries of a webhook',
        description:
          `Most recent first. limit: default ${DELIVERY_PAGE.default}, maximum ${DELIVERY_PAGE.max} (the reference shows neither). ` +
          'status filters by state (pending, retrying, delivered, failed, or in_flight for pending and retrying). ' +
          'summary counts every delivery of the webhook, whatever the filter and page. next_cursor pages further (sandbox addition).',
        params: WebhookParams,
        querystring: DeliveryListQuerySchema,
        response: { 200: DeliveryList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const { status, cursor } = request.query;
      const limit = request.query.limit ?? DELIVERY_PAGE.default;
      const fingerprint = filterFingerprint({ webhook: webhook.id, status });
      const before = cursor ? decodeCursor(cursor, fingerprint).k : undefined;
      const { page, more } = state.webhooks.listDeliveries(webhook.id, status, limit, before);
      const last = page[page.length - 1];
      return {
        items: page.map(deliveryView),
        summary: state.webhooks.summary(webhook.id),
        next_cursor: more && last ? encodeCursor({ k: last.seq, i: last.id }, fingerprint) : null,
      };
    },
  );

  app.get<{ Params: { id: string; deliveryId: string } }>(
    '/v1/webhooks/:id/deliveries/:deliveryId',
    {
      config: { operation: 'webhook_deliveries_get' },
      schema: {
        tags,
        summary: 'Fetch one delivery with its attempts',
        description: 'Not in the reference: the delivery record plus every attempt made (oldest first).',
        params: DeliveryParams,
        response: { 200: WebhookDeliveryDetail, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const delivery = state.webhooks.delivery(webhook.id, request.params.deliveryId);
      if (!delivery) throw notFound(`delivery ${request.params.deliveryId}`);
      return { ...deliveryView(delivery), attempts: delivery.attempts };
    },
  );

  app.get<{ Params: { id: string; deliveryId: string } }>(
    '/v1/webhooks/:id/deliveries/:deliveryId/payload',
    {
      config: { operation: 'webhook_deliveries_get_payload' },
      schema: {
        tags,
        summary: 'The payload of a delivery, byte for byte',
        description:
          'Not in the reference: the exact bytes every attempt (and every replay) of this delivery sends, for inspecting a payload a target rejected.',
        params: DeliveryParams,
        response: { 200: Type.Ref('WebhookEventPayload'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const delivery = state.webhooks.delivery(webhook.id, request.params.deliveryId);
      if (!delivery) throw notFound(`delivery ${request.params.deliveryId}`);
      return reply.type('application/json').send(delivery.event.payload);
    },
  );

  app.post<{ Params: { id: string; deliveryId: string } }>(
    '/v1/webhooks/:id/deliveries/:deliveryId/replay',
    {
      config: { operation: 'webhook_deliveries_replay' },
      schema: {
        tags,
        summary: 'Replay a delivery',
        description:
          'Rule 1: creates a new delivery (a new id, replay_of naming the original) of the same event with a byte-identical payload, ' +
          'attempt_count 0, and a fresh signature timestamp on its attempts; it is sent at once and retried like any delivery. ' +
          'The DLQ entry of the original, if any, becomes status replayed (replay_count, last_replayed_at, last_replay_delivery_id). ' +
          'The response body (not shown in the reference) is the new delivery. A delivery still pending or retrying cannot be replayed (409 delivery_in_progress).',
        params: DeliveryParams,
        body: Type.Object({ idempotency_key: IdempotencyKey }),
        response: { 201: Type.Ref('WebhookDelivery'), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const original = state.webhooks.delivery(webhook.id, request.params.deliveryId);
      if (!original) throw notFound(`delivery ${request.params.deliveryId}`);
      const { delivery } = state.delivery.replay(original);
      return reply.code(201).send(deliveryView(delivery));
    },
  );

  app.get<{ Params: { id: string }; Querystring: DlqListQuery }>(
    '/v1/webhooks/:id/dlq',
    {
      config: { operation: 'webhook_dlq_list' },
      schema: {
        tags,
        summary: 'List the dead-letter queue of a webhook',
        description:
          "Permanently failed deliveries (max_attempts used up), oldest first. Query parameters and body are not shown in the reference; the sandbox's: " +
          `limit (default ${DLQ_PAGE.default}, maximum ${DLQ_PAGE.max}), cursor, status (queued by default; replayed, discarded or all), ` +
          'event_type, since and until (on dead_lettered_at). total counts the matching entries over every page. ' +
          'Replay an entry with POST …/deliveries/{delivery_id}/replay; discard it with DELETE …/dlq/{entry_id}.',
        params: WebhookParams,
        querystring: DlqListQuerySchema,
        response: { 200: DlqList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const q = request.query;
      const limit = q.limit ?? DLQ_PAGE.default;
      const status = q.status ?? 'queued';
      const sinceMs = timeParam('since', q.since);
      const untilMs = timeParam('until', q.until);
      const fingerprint = filterFingerprint({
        webhook: webhook.id,
        status,
        type: q.event_type,
        since: sinceMs,
        until: untilMs,
      });
      const after = q.cursor ? decodeCursor(q.cursor, fingerprint).k : undefined;
      const { page, more, total } = state.webhooks.listDlq(
        webhook.id,
        {
          status,
          ...(q.event_type === undefined ? {} : { eventType: q.event_type }),
          ...(sinceMs === undefined ? {} : { sinceMs }),
          ...(untilMs === undefined ? {} : { untilMs }),
        },
        limit,
        after,
      );
      const last = page[page.length - 1];
      return {
        items: page.map(dlqView),
        total,
        next_cursor: more && last ? encodeCursor({ k: last.seq, i: last.id }, fingerprint) : null,
      };
    },
  );

  app.get<{ Params: { id: string; entryId: string } }>(
    '/v1/webhooks/:id/dlq/:entryId',
    {
      config: { operation: 'webhook_dlq_get' },
      schema: {
        tags,
        summary: 'Fetch one dead-letter queue entry',
        description: 'Not in the reference.',
        params: DlqEntryParams,
        response: { 200: Type.Ref('DlqEntry'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const entry = state.webhooks.dlqEntry(webhook.id, request.params.entryId);
      if (!entry) throw notFound(`dead-letter queue entry ${request.params.entryId}`);
      return dlqView(entry);
    },
  );

  app.delete<{ Params: { id: string; entryId: string } }>(
    '/v1/webhooks/:id/dlq/:entryId',
    {
      config: { operation: 'webhook_dlq_discard' },
      schema: {
        tags,
        summary: 'Discard a dead-letter queue entry',
        description:
          'The reference says entries can be "discarded" but shows no operation; this is the sandbox\'s. The entry gets status discarded ' +
          '(listed with status=discarded or all) and is left out of the default listing; its delivery can still be replayed. Idempotent.',
        params: DlqEntryParams,
        response: { 200: Type.Ref('DlqEntry'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const entry = state.webhooks.dlqEntry(webhook.id, request.params.entryId);
      if (!entry) throw notFound(`dead-letter queue entry ${request.params.entryId}`);
      return dlqView(state.webhooks.discard(entry));
    },
  );

  app.post<{ Params: { id: string }; Body: { event_type?: EventType } }>(
    '/v1/webhooks/:id/test',
    {
      config: { operation: 'webhooks_test' },
      schema: {
        tags,
        summary: 'Send a test event',
        description:
          'Emits a webhook.test event (or the event_type given) to this webhook only, whatever its event kinds and status, ' +
          'and returns the event and its delivery (the response body is not shown in the reference). ' +
          `Delivery, retries and signature are those of every event: ${describeSchedule(5).join('; ')}.`,
        params: WebhookParams,
        body: TestEventBody,
        response: { 201: TestEventResult, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const type = request.body.event_type ?? 'webhook.test';
      const data = { ...sampleEventData(type, state.clock.now()), webhook_id: webhook.id };
      const { event, deliveries } = state.delivery.emit(webhook.tenant_id, type, data, webhook);
      return reply.code(201).send({
        event: { id: event.id, type: event.type, created_at: event.created_at },
        delivery: deliveryView(deliveries[0]!),
      });
    },
  );
}
