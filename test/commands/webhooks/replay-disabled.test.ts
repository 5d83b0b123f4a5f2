import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { call, requestCount, useSandbox } from '../../helpers/sandbox.js';
import { admin, createWebhook, TENANT } from '../../helpers/webhooks.js';

// A disabled webhook receives no events: a replay is a new delivery, so it is refused like a test
// event (409 webhook_disabled, nothing made, the dead-letter entry left queued), and svc says so
// (exit 6, with the command that enables it) for named ids, --dlq and --dry-run alike.
const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 500 } });
const svc = bulkRunner(sandbox);

/** A disabled webhook with one dead-lettered delivery (history only: nothing was sent). */
async function disabledWithEntry() {
  const webhook = await createWebhook(sandbox(), 'http://127.0.0.1:9/hook', { max_attempts: 1 });
  await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
    body: { webhook_id: webhook.id, count: 1 },
  });
  const patched = await call(sandbox(), 'PATCH', `/v1/webhooks/${webhook.id}`, {
    token: sandbox().adminToken,
    tenant: TENANT,
    body: { status: 'disabled' },
  });
  expect(patched.body.status).toBe('disabled');
  const entry = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/dlq`)).body.items[0];
  return { webhook: webhook.id, entry };
}

async function unchanged(webhook: string, entryId: string, deliveries: number) {
  const entry = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook}/dlq/${entryId}`)).body;
  expect([entry.status, entry.replay_count]).toEqual(['queued', 0]);
  const listed = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook}/deliveries`)).body.items;
  expect(listed).toHaveLength(deliveries);
}

describe('replaying to a disabled webhook', () => {
  it('the API refuses it with 409 webhook_disabled and makes nothing', async () => {
    const { webhook, entry } = await disabledWithEntry();
    const r = await admin(
      sandbox(),
      'POST',
      `/v1/webhooks/${webhook}/deliveries/${entry.delivery_id}/replay`,
      {},
    );
    expect([r.status, r.body.error.code, r.body.error.message]).toEqual([
      409,
      'webhook_disabled',
      `webhook ${webhook} is disabled; enable it first`,
    ]);
    await unchanged(webhook, entry.id, 1);
  });

  it.each([
    ['a named delivery', (e: { delivery_id: string }) => [e.delivery_id]],
    ['a named entry', (e: { id: string }) => [e.id]],
    ['--dlq', () => ['--dlq']],
    ['--dlq --dry-run', () => ['--dlq', '--dry-run']],
    ['a named delivery --dry-run', (e: { delivery_id: string }) => [e.delivery_id, '--dry-run']],
  ])('svc webhooks replay %s exits 6 with the command that enables it', async (_name, args) => {
    const { webhook, entry } = await disabledWithEntry();
    const before = await requestCount(sandbox());
    const r = await svc.run(['webhooks', 'replay', webhook, ...args(entry), '--no-wait']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      6,
      '',
      `error: webhook ${webhook} is disabled: a disabled webhook receives no events, replays included; enable it with: svc webhooks update ${webhook} --enable\n`,
    ]);
    // Only the webhook was read.
    expect((await requestCount(sandbox())) - before).toBe(1);
    await unchanged(webhook, entry.id, 1);
  });
});
