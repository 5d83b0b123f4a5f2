import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/errors.js';
import {
  DeliveryNotFoundError,
  DlqEntryNotFoundError,
  WebhookNotFoundError,
} from '../../src/platform/errors.js';
import { usePlatform } from '../helpers/platform.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox();
const client = usePlatform(sandbox);

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

async function deadLetters(webhook: string, count: number): Promise<void> {
  const filled = await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
    body: { webhook_id: webhook, count },
  });
  if (filled.status !== 201) throw new Error(`dead-letters: ${filled.status} ${filled.text}`);
}

describe('platform.webhooks', () => {
  it('creates, reads, lists, updates, rotates and deletes a webhook', async () => {
    const { platform } = client();
    const created = await platform.webhooks.create({
      url: 'http://127.0.0.1:9/hook',
      event_types: ['webhook.test'],
      description: 'platform test',
    });
    expect(created.secret).toMatch(/^whsec_/);
    expect((await platform.webhooks.get(created.id)).url).toBe('http://127.0.0.1:9/hook');
    expect((await platform.webhooks.list()).items.map((w) => w.id)).toContain(created.id);
    const ids: string[] = [];
    for await (const webhook of platform.webhooks.listAll({ limit: 1 })) ids.push(webhook.id);
    expect(ids).toContain(created.id);
    expect((await platform.webhooks.update(created.id, { description: 'changed' })).description).toBe(
      'changed',
    );
    const rotated = await platform.webhooks.rotateSecret(created.id);
    expect(rotated.secret).not.toBe(created.secret);
    const deleted = await platform.webhooks.delete(created.id);
    expect(deleted).toMatchObject({ id: created.id, deleted: true });
    expect(await failure(platform.webhooks.get(created.id))).toBeInstanceOf(WebhookNotFoundError);
  });

  it('sends a test event, and reads its delivery and payload bytes', async () => {
    const { platform } = client();
    const webhook = await platform.webhooks.create({
      url: 'http://127.0.0.1:9/t',
      event_types: ['webhook.test'],
    });
    const test = await platform.webhooks.test(webhook.id);
    expect(test.event.type).toBe('webhook.test');
    const delivery = await platform.webhooks.deliveries.get(webhook.id, test.delivery.id);
    expect(delivery).toMatchObject({ id: test.delivery.id, event_id: test.event.id });
    expect(Array.isArray(delivery.attempts)).toBe(true);
    const bytes = await platform.webhooks.deliveries.payload(webhook.id, test.delivery.id);
    expect(JSON.parse(bytes).id).toBe(test.event.id);
    const list = await platform.webhooks.deliveries.list(webhook.id, { limit: 5 });
    expect(list.summary.total).toBe(1);
    expect(list.items[0]?.id).toBe(test.delivery.id);
    const missing = await failure(platform.webhooks.deliveries.get(webhook.id, 'dlv_nope'));
    expect(missing).toBeInstanceOf(DeliveryNotFoundError);
    expect(exitCodeFor(missing)).toBe(5);
  });

  it('pages the dead-letter queue with its total, replays and discards entries', async () => {
    const { platform } = client();
    const webhook = await platform.webhooks.create({
      url: 'http://127.0.0.1:9/dlq',
      event_types: ['exception.sla.breached'],
    });
    await deadLetters(webhook.id, 5);
    const page = await platform.webhooks.dlq.list(webhook.id, { limit: 2 });
    expect(page.total).toBe(5);
    expect(page.items).toHaveLength(2);
    const totals: Array<number | undefined> = [];
    const entries: string[] = [];
    for await (const entry of platform.webhooks.dlq.listAll(webhook.id, { limit: 2 }, {}, (p) =>
      totals.push(p.total),
    )) {
      entries.push(entry.id);
    }
    expect(entries).toHaveLength(5);
    expect(totals).toEqual([5, 5, 5]);
    const first = page.items[0]!;
    expect((await platform.webhooks.dlq.get(webhook.id, first.id)).delivery_id).toBe(first.delivery_id);
    const { data: replay, response } = await platform.webhooks.deliveries
      .replay(webhook.id, first.delivery_id, { idempotencyKey: 'platform-dlq-replay' })
      .withResponse();
    expect(replay.replay_of).toBe(first.delivery_id);
    expect(response.status).toBe(201);
    const again = await platform.webhooks.deliveries
      .replay(webhook.id, first.delivery_id, { idempotencyKey: 'platform-dlq-replay' })
      .withResponse();
    expect(again.response.replayed).toBe(true);
    expect(again.data.id).toBe(replay.id);
    const discarded = await platform.webhooks.dlq.discard(webhook.id, page.items[1]!.id);
    expect(discarded.status).toBe('discarded');
    expect((await platform.webhooks.dlq.list(webhook.id)).total).toBe(3);
    expect(await failure(platform.webhooks.dlq.get(webhook.id, 'dlq_nope'))).toBeInstanceOf(
      DlqEntryNotFoundError,
    );
    expect(await failure(platform.webhooks.dlq.list('wh_nope'))).toBeInstanceOf(WebhookNotFoundError);
  });

  it('passes a signal through: an aborted call is an interruption (exit 130)', async () => {
    const { platform } = client();
    const controller = new AbortController();
    controller.abort();
    const error = await failure(platform.webhooks.list({}, { signal: controller.signal }));
    expect(exitCodeFor(error)).toBe(130);
  });
});
