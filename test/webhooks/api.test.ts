import { describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../src/sandbox/delivery/events.js';
import { verifySignature } from '../../src/webhooks/signature.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { gate, startTarget } from '../helpers/targets.js';
import {
  ANSWERED_TIMEOUT_MS,
  admin,
  createWebhook,
  emit,
  settle,
  TENANT,
  until,
} from '../helpers/webhooks.js';

// Every target here answers (the one held in flight once its test lets it go): the request timeout
// is far above need (ANSWERED_TIMEOUT_MS).
const sandbox = useSandbox({ webhooks: { timeScale: 0.0005, requestTimeoutMs: ANSWERED_TIMEOUT_MS } });

async function as(user: string, method: string, path: string) {
  const token = (await call(sandbox(), 'POST', '/_sandbox/tokens', { body: { user_id: user } })).body
    .access_token;
  return call(sandbox(), method, path, { token, tenant: TENANT });
}

describe('webhook subscriptions', () => {
  it('lists the seeded webhooks, never with a secret', async () => {
    const r = await admin(sandbox(), 'GET', '/v1/webhooks');
    expect(r.status).toBe(200);
    const ids = r.body.items.map((w: { id: string }) => w.id);
    expect(ids).toEqual(expect.arrayContaining([SEEDED_WEBHOOKS.exceptions, SEEDED_WEBHOOKS.warehouse]));
    expect(r.text).not.toContain('whsec_');
    expect(r.body.items[0]).toMatchObject({
      id: SEEDED_WEBHOOKS.exceptions,
      url: 'http://127.0.0.1:9/svc/exceptions',
      status: 'enabled',
      max_attempts: 5,
      secret_rotated_at: null,
    });
  });

  it('needs tenant_admin', async () => {
    const r = await as('usr_viewer', 'GET', '/v1/webhooks');
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('insufficient_role');
  });

  it('creates one (the secret shown once), reads, updates and deletes it', async () => {
    const created = await admin(sandbox(), 'POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:1/x',
      event_types: ['exception.created'],
      description: 'mine',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: 'http://127.0.0.1:1/x',
      event_types: ['exception.created'],
      status: 'enabled',
      max_attempts: 5,
      warning: 'Store the signing secret now: it is not shown again (rotate it to get a new one).',
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const id = created.body.id;
    const got = await admin(sandbox(), 'GET', `/v1/webhooks/${id}`);
    expect(got.body.secret).toBeUndefined();
    const patched = await admin(sandbox(), 'PATCH', `/v1/webhooks/${id}`, {
      status: 'disabled',
      max_attempts: 3,
    });
    expect(patched.body).toMatchObject({ status: 'disabled', max_attempts: 3 });
    const deleted = await admin(sandbox(), 'DELETE', `/v1/webhooks/${id}`);
    expect(deleted.body).toMatchObject({ id, deleted: true });
    expect((await admin(sandbox(), 'GET', `/v1/webhooks/${id}`)).status).toBe(404);
  });

  it.each([
    [{ url: 'ftp://x/y', event_types: ['webhook.test'] }, 'url must be an http or https URL'],
    [{ url: 'not a url', event_types: ['webhook.test'] }, 'url is not a valid URL'],
    [{ url: 'http://u:p@x/y', event_types: ['webhook.test'] }, 'url must not carry credentials'],
    [{ url: 'http://x/y', event_types: ['nope'] }, undefined],
    [{ url: 'http://x/y', event_types: [] }, undefined],
  ])('refuses %j with 400', async (body, message) => {
    const r = await admin(sandbox(), 'POST', '/v1/webhooks', body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    if (message) expect(r.body.error.message).toBe(message);
  });

  it('rotates the secret: for a day every delivery carries a v1 per secret', async () => {
    const target = await startTarget(() => ({ status: 200 }));
    const webhook = await createWebhook(sandbox(), target.url);
    const rotated = await admin(sandbox(), 'POST', `/v1/webhooks/${webhook.id}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(webhook.secret);
    expect(rotated.body.secret_rotated_at).not.toBeNull();
    await emit(sandbox(), webhook.id);
    await settle(sandbox());
    const { body, headers } = target.received[0]!;
    const header = headers['x-svc-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    const t = Number(/t=(\d+)/.exec(header)![1]);
    expect(verifySignature(body, header, webhook.secret, { nowSeconds: t })).toMatchObject({
      valid: true,
      matched: 2,
    });
    expect(verifySignature(body, header, rotated.body.secret, { nowSeconds: t })).toMatchObject({
      matched: 1,
    });
  });
});

describe('deliveries, the dead-letter queue, test events', () => {
  it('lists deliveries most recent first with a summary, a status filter, a limit and a cursor', async () => {
    const target = await startTarget((n) => (n % 3 === 0 ? { status: 500 } : { status: 200 }));
    const webhook = await createWebhook(sandbox(), target.url, { max_attempts: 1 });
    await emit(sandbox(), webhook.id, 9);
    await settle(sandbox());
    const all = await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/deliveries`);
    expect(all.body.summary).toEqual({ total: 9, delivered: 6, failed: 3, in_flight: 0, recovered: 0 });
    expect(all.body.items).toHaveLength(9);
    expect(all.body.next_cursor).toBeNull();
    const failed = await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/deliveries?status=failed`);
    expect(failed.body.items.map((d: { status: string }) => d.status)).toEqual([
      'failed',
      'failed',
      'failed',
    ]);
    expect(failed.body.summary.total).toBe(9);
    const first = await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/deliveries?limit=4`);
    expect(first.body.items.map((d: { id: string }) => d.id)).toEqual(
      all.body.items.slice(0, 4).map((d: { id: string }) => d.id),
    );
    const next = await admin(
      sandbox(),
      'GET',
      `/v1/webhooks/${webhook.id}/deliveries?limit=4&cursor=${first.body.next_cursor}`,
    );
    expect(next.body.items.map((d: { id: string }) => d.id)).toEqual(
      all.body.items.slice(4, 8).map((d: { id: string }) => d.id),
    );
    const other = await admin(
      sandbox(),
      'GET',
      `/v1/webhooks/${webhook.id}/deliveries?status=failed&cursor=${first.body.next_cursor}`,
    );
    expect(other.body.error.code).toBe('invalid_cursor');
    for (const q of ['limit=0', 'limit=201', 'status=lost']) {
      expect((await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/deliveries?${q}`)).status).toBe(400);
    }
  });

  it('pages the dead-letter queue with filters and a total, and discards an entry', async () => {
    const webhook = await createWebhook(sandbox(), 'http://127.0.0.1:9/x');
    const filled = await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook.id, count: 5 },
    });
    expect(filled.body.summary).toEqual({ total: 5, delivered: 0, failed: 5, in_flight: 0, recovered: 0 });
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: {
        webhook_id: webhook.id,
        count: 2,
        type: 'exception.created',
        error_code: 'payload_too_large',
        status_code: 413,
      },
    });
    const page = await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/dlq?limit=3`);
    expect(page.body.total).toBe(7);
    expect(page.body.items).toHaveLength(3);
    const rest = await admin(
      sandbox(),
      'GET',
      `/v1/webhooks/${webhook.id}/dlq?limit=3&cursor=${page.body.next_cursor}`,
    );
    const last = await admin(
      sandbox(),
      'GET',
      `/v1/webhooks/${webhook.id}/dlq?limit=3&cursor=${rest.body.next_cursor}`,
    );
    expect([...page.body.items, ...rest.body.items, ...last.body.items]).toHaveLength(7);
    expect(last.body.next_cursor).toBeNull();
    const created = await admin(
      sandbox(),
      'GET',
      `/v1/webhooks/${webhook.id}/dlq?event_type=exception.created`,
    );
    expect(created.body.items.map((e: { last_error_code: string }) => e.last_error_code)).toEqual([
      'payload_too_large',
      'payload_too_large',
    ]);
    const future = await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/dlq?since=2999-01-01T00:00:00Z`);
    expect(future.body).toEqual({ items: [], total: 0, next_cursor: null });
    const entry = page.body.items[0];
    const discarded = await admin(sandbox(), 'DELETE', `/v1/webhooks/${webhook.id}/dlq/${entry.id}`);
    expect(discarded.body).toMatchObject({ id: entry.id, status: 'discarded' });
    expect(discarded.body.discarded_at).not.toBeNull();
    expect((await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/dlq`)).body.total).toBe(6);
    expect(
      (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/dlq?status=discarded`)).body.total,
    ).toBe(1);
    expect((await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/dlq/nope`)).status).toBe(404);
  });

  it('replays once per idempotency key, refuses a delivery still in flight, and 404s an unknown one', async () => {
    const webhook = await createWebhook(sandbox(), 'http://127.0.0.1:9/x');
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook.id, count: 1 },
    });
    const entry = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/dlq`)).body.items[0];
    const path = `/v1/webhooks/${webhook.id}/deliveries/${entry.delivery_id}/replay`;
    const a = await admin(sandbox(), 'POST', path, { idempotency_key: 'replay-once' });
    const b = await admin(sandbox(), 'POST', path, { idempotency_key: 'replay-once' });
    expect(a.status).toBe(201);
    expect(b.body.id).toBe(a.body.id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    // The target holds its answer until the replay was refused: in flight for as long as the test
    // needs, not for a request timeout (at 400 ms, a slow step here found the delivery failed: 201).
    const held = gate();
    const holding = await startTarget(() => ({ status: 200, until: held.until }));
    const slow = await createWebhook(sandbox(), holding.url, { max_attempts: 1 });
    const { events } = await emit(sandbox(), slow.id);
    await until(() => holding.received.length === 1);
    const inFlight = await admin(
      sandbox(),
      'POST',
      `/v1/webhooks/${slow.id}/deliveries/${events[0]!.delivery_ids[0]}/replay`,
      {},
    );
    expect(inFlight.status).toBe(409);
    expect(inFlight.body.error).toMatchObject({
      code: 'delivery_in_progress',
      message: `delivery ${events[0]!.delivery_ids[0]} is still pending; replay it once it is delivered or failed`,
    });
    held.open();
    expect(
      (await admin(sandbox(), 'POST', `/v1/webhooks/${webhook.id}/deliveries/dlv_nope/replay`, {})).status,
    ).toBe(404);
    expect(
      (await admin(sandbox(), 'POST', `/v1/webhooks/wh_nope/deliveries/${entry.delivery_id}/replay`, {}))
        .status,
    ).toBe(404);
  });

  it('sends webhook.test to one webhook whatever its kinds', async () => {
    const target = await startTarget(() => ({ status: 200 }));
    const webhook = await createWebhook(sandbox(), target.url, { event_types: ['reconciliation.failed'] });
    const r = await admin(sandbox(), 'POST', `/v1/webhooks/${webhook.id}/test`, {});
    expect(r.status).toBe(201);
    expect(r.body.event.type).toBe('webhook.test');
    expect(r.body.delivery).toMatchObject({
      webhook_id: webhook.id,
      event_type: 'webhook.test',
      event_id: r.body.event.id,
    });
    await settle(sandbox());
    expect(JSON.parse(target.received[0]!.body.toString())).toMatchObject({
      id: r.body.event.id,
      type: 'webhook.test',
      tenant_id: TENANT,
      data: { webhook_id: webhook.id },
    });
  });

  it('fans an event out to every subscribed, enabled webhook of the tenant', async () => {
    const a = await startTarget(() => ({ status: 200 }));
    const b = await startTarget(() => ({ status: 200 }));
    await createWebhook(sandbox(), a.url, { event_types: ['reconciliation.completed'] });
    const disabled = await createWebhook(sandbox(), b.url, {
      event_types: ['reconciliation.completed'],
      status: 'disabled',
    });
    const r = await call(sandbox(), 'POST', '/_sandbox/webhooks/events', {
      body: { type: 'reconciliation.completed', tenant_id: TENANT, count: 2 },
    });
    expect(r.status).toBe(201);
    // Waits for a's two deliveries, not for settle(): the seeded webhook (a dead port) is
    // subscribed too, and its retries would take two more seconds to end. No limit of its own
    // (it was 2 s): the test's timeout ends a wait that never does.
    await until(() => a.received.length >= 2);
    expect(a.received).toHaveLength(2);
    // The disabled webhook got no delivery at all (none sent, none queued).
    const none = await admin(sandbox(), 'GET', `/v1/webhooks/${disabled.id}/deliveries`);
    expect(none.body.items).toEqual([]);
    expect(b.received).toHaveLength(0);
  });
});
