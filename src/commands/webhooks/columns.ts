/**
 * The columns of the webhooks noun's tables, one set per kind it lists (webhooks, deliveries,
 * dead-letter entries), read by `ls`, `deliveries ls` and `dlq ls`.
 */
import type { DlqEntry, Webhook, WebhookDelivery } from '../../api/schemas/webhooks.js';
import { asciiHostUrls } from '../../output/hosts.js';
import type { Column } from '../../output/output.js';
import { lastErrorShown } from './delivery-state.js';

export const WEBHOOK_COLUMNS: Array<Column<Webhook>> = [
  { header: 'id', value: (w) => w.id, kind: 'id' },
  { header: 'url', value: (w) => w.url, table: (w) => asciiHostUrls(w.url), kind: 'url' },
  // A list: the renderer joins it (", " on a terminal, "," in a pipe), as every list cell.
  { header: 'events', value: (w) => w.event_types },
  { header: 'status', value: (w) => w.status, kind: 'status' },
  { header: 'attempts', value: (w) => w.max_attempts, optional: 2 },
  { header: 'description', value: (w) => w.description, optional: 1 },
  { header: 'created', value: (w) => w.created_at, kind: 'time', optional: 3 },
];

/**
 * What an on-call engineer reads first stays at 80 columns: the delivery, its event, its state,
 * why it failed and when; attempts, the HTTP status and the next retry come as the width allows.
 */
export const DELIVERY_COLUMNS: Array<Column<WebhookDelivery>> = [
  { header: 'id', value: (d) => d.id, kind: 'id' },
  { header: 'event', value: (d) => d.event_type, kind: 'name' },
  { header: 'status', value: (d) => d.status, kind: 'status' },
  { header: 'attempts', value: (d) => `${d.attempt_count}/${d.max_attempts}`, optional: 4 },
  { header: 'http', value: (d) => d.last_status_code, optional: 3 },
  { header: 'error', value: (d) => (lastErrorShown(d) === 'none' ? '' : d.last_error_code), kind: 'detail' },
  { header: 'next retry', value: (d) => d.next_retry_at, kind: 'time', optional: 2 },
  { header: 'attempted', value: (d) => d.last_attempted_at, kind: 'time' },
  { header: 'event id', value: (d) => d.event_id, kind: 'id', optional: 1 },
  { header: 'replay of', value: (d) => d.replay_of, kind: 'id', optional: 1 },
];

/**
 * The entry id is what `replay` and `dlq discard` take, so it stays; the delivery id, attempts
 * (every entry used them all) and the HTTP status come as the width allows. "failed" is when the
 * delivery was dead-lettered.
 */
export const DLQ_COLUMNS: Array<Column<DlqEntry>> = [
  { header: 'id', value: (e) => e.id, kind: 'id' },
  { header: 'delivery', value: (e) => e.delivery_id, kind: 'id', optional: 3 },
  { header: 'event', value: (e) => e.event_type, kind: 'name' },
  { header: 'attempts', value: (e) => e.attempt_count, optional: 2 },
  { header: 'http', value: (e) => e.last_status_code, optional: 4 },
  { header: 'error', value: (e) => e.last_error_code, kind: 'detail' },
  { header: 'status', value: (e) => e.status, kind: 'status' },
  { header: 'failed', value: (e) => e.dead_lettered_at, kind: 'time' },
  { header: 'replayed as', value: (e) => e.last_replay_delivery_id, kind: 'id', optional: 1 },
];
