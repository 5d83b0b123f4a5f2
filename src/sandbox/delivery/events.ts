import type { EventType } from '../../api/constants.js';
import { isoSeconds } from '../../api/time.js';
import type { SandboxClock } from '../clock.js';
import { seededId } from '../domain/webhook-views.js';
import type { DeliveryRecord, WebhookRecord, WebhookStore } from '../domain/webhooks.js';
import { ADMIN_USER } from '../seed.js';
import { randomId } from '../tokens.js';

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** A plausible `data` object for each event kind (the sandbox's invention; the reference shows none). */
export function sampleEventData(type: EventType, nowMs: number): Record<string, unknown> {
  const exception = {
    exception_id: randomId('exc', 8),
    reconciliation_id: randomId('rec', 8),
    account_id: randomId('acct', 6),
    category: pick(['fx_difference', 'missing_counterparty', 'amount_mismatch', 'duplicate_entry']),
    amount: {
      value: (Math.round(Math.random() * 10_000_000) / 100).toFixed(2),
      currency: pick(['USD', 'EUR', 'GBP']),
    },
  };
  switch (type) {
    case 'exception.sla.breached':
      return {
        ...exception,
        sla_hours: pick([4, 8, 24, 48]),
        breached_at: isoSeconds(nowMs),
        assignee: pick(['usr_analyst', 'usr_lead', null]),
      };
    case 'exception.created':
      return { ...exception, created_by: 'rule_engine' };
    case 'exception.assigned':
      return { ...exception, assignee: pick(['usr_analyst', 'usr_lead']), assigned_by: 'usr_lead' };
    case 'exception.resolved':
      return {
        ...exception,
        resolution: pick(['matched', 'written_off', 'adjusted']),
        resolved_by: 'usr_analyst',
      };
    case 'reconciliation.completed':
      return {
        reconciliation_id: randomId('rec', 8),
        matched: 9_874,
        unmatched: 12,
        completed_at: isoSeconds(nowMs),
      };
    case 'reconciliation.failed':
      return {
        reconciliation_id: randomId('rec', 8),
        error: 'source statement missing',
        failed_at: isoSeconds(nowMs),
      };
    case 'webhook.test':
      return {
        message: 'A test event from the svc sandbox: if you can read this, the endpoint is reachable.',
      };
  }
}

export const SEEDED_WEBHOOKS = {
  exceptions: seededId('wh', 'acme-treasury:exceptions'),
  warehouse: seededId('wh', 'acme-treasury:warehouse'),
} as const;

/**
 * Demo webhooks of a tenant with some history: an exceptions webhook whose target refuses
 * connections (three dead-lettered deliveries and three delivered ones from the past days), and
 * a warehouse webhook with delivered history. History is recorded, not sent. The admin made them
 * (their owner: they deliver while the admin holds exception.read and reconciliation.read).
 */
export function seedWebhooks(store: WebhookStore, clock: SandboxClock, tenantId: string): void {
  const now = clock.now();
  const day = 24 * 3600 * 1000;
  const owner = { user: ADMIN_USER, via: null };
  const exceptions = store.create(
    tenantId,
    {
      url: 'http://127.0.0.1:9/svc/exceptions',
      description: 'Exceptions to the on-call bridge',
      event_types: ['exception.sla.breached', 'exception.created', 'exception.assigned'],
      max_attempts: 5,
    },
    { id: SEEDED_WEBHOOKS.exceptions, createdAt: isoSeconds(now - 30 * day), owner },
  );
  const warehouse = store.create(
    tenantId,
    {
      url: 'https://warehouse.acme.example/hooks/svc',
      description: 'Reconciliation results to the data warehouse',
      event_types: ['reconciliation.completed', 'reconciliation.failed'],
      max_attempts: 8,
    },
    { id: SEEDED_WEBHOOKS.warehouse, createdAt: isoSeconds(now - 20 * day), owner },
  );
  const history: Array<[WebhookRecord, EventType, number, 'delivered' | 'failed']> = [
    [exceptions, 'exception.created', 3 * day, 'delivered'],
    [exceptions, 'exception.sla.breached', 2.5 * day, 'failed'],
    [exceptions, 'exception.assigned', 2 * day, 'delivered'],
    [exceptions, 'exception.sla.breached', 1.5 * day, 'failed'],
    [exceptions, 'exception.created', 1 * day, 'delivered'],
    [exceptions, 'exception.sla.breached', 0.5 * day, 'failed'],
    [warehouse, 'reconciliation.completed', 2 * day, 'delivered'],
    [warehouse, 'reconciliation.completed', 1 * day, 'delivered'],
  ];
  for (const [webhook, type, ago, outcome] of history) {
    const at = now - ago;
    const event = store.createEvent(tenantId, type, sampleEventData(type, at), isoSeconds(at));
    const delivery = store.createDelivery(webhook, event, { createdAt: isoSeconds(at) });
    recordPastOutcome(store, delivery, outcome, at);
  }
}

/** How long the history recordPastOutcome writes for `attempts` failed attempts lasts (first to last). */
export function pastHistorySpanMs(attempts: number): number {
  let span = 0;
  for (let n = 1; n < attempts; n++) span += 30_000 * 2 ** (n - 1);
  return span;
}

/** Writes the attempts a delivery would have made from `atMs` on, as history (nothing is sent). */
export function recordPastOutcome(
  store: WebhookStore,
  delivery: DeliveryRecord,
  outcome: 'delivered' | 'failed',
  atMs: number,
  failure: { code?: number | null; cause?: DeliveryRecord['last_error_code']; error?: string } = {},
): void {
  const attempts = outcome === 'delivered' ? 1 : delivery.max_attempts;
  let t = atMs;
  const cause = failure.cause ?? 'connection_timeout';
  const error =
    failure.error ?? 'connection_timeout: the target is unreachable: connection refused (ECONNREFUSED)';
  for (let n = 1; n <= attempts; n++) {
    const ok = outcome === 'delivered';
    delivery.attempts.push({
      attempt: n,
      started_at: isoSeconds(t),
      signature_timestamp: Math.floor(t / 1000),
      status_code: ok ? 200 : (failure.code ?? null),
      error_code: ok ? null : cause,
      error: ok ? null : error,
      error_without_body: null,
      duration_ms: ok ? 42 : 3,
    });
    delivery.first_attempted_at ??= isoSeconds(t);
    delivery.last_attempted_at = isoSeconds(t);
    if (n < attempts) t += pastHistorySpanMs(n + 1) - pastHistorySpanMs(n);
  }
  delivery.attempt_count = attempts;
  if (outcome === 'delivered') {
    delivery.last_status_code = 200;
    delivery.delivered_at = isoSeconds(t);
    store.setStatus(delivery, 'delivered');
  } else {
    delivery.last_status_code = failure.code ?? null;
    delivery.last_error = error;
    delivery.last_error_without_body = null;
    delivery.last_error_code = cause;
    store.setStatus(delivery, 'failed');
    store.deadLetter(delivery, t);
  }
}
