import { createHash } from 'node:crypto';
import type { EventType } from '../../api/constants.js';
import { EVENT_READ_PERMISSIONS } from '../../api/permissions.js';
import type {
  DeliveryAttempt,
  DlqEntry,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryDetail,
} from '../../api/schemas/webhooks.js';
import { redactUrlText } from '../../api/secret-names.js';
import type { AttemptRecord, DeliveryRecord, DlqRecord, RotatedOut, WebhookRecord } from './webhooks.js';

/** Whether the caller reads the data of an event kind (webhook-owner.ts, eventDataReader). */
export type DataReader = (kind: EventType) => boolean;

/**
 * A failure as the caller may read it. A target's answer body (the first 200 characters an error
 * quotes) very often echoes the event it rejected, so it is the event's data as far as the
 * platform can know: shown only to a caller who reads that kind's data, as the payload is
 * (requireEventRead); the rest read the cause, the status and that the body is withheld.
 */
export function shownError(
  error: string | null,
  withoutBody: string | null,
  kind: EventType,
  reads: DataReader,
): string | null {
  const permission = EVENT_READ_PERMISSIONS[kind];
  if (withoutBody === null || permission === null || reads(kind)) return error;
  return `${withoutBody} (the answer's body is withheld: it may echo the event's data; ${permission} shows it)`;
}

/**
 * Webhooks, deliveries and dead-letter entries as the API shows them (never a secret). `previous`:
 * the secrets rotated out that still sign (WebhookStore.previousSecrets); `stopped`: why the
 * platform stopped it (WebhookStore.stopReason), shown as status disabled with that reason; a
 * webhook disabled on request shows no reason (its status says it), whatever its owner holds;
 * `rotationReason`: webhook-owner.ts rotationReason.
 */
export function webhookView(
  w: WebhookRecord,
  previous: RotatedOut[],
  stopped: string | null,
  rotationReason: string | null,
): Webhook {
  return {
    id: w.id,
    url: w.url,
    description: w.description,
    event_types: w.event_types,
    status: stopped === null ? w.status : 'disabled',
    disabled_reason: w.status === 'disabled' ? null : stopped,
    owner_id: w.owner?.user ?? null,
    max_attempts: w.max_attempts,
    created_at: w.created_at,
    updated_at: w.updated_at,
    secret_rotated_at: w.secret_rotated_at,
    previous_secret_expires_at: w.previous_secret_expires_at,
    previous_secrets: previous.map((e) => ({ rotated_out_at: e.rotated_out_at, expires_at: e.expires_at })),
    rotation_reason: rotationReason,
  };
}

export function deliveryView(d: DeliveryRecord, reads: DataReader): WebhookDelivery {
  return {
    id: d.id,
    webhook_id: d.webhook.id,
    event_type: d.event.type,
    event_id: d.event.id,
    attempt_count: d.attempt_count,
    max_attempts: d.max_attempts,
    status: d.status,
    last_status_code: d.last_status_code,
    last_error: shownError(d.last_error, d.last_error_without_body, d.event.type, reads),
    last_error_code: d.last_error_code,
    first_attempted_at: d.first_attempted_at,
    last_attempted_at: d.last_attempted_at,
    next_retry_at: d.next_retry_at,
    payload_size_bytes: d.event.payload.length,
    created_at: d.created_at,
    delivered_at: d.delivered_at,
    replay_of: d.replay_of,
    recovered_by: d.recovered_by,
  };
}

/** A delivery with its attempts (oldest first), each error as deliveryView shows last_error. */
export function deliveryDetailView(d: DeliveryRecord, reads: DataReader): WebhookDeliveryDetail {
  const attempt = ({ error_without_body, ...shown }: AttemptRecord): DeliveryAttempt => ({
    ...shown,
    error: shownError(shown.error, error_without_body, d.event.type, reads),
  });
  return { ...deliveryView(d, reads), attempts: d.attempts.map(attempt) };
}

export function dlqView(e: DlqRecord, reads: DataReader): DlqEntry {
  const d = e.delivery;
  return {
    id: e.id,
    webhook_id: d.webhook.id,
    delivery_id: d.id,
    event_id: d.event.id,
    event_type: d.event.type,
    status: e.status,
    attempt_count: d.attempt_count,
    last_status_code: d.last_status_code,
    last_error: shownError(d.last_error, d.last_error_without_body, d.event.type, reads),
    last_error_code: d.last_error_code,
    payload_size_bytes: d.event.payload.length,
    first_attempted_at: d.first_attempted_at,
    last_attempted_at: d.last_attempted_at,
    dead_lettered_at: e.dead_lettered_at,
    replay_count: e.replay_count,
    last_replayed_at: e.last_replayed_at,
    last_replay_delivery_id: e.last_replay_delivery_id,
    discarded_at: e.discarded_at,
    recovered_by: e.recovered_by,
  };
}

/** A stable id for seeded objects, so demo ids do not change between runs. */
export function seededId(prefix: string, name: string): string {
  return `${prefix}_${createHash('sha1').update(`svc-sandbox:${prefix}:${name}`).digest('hex').slice(0, 24)}`;
}

/**
 * A webhook's fields as its audit entries show them (auditValues): never the secret, and the URL
 * with any credential it carries masked (redactUrlText), as the entries' summaries show it.
 */
export function webhookAuditFields(w: WebhookRecord): Record<string, unknown> {
  return {
    url: redactUrlText(w.url),
    description: w.description,
    event_types: [...w.event_types].sort(),
    status: w.status,
    max_attempts: w.max_attempts,
    owner_id: w.owner?.user ?? null,
  };
}
