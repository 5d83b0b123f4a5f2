import type { DlqEntry } from '../../src/api/schemas/webhooks.js';
import { tenantId } from '../../src/sandbox/seed.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { call } from './sandbox.js';
import { startTarget } from './targets.js';

export const TENANT = tenantId('acme-treasury');
let keys = 0;
const key = () => `test-${process.pid}-${Date.now()}-${++keys}`;

/** The admin's call to the sandbox in Acme Treasury. */
export function admin(sandbox: Sandbox, method: string, path: string, body?: Record<string, unknown>) {
  const withKey =
    body && method === 'POST' && body.idempotency_key === undefined
      ? { ...body, idempotency_key: key() }
      : body;
  return call(sandbox, method, path, {
    token: sandbox.adminToken,
    tenant: TENANT,
    ...(withKey === undefined ? {} : { body: withKey }),
  });
}

export async function createWebhook(
  sandbox: Sandbox,
  url: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; secret: string }> {
  const r = await admin(sandbox, 'POST', '/v1/webhooks', {
    url,
    event_types: ['exception.sla.breached', 'webhook.test'],
    ...extra,
  });
  if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${r.text}`);
  return { id: r.body.id, secret: r.body.secret };
}

export async function emit(
  sandbox: Sandbox,
  webhookId: string,
  count = 1,
  type = 'exception.sla.breached',
): Promise<{ events: Array<{ id: string; delivery_ids: string[] }> }> {
  const r = await call(sandbox, 'POST', '/_sandbox/webhooks/events', {
    body: { type, webhook_id: webhookId, count },
  });
  if (r.status !== 201) throw new Error(`emit: ${r.status} ${r.text}`);
  return r.body;
}

export async function settle(sandbox: Sandbox, timeoutMs = 20_000): Promise<void> {
  const r = await call(sandbox, 'POST', '/_sandbox/webhooks/settle', { body: { timeout_ms: timeoutMs } });
  if (!r.body.settled) throw new Error(`deliveries did not settle: ${r.text}`);
}

export async function delivery(sandbox: Sandbox, webhookId: string, deliveryId: string) {
  const r = await admin(sandbox, 'GET', `/v1/webhooks/${webhookId}/deliveries/${deliveryId}`);
  if (r.status !== 200) throw new Error(`get delivery: ${r.status} ${r.text}`);
  return r.body;
}

/** How many dead-letter entries of a webhook were replayed how many times: `{ 1: 400 }`. */
export async function replayCounts(sandbox: Sandbox, webhookId: string): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  let cursor: string | null = null;
  do {
    const page: { items: Array<{ replay_count: number }>; next_cursor: string | null } = (
      await admin(
        sandbox,
        'GET',
        `/v1/webhooks/${webhookId}/dlq?status=all&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      )
    ).body;
    for (const entry of page.items) counts[entry.replay_count] = (counts[entry.replay_count] ?? 0) + 1;
    cursor = page.next_cursor;
  } while (cursor);
  return counts;
}

/** Polls `done` every 20 ms until it holds (a test's own timeout ends a wait that never does). */
export async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** A webhook's dead-letter entries with a status (`queued`, `replayed`…), up to 200. */
export async function dlqEntries(sandbox: Sandbox, webhookId: string, status: string): Promise<DlqEntry[]> {
  return (await admin(sandbox, 'GET', `/v1/webhooks/${webhookId}/dlq?status=${status}&limit=200`)).body.items;
}

/**
 * A webhook on a target that answers `answer`, with `count` events dead-lettered by the sandbox's
 * control: what a replay of its queue works on. `extra` is the webhook's other fields.
 */
export async function deadLetteredQueue(
  sandbox: Sandbox,
  answer: { status: number; delayMs?: number },
  count: number,
  extra: Record<string, unknown> = {},
) {
  const target = await startTarget(() => answer);
  const webhook = (await createWebhook(sandbox, target.url, extra)).id;
  await call(sandbox, 'POST', '/_sandbox/webhooks/dead-letters', { body: { webhook_id: webhook, count } });
  return { webhook, target, entries: await dlqEntries(sandbox, webhook, 'queued') };
}
