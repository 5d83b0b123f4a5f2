import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { REPLAY_READ } from '../../api/channel-holds.js';
import { DELIVERY_PAGE, DLQ_PAGE } from '../../api/constants.js';
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
  WebhookDeliveryDetail,
  WebhookParams,
} from '../../api/schemas/webhooks.js';
import { redactUrlText } from '../../api/secret-names.js';
import { badRequest, notFound } from '../domain/errors.js';
import { queryTimeMs } from '../domain/request-times.js';
import { eventDataReader, requireEventRead, requireRead } from '../domain/webhook-owner.js';
import { deliveryDetailView, deliveryView, dlqView } from '../domain/webhook-views.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.js';
import { auditChange } from './audit.js';
import { errorResponses, type RouteContext } from './context.js';
import { webhookOf } from './webhooks.js';

const tags = ['webhooks'];

/** A webhook's deliveries (list, one, its payload, replay) and its dead-letter queue. */
export default function webhookDeliveryRoutes(app: FastifyInstance, { state }: RouteContext): void {
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
      const before = cursor ? decodeCursor(cursor, fingerprint, { tenant: request.tenant!.id }).k : undefined;
      const { page, more } = state.webhooks.listDeliveries(webhook.id, status, limit, before);
      const last = page[page.length - 1];
      const reads = eventDataReader(state, request.principal!, webhook.tenant_id);
      return {
        items: page.map((d) => deliveryView(d, reads)),
        summary: state.webhooks.summary(webhook.id),
        next_cursor:
          more && last
            ? encodeCursor({ k: last.seq, i: last.id }, fingerprint, { tenant: request.tenant!.id })
            : null,
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
      return deliveryDetailView(delivery, eventDataReader(state, request.principal!, webhook.tenant_id));
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
          'Not in the reference: the exact bytes every attempt (and every replay) of this delivery sends, for inspecting a payload a target rejected. ' +
          "It is the event's data, so besides webhook.read it takes the permission that reads that kind's data (exception.read for exception.*, " +
          'reconciliation.read for reconciliation.*; webhook.test none): else 403 insufficient_permission naming it.',
        params: DeliveryParams,
        response: { 200: Type.Ref('WebhookEventPayload'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const delivery = state.webhooks.delivery(webhook.id, request.params.deliveryId);
      if (!delivery) throw notFound(`delivery ${request.params.deliveryId}`);
      requireEventRead(state, request.principal!, webhook.tenant_id, delivery.event.type);
      return reply.type('application/json').send(delivery.event.payload);
    },
  );

  app.post<{ Params: { id: string; deliveryId: string }; Body: { dlq_entry_id?: string } }>(
    '/v1/webhooks/:id/deliveries/:deliveryId/replay',
    {
      config: { operation: 'webhook_deliveries_replay' },
      schema: {
        tags,
        summary: 'Replay a delivery',
        description:
          'Rule 1: creates a new delivery (a new id, replay_of naming the original) of the same event with a byte-identical payload, ' +
          'attempt_count 0, and a fresh signature timestamp on its attempts; it is sent at once and retried like any delivery. ' +
          'The DLQ entry of the original, if any, records the replay (replay_count, last_replayed_at, last_replay_delivery_id) and, if it was queued, becomes status replayed; a discarded or recovered entry keeps its status (a discarded entry stays listed with status=discarded, and replaying it as the entry is still refused). ' +
          'The response body (not shown in the reference) is the new delivery. A delivery still pending or retrying cannot be replayed (409 delivery_in_progress). ' +
          'A disabled webhook receives no events, replays included: 409 webhook_disabled, nothing is made and the DLQ entry stays queued. ' +
          'dlq_entry_id (optional, a sandbox addition) replays the delivery as that dead-letter entry: only while the entry is queued, checked and changed in one step, ' +
          'so of two replays of an entry, or a replay and a discard of it, one happens and the other is 409 dlq_entry_not_queued (details[0].entry is the entry as it is); ' +
          'it must be the entry of this delivery (400) and of this webhook (404). Without it the delivery is replayed whatever its entry says (an operator naming a delivery means it). ' +
          "A replay re-sends stored event data to the URL the webhook's owner chose; it chooses nothing, so it takes what reading that data takes, now: " +
          "the permission that reads the data of each of the webhook's kinds and the event's (exception.read, reconciliation.read), a just-in-time grant too " +
          '(choosing the URL is what takes them without an end date): else 403 insufficient_permission naming what is lacking. ' +
          'Each replay writes an audit entry (webhook.delivery_replayed) naming the actor, the delivery, the replay and the entry.',
        params: DeliveryParams,
        body: Type.Object({
          idempotency_key: IdempotencyKey,
          dlq_entry_id: Type.Optional(
            Type.String({
              minLength: 1,
              description: 'replay as this dead-letter entry, only while it is queued',
            }),
          ),
        }),
        response: { 201: Type.Ref('WebhookDelivery'), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const original = state.webhooks.delivery(webhook.id, request.params.deliveryId);
      if (!original) throw notFound(`delivery ${request.params.deliveryId}`);
      const entryId = request.body.dlq_entry_id;
      const asEntry = entryId === undefined ? undefined : state.webhooks.dlqEntry(webhook.id, entryId);
      if (entryId !== undefined && !asEntry) throw notFound(`dead-letter queue entry ${entryId}`);
      if (asEntry && asEntry.delivery.id !== original.id) {
        throw badRequest('dlq_entry_id names the entry of another delivery', [
          {
            field: 'dlq_entry_id',
            message: `is the entry of delivery ${asEntry.delivery.id}, not of ${original.id}`,
          },
        ]);
      }
      // The owner chose where it goes: a replay takes what reading its data takes now.
      requireRead(state, request.principal!, webhook.tenant_id, REPLAY_READ, [
        ...webhook.event_types,
        original.event.type,
      ]);
      const reads = eventDataReader(state, request.principal!, webhook.tenant_id);
      const { delivery, entry } = state.delivery.replay(original, asEntry, reads);
      auditChange(state, request, {
        action: 'webhook.delivery_replayed',
        target_type: 'webhook',
        target_id: webhook.id,
        summary:
          `delivery ${original.id} (${original.event.type} event ${original.event.id}) of webhook ${webhook.id} replayed as ${delivery.id}` +
          `${entry ? ` (dead-letter entry ${entry.id})` : ''} to ${redactUrlText(webhook.url)}`,
      });
      return reply.code(201).send(deliveryView(delivery, reads));
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
      const sinceMs = queryTimeMs('since', q.since);
      const untilMs = queryTimeMs('until', q.until);
      const fingerprint = filterFingerprint({
        webhook: webhook.id,
        status,
        type: q.event_type,
        since: sinceMs,
        until: untilMs,
      });
      const after = q.cursor
        ? decodeCursor(q.cursor, fingerprint, { tenant: request.tenant!.id }).k
        : undefined;
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
      const reads = eventDataReader(state, request.principal!, webhook.tenant_id);
      return {
        items: page.map((e) => dlqView(e, reads)),
        total,
        next_cursor:
          more && last
            ? encodeCursor({ k: last.seq, i: last.id }, fingerprint, { tenant: request.tenant!.id })
            : null,
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
      return dlqView(entry, eventDataReader(state, request.principal!, webhook.tenant_id));
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
          '(listed with status=discarded or all) and is left out of the default listing; its delivery can still be replayed by id. Idempotent for an entry discarded already. ' +
          'An entry that left the queue otherwise (replayed: its event was sent; recovered: it was delivered) is not discarded: 409 dlq_entry_not_queued, details[0].entry the entry as it is. ' +
          'A discard writes an audit entry (webhook.dlq_entry_discarded) naming the actor, the entry and its delivery (not a repeated discard).',
        params: DlqEntryParams,
        response: { 200: Type.Ref('DlqEntry'), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const webhook = webhookOf(state, request.tenant!.id, request.params.id);
      const entry = state.webhooks.dlqEntry(webhook.id, request.params.entryId);
      if (!entry) throw notFound(`dead-letter queue entry ${request.params.entryId}`);
      const was = entry.status;
      const reads = eventDataReader(state, request.principal!, webhook.tenant_id);
      state.webhooks.discard(entry, reads);
      if (was !== 'discarded') {
        auditChange(state, request, {
          action: 'webhook.dlq_entry_discarded',
          target_type: 'webhook',
          target_id: webhook.id,
          summary: `dead-letter entry ${entry.id} (delivery ${entry.delivery.id}, ${entry.delivery.event.type} event ${entry.delivery.event.id}) of webhook ${webhook.id} discarded`,
        });
      }
      return dlqView(entry, reads);
    },
  );
}
