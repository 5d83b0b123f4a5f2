import { describe, expect, it } from 'vitest';
import { call, useSandbox } from '../helpers/sandbox.js';
import { admin, createWebhook } from '../helpers/webhooks.js';

/**
 * Replaying a dead-lettered delivery and discarding its entry are atomic with respect to each
 * other: an entry leaves the queue once, by one of them, and whoever comes second is told so.
 */
const sandbox = useSandbox();

async function queue(count: number) {
  const webhook = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
  await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', { body: { webhook_id: webhook, count } });
  const items = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook}/dlq?limit=200`)).body.items as Array<{
    id: string;
    delivery_id: string;
  }>;
  return { webhook, entries: items };
}
const replay = (webhook: string, delivery: string, body: Record<string, unknown> = {}) =>
  admin(sandbox(), 'POST', `/v1/webhooks/${webhook}/deliveries/${delivery}/replay`, body);
const entry = async (webhook: string, id: string) =>
  (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook}/dlq/${id}`)).body;
const deliveries = async (webhook: string) =>
  (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook}/deliveries?limit=200`)).body.summary.total;

describe('a replay that names its dead-letter entry (dlq_entry_id)', () => {
  it('replays a queued entry once: a second replay of it, with another key, is 409 dlq_entry_not_queued', async () => {
    const {
      webhook,
      entries: [a],
    } = await queue(1);
    const first = await replay(webhook, a!.delivery_id, { dlq_entry_id: a!.id });
    expect(first.status).toBe(201);
    const before = await deliveries(webhook);
    const second = await replay(webhook, a!.delivery_id, { dlq_entry_id: a!.id });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({
      code: 'dlq_entry_not_queued',
      message: `dead-letter entry ${a!.id} was replayed already (as ${first.body.id}); it is not replayed again`,
      details: [{ entry: { id: a!.id, status: 'replayed', last_replay_delivery_id: first.body.id } }],
    });
    expect(await deliveries(webhook)).toBe(before);
  });

  it('of a discarded entry is 409 and sends nothing; the delivery named alone is still replayed', async () => {
    const {
      webhook,
      entries: [a],
    } = await queue(1);
    expect((await admin(sandbox(), 'DELETE', `/v1/webhooks/${webhook}/dlq/${a!.id}`)).status).toBe(200);
    const before = await deliveries(webhook);
    const refused = await replay(webhook, a!.delivery_id, { dlq_entry_id: a!.id });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'dlq_entry_not_queued']);
    expect(refused.body.error.message).toBe(
      `dead-letter entry ${a!.id} was discarded; it is not replayed (replay its delivery ${a!.delivery_id} by id to send it anyway)`,
    );
    expect(await deliveries(webhook)).toBe(before);
    expect((await replay(webhook, a!.delivery_id)).status).toBe(201);
  });

  it('must be the entry of that delivery (400), and one the webhook has (404)', async () => {
    const {
      webhook,
      entries: [a, b],
    } = await queue(2);
    const other = await replay(webhook, a!.delivery_id, { dlq_entry_id: b!.id });
    expect(other.status).toBe(400);
    expect(other.body.error.details).toEqual([
      {
        field: 'dlq_entry_id',
        message: `is the entry of delivery ${b!.delivery_id}, not of ${a!.delivery_id}`,
      },
    ]);
    const unknown = await replay(webhook, a!.delivery_id, { dlq_entry_id: 'dlq_000000000000000000000000' });
    expect(unknown.status).toBe(404);
    expect((await entry(webhook, a!.id)).status).toBe('queued');
  });
});

describe('discarding an entry', () => {
  it('already replayed is 409 dlq_entry_not_queued (its event was sent), and the entry stays replayed', async () => {
    const {
      webhook,
      entries: [a],
    } = await queue(1);
    const made = await replay(webhook, a!.delivery_id);
    const r = await admin(sandbox(), 'DELETE', `/v1/webhooks/${webhook}/dlq/${a!.id}`);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({
      code: 'dlq_entry_not_queued',
      message: `dead-letter entry ${a!.id} was replayed already (as ${made.body.id}); it is not discarded`,
    });
    expect(await entry(webhook, a!.id)).toMatchObject({ status: 'replayed', discarded_at: null });
  });

  it('already discarded answers as before (idempotent)', async () => {
    const {
      webhook,
      entries: [a],
    } = await queue(1);
    const first = await admin(sandbox(), 'DELETE', `/v1/webhooks/${webhook}/dlq/${a!.id}`);
    const again = await admin(sandbox(), 'DELETE', `/v1/webhooks/${webhook}/dlq/${a!.id}`);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body.discarded_at).toBe(first.body.discarded_at);
  });
});
