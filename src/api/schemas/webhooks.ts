// Over 300 lines on purpose: the schemas of one resource family (webhooks, deliveries, attempts,
// the dead-letter queue) refer to each other and read best together.
import { type Static, Type } from '@sinclair/typebox';
import {
  DELIVERY_FAILURE_CAUSES,
  DELIVERY_PAGE,
  DELIVERY_STATUS_FILTERS,
  DELIVERY_STATUSES,
  DLQ_PAGE,
  DLQ_STATUS_FILTERS,
  DLQ_STATUSES,
  EVENT_KIND,
  EVENT_TYPES,
  WEBHOOK_STATUSES,
} from '../constants.js';
import {
  CursorQuery,
  IdempotencyKey,
  NextCursor,
  NullableTimestamp,
  StringEnum,
  Timestamp,
} from './common.js';

const StatusCode = Type.Integer({ minimum: 100, maximum: 599 });

export const EventTypeSchema = StringEnum(EVENT_TYPES, {
  description: `Event kind. The sandbox emits: ${EVENT_TYPES.join(', ')}`,
});

/**
 * An event kind as a filter: kinds are open-ended (the reference shows two and says there are
 * more), so any well-formed kind is accepted and one that never occurs matches nothing.
 */
export const EventTypeFilter = Type.String({
  pattern: EVENT_KIND.source,
  maxLength: 100,
  description: `An event kind, e.g. exception.sla.breached; any kind is accepted (the sandbox emits ${EVENT_TYPES.join(', ')})`,
});

export const WebhookEventPayload = Type.Object(
  {
    id: Type.String({ description: 'Event id (evt_…); the same in every delivery and replay of the event' }),
    type: EventTypeSchema,
    created_at: Timestamp,
    tenant_id: Type.String({ description: 'The tenant the event belongs to' }),
    data: Type.Object({}, { additionalProperties: true, description: 'The kind-specific body of the event' }),
  },
  {
    $id: 'WebhookEventPayload',
    description:
      'The body of every delivery (sandbox choice; the reference does not show it): UTF-8 JSON with exactly these keys in this order, ' +
      'serialised once when the event is created, so every attempt and every replay sends the same bytes.',
  },
);
export type WebhookEventPayload = Static<typeof WebhookEventPayload>;

export const Webhook = Type.Object(
  {
    id: Type.String({ description: 'Webhook id (wh_…)' }),
    url: Type.String({ format: 'uri', description: 'Target: an http or https URL that receives POSTs' }),
    description: Type.String(),
    event_types: Type.Array(EventTypeSchema, { description: 'The kinds delivered to this webhook' }),
    status: StringEnum(WEBHOOK_STATUSES, {
      description:
        'disabled webhooks receive no events: disabled on request (PATCH status), or by the platform (disabled_reason says why)',
    }),
    disabled_reason: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          'Why the platform disabled the webhook, or null: its owner (owner_id) no longer holds the permission that reads the data of ' +
          'one of its event kinds (exception.read for exception.*, reconciliation.read for reconciliation.*), or the OAuth client or API key ' +
          "it was set up through was deleted or revoked (an OAuth client: deleted, or every token of the owner's approval of it revoked, RFC 7009). " +
          'It stays disabled though the owner regains them (just in time or not) until someone ' +
          'who holds those permissions without an end date enables it again (PATCH status enabled) and becomes its owner; until then owner_id stays ' +
          'the owner it names (a new URL or added kinds meanwhile take no ownership). Null while enabled, ' +
          'and when disabled on request (PATCH status disabled, which a stopped webhook takes too). Optional: a server may not show it',
      }),
    ),
    owner_id: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          "The user who last chose where the webhook's data goes (created it, changed its URL, added kinds or enabled it): a delegated " +
          "OAuth token's approving user, an API key's issuer. It delivers only while they hold its kinds' read permissions. Putting back the URL " +
          'that your own URL change replaced gives it back to the owner before that change, if they would keep it. A webhook the platform stopped ' +
          '(disabled_reason) keeps the owner its reason names until someone enables it: changing its URL or adding kinds meanwhile ' +
          'takes the same permission but not ownership, as it delivers nothing. Optional: a server may not show it',
      }),
    ),
    max_attempts: Type.Integer({ minimum: 1, maximum: 20, description: 'Attempt ceiling of its deliveries' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    secret_rotated_at: NullableTimestamp,
    previous_secret_expires_at: Type.Union([Timestamp, Type.Null()], {
      description:
        'After a rotation, deliveries carry a second v1 signed with the previous secret until this time',
    }),
    previous_secrets: Type.Optional(
      Type.Array(
        Type.Object({
          rotated_out_at: Timestamp,
          expires_at: Timestamp,
        }),
        {
          description:
            'The secrets rotated out that still sign (one more v1 each), the last rotated out first: a second ' +
            'rotation within 24 hours keeps the first old secret signing until its own expires_at. Optional: a ' +
            'server may not show it',
        },
      ),
    ),
    rotation_reason: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          'Why its signing secret should be rotated before its signatures are trusted, or null: the webhook was created through ' +
          "a third-party OAuth client's token or an API key, which was answered the secret, and that client was deleted (or every " +
          'token of the approval revoked) or that key revoked or stopped, so whoever kept the secret still signs events its ' +
          'receiver trusts; enabling the webhook again keeps the secret. Null once a user rotates it (a restore of that secret brings ' +
          'it back). Optional: a server may not show it',
      }),
    ),
  },
  {
    $id: 'Webhook',
    additionalProperties: true,
    description:
      "A subscription that receives signed event deliveries. The reference shows none of its fields; these are the sandbox's.",
  },
);
export type Webhook = Static<typeof Webhook>;

export const WebhookWithSecret = Type.Object(
  {
    ...Webhook.properties,
    secret: Type.String({ description: 'The signing secret (whsec_…): returned here only, never again' }),
    warning: Type.String({ description: 'Tells the caller to store the secret now' }),
  },
  { additionalProperties: true },
);
export type WebhookWithSecret = Webhook & { secret: string; warning: string };

export const WebhookList = Type.Object({
  items: Type.Array(Type.Ref('Webhook')),
  next_cursor: NextCursor,
});
export type WebhookList = { items: Webhook[]; next_cursor: string | null };

export const WebhookParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 100 }),
});
export const DlqEntryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  entryId: Type.String({ minLength: 1, maxLength: 100 }),
});

const WebhookFields = {
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'http or https URL' }),
  description: Type.String({ maxLength: 500 }),
  event_types: Type.Array(EventTypeSchema, { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true }),
  status: StringEnum(WEBHOOK_STATUSES),
  max_attempts: Type.Integer({ minimum: 1, maximum: 20 }),
};

export const WebhookCreateBody = Type.Object(
  {
    url: WebhookFields.url,
    event_types: WebhookFields.event_types,
    description: Type.Optional(WebhookFields.description),
    status: Type.Optional(WebhookFields.status),
    max_attempts: Type.Optional(WebhookFields.max_attempts),
    idempotency_key: IdempotencyKey,
  },
  { additionalProperties: false },
);
export type WebhookCreateBody = Static<typeof WebhookCreateBody>;

export const WebhookUpdateBody = Type.Object(
  {
    url: Type.Optional(WebhookFields.url),
    event_types: Type.Optional(WebhookFields.event_types),
    description: Type.Optional(WebhookFields.description),
    status: Type.Optional(WebhookFields.status),
    max_attempts: Type.Optional(WebhookFields.max_attempts),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type WebhookUpdateBody = Static<typeof WebhookUpdateBody>;

export const FailureCause = StringEnum(DELIVERY_FAILURE_CAUSES, {
  description:
    'Why the last attempt failed (see the delivery failure causes in the reference), or webhook_stopped: no further attempt was made because the platform stopped the webhook (its disabled_reason says why)',
});

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'Delivery id (dlv_…)' }),
    webhook_id: Type.String(),
    event_type: EventTypeSchema,
    event_id: Type.String(),
    attempt_count: Type.Integer({ minimum: 0, description: 'Attempts finished so far' }),
    max_attempts: Type.Integer({ minimum: 1, maximum: 20 }),
    status: StringEnum(DELIVERY_STATUSES, {
      description:
        'pending: no attempt has finished yet (queued or being sent). retrying: an attempt failed and another is scheduled ' +
        '(next_retry_at). delivered: the target answered 2xx (final). failed: max_attempts attempts failed, or the platform stopped ' +
        'the webhook before the next one (last_error_code webhook_stopped); next_retry_at is null and the delivery is in the dead-letter queue. recovered: it failed, and the event was delivered to the webhook since ' +
        'by another delivery of it, such as a replay (recovered_by names that delivery).',
    }),
    last_status_code: Type.Union([StatusCode, Type.Null()], {
      description: "The target's HTTP status on the last attempt; null when it gave none",
    }),
    last_error: Type.Union([Type.String(), Type.Null()], {
      description:
        'The last failure as text, "<cause>: <detail>"; null when none. The target\'s answer body it quotes is shown only to a caller who holds the read permission of the event kind\'s data; anyone else reads "(the answer\'s body is withheld: …; <permission> shows it)" in its place',
    }),
    last_error_code: Type.Union([FailureCause, Type.Null()]),
    first_attempted_at: NullableTimestamp,
    last_attempted_at: NullableTimestamp,
    next_retry_at: Type.Union([Timestamp, Type.Null()], { description: 'Null when no retry is scheduled' }),
    payload_size_bytes: Type.Integer({ minimum: 0 }),
    created_at: Timestamp,
    delivered_at: NullableTimestamp,
    replay_of: Type.Union([Type.String(), Type.Null()], {
      description: 'The delivery this one replays (rule 1); null for an original delivery',
    }),
    recovered_by: Type.Union([Type.String(), Type.Null()], {
      description: 'status recovered: the delivery of the same event that was delivered; null otherwise',
    }),
  },
  { $id: 'WebhookDelivery', additionalProperties: true },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  started_at: Timestamp,
  signature_timestamp: Type.Integer({
    minimum: 0,
    description: 't of the X-SVC-Signature sent with this attempt',
  }),
  status_code: Type.Union([StatusCode, Type.Null()]),
  error_code: Type.Union([FailureCause, Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()], {
    description: "This attempt's failure, as last_error (the target's answer body withheld alike)",
  }),
  duration_ms: Type.Integer({ minimum: 0 }),
});

export const WebhookDeliveryDetail = Type.Object(
  { ...WebhookDelivery.properties, attempts: Type.Array(DeliveryAttempt, { description: 'Oldest first' }) },
  { additionalProperties: true },
);
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;
export type WebhookDeliveryDetail = WebhookDelivery & { attempts: DeliveryAttempt[] };

export const DeliverySummary = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    delivered: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0, description: 'Failed and not recovered by a replay since' }),
    in_flight: Type.Integer({ minimum: 0, description: 'pending + retrying' }),
    recovered: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Failed deliveries whose event was delivered since by another delivery of it, e.g. a replay (a sandbox addition: other servers may not send it)',
      }),
    ),
  },
  {
    description:
      'Counts over every delivery of the webhook, whatever the status filter and page: total = delivered + failed + recovered + in_flight',
  },
);
export type DeliverySummary = Static<typeof DeliverySummary>;

export const DeliveryList = Type.Object({
  items: Type.Array(Type.Ref('WebhookDelivery'), { description: 'Most recent first' }),
  summary: DeliverySummary,
  next_cursor: NextCursor,
});
export type DeliveryList = { items: WebhookDelivery[]; summary: DeliverySummary; next_cursor: string | null };

export const DeliveryListQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: DELIVERY_PAGE.min,
      maximum: DELIVERY_PAGE.max,
      default: DELIVERY_PAGE.default,
      description: `Page size, ${DELIVERY_PAGE.min} to ${DELIVERY_PAGE.max} (default ${DELIVERY_PAGE.default}); the reference shows neither`,
    }),
  ),
  status: Type.Optional(
    StringEnum(DELIVERY_STATUS_FILTERS, {
      description: 'Only deliveries in this state; in_flight means pending or retrying',
    }),
  ),
  ...CursorQuery,
});
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

export const DlqEntry = Type.Object(
  {
    id: Type.String({ description: 'Entry id (dlq_…)' }),
    webhook_id: Type.String(),
    delivery_id: Type.String({ description: 'The failed delivery; replay it by this id' }),
    event_id: Type.String(),
    event_type: EventTypeSchema,
    status: StringEnum(DLQ_STATUSES, {
      description:
        'queued: waiting for someone to act. replayed: a replay was made (replay_count, last_replay_delivery_id). discarded: removed by DELETE. ' +
        'recovered: the event was delivered to the webhook since by another delivery of it (recovered_by), so it left the queue',
    }),
    attempt_count: Type.Integer({ minimum: 0 }),
    last_status_code: Type.Union([StatusCode, Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()], {
      description: "Its delivery's last_error (the target's answer body withheld alike)",
    }),
    last_error_code: Type.Union([FailureCause, Type.Null()]),
    payload_size_bytes: Type.Integer({ minimum: 0 }),
    first_attempted_at: NullableTimestamp,
    last_attempted_at: NullableTimestamp,
    dead_lettered_at: Timestamp,
    replay_count: Type.Integer({ minimum: 0 }),
    last_replayed_at: NullableTimestamp,
    last_replay_delivery_id: Type.Union([Type.String(), Type.Null()]),
    discarded_at: NullableTimestamp,
    recovered_by: Type.Union([Type.String(), Type.Null()], {
      description: 'status recovered: the delivery that delivered the event',
    }),
  },
  {
    $id: 'DlqEntry',
    additionalProperties: true,
    description:
      "A permanently failed delivery. The reference does not show the fields; these are the sandbox's.",
  },
);
export type DlqEntry = Static<typeof DlqEntry>;

export const DlqList = Type.Object({
  items: Type.Array(Type.Ref('DlqEntry'), { description: 'Oldest first (dead_lettered_at, then id)' }),
  total: Type.Integer({ minimum: 0, description: 'How many entries match the filters, over every page' }),
  next_cursor: NextCursor,
});
export type DlqList = { items: DlqEntry[]; total: number; next_cursor: string | null };

export const DlqListQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: DLQ_PAGE.min,
      maximum: DLQ_PAGE.max,
      default: DLQ_PAGE.default,
      description: `Page size, ${DLQ_PAGE.min} to ${DLQ_PAGE.max} (default ${DLQ_PAGE.default})`,
    }),
  ),
  ...CursorQuery,
  status: Type.Optional(
    StringEnum(DLQ_STATUS_FILTERS, { description: 'Entries in this state (default queued), or all' }),
  ),
  event_type: Type.Optional(EventTypeFilter),
  since: Type.Optional(
    Type.String({ format: 'date-time', description: 'dead_lettered_at at or after this time' }),
  ),
  until: Type.Optional(
    Type.String({ format: 'date-time', description: 'dead_lettered_at before this time' }),
  ),
});
export type DlqListQuery = Static<typeof DlqListQuery>;

export const ReplayBody = Type.Object({ idempotency_key: IdempotencyKey }, { additionalProperties: false });

export const TestEventBody = Type.Object(
  {
    event_type: Type.Optional(
      Type.Union([EventTypeSchema], { description: "Default webhook.test, the reference's test kind" }),
    ),
    idempotency_key: IdempotencyKey,
  },
  { additionalProperties: false },
);

export const TestEventResult = Type.Object({
  event: Type.Object({ id: Type.String(), type: EventTypeSchema, created_at: Timestamp }),
  delivery: Type.Ref('WebhookDelivery'),
});
export type TestEventResult = {
  event: { id: string; type: string; created_at: string };
  delivery: WebhookDelivery;
};
