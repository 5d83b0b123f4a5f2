/**
 * What the sandbox says of its deliveries is true for a receiver: deliveries are signed with the
 * wall clock, not the simulated one (so moving the sandbox clock does not make them stale); the
 * dead-letter fixture's history ends no later than now (so "oldest first" holds); a disabled
 * webhook gets no test or triggered events.
 */
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/webhooks/signature.js';
import { ACME, call, sandboxNow, useSandboxContext } from '../helpers/sandbox.js';
import { startTarget } from '../helpers/targets.js';
import { ANSWERED_TIMEOUT_MS, admin, createWebhook, settle } from '../helpers/webhooks.js';

/** The sandbox's wall clock, injected: what a receiver's clock reads. */
const WALL = Date.parse('2026-03-01T10:00:00Z');
const svc = useSandboxContext({
  // Every target here answers: the request timeout is far above need (ANSWERED_TIMEOUT_MS).
  webhooks: { timeScale: 0.0005, requestTimeoutMs: ANSWERED_TIMEOUT_MS },
  wallClock: () => WALL,
});
const sandbox = () => svc.sandbox();

describe('POST /_sandbox/webhooks/dead-letters', () => {
  it('records a history that ends no later than now, so the queue is oldest first', async () => {
    const target = await startTarget(() => ({ status: 503 }));
    // Five attempts: the fixture's history spans the retry schedule (7.5 min).
    const webhook = await createWebhook(sandbox(), target.url);
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook.id, count: 2 },
    });
    const now = await sandboxNow(sandbox());
    // A real failure after the fixture: dead-lettered now.
    await call(sandbox(), 'POST', '/_sandbox/webhooks/events', {
      body: { type: 'exception.sla.breached', webhook_id: webhook.id },
    });
    await settle(sandbox());
    const { items } = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/dlq?status=all`)).body;
    expect(items).toHaveLength(3);
    for (const entry of items.slice(0, 2)) {
      expect(Date.parse(entry.dead_lettered_at)).toBeLessThanOrEqual(now);
      const d = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/deliveries/${entry.delivery_id}`))
        .body;
      expect(Date.parse(d.last_attempted_at)).toBeLessThanOrEqual(now);
      expect(Date.parse(d.created_at)).toBeLessThanOrEqual(Date.parse(d.first_attempted_at));
    }
    const times = items.map((e: { dead_lettered_at: string }) => Date.parse(e.dead_lettered_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    await target.close();
  });
});

describe('a disabled webhook gets no events', () => {
  it('test is refused (409 webhook_disabled), and svc names the flag that enables it', async () => {
    const target = await startTarget(() => ({ status: 200 }));
    const webhook = await createWebhook(sandbox(), target.url, { status: 'disabled' });
    const raw = await admin(sandbox(), 'POST', `/v1/webhooks/${webhook.id}/test`, {});
    expect(raw.status).toBe(409);
    expect(raw.body.error.code).toBe('webhook_disabled');
    expect(raw.body.error.message).toMatch(/disabled.*enable it first/);

    const r = await svc.run(['webhooks', 'test', webhook.id, '--no-wait']);
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: webhook ${webhook.id} is disabled; enable it first \\(HTTP 409, webhook_disabled, request req_\\w+\\); enable it with: svc webhooks update ${webhook.id} --enable\\n$`,
      ),
    );
    expect(target.received).toHaveLength(0);
    await target.close();
  });

  it('sandbox trigger --webhook is refused alike; without --webhook a disabled webhook gets nothing', async () => {
    const target = await startTarget(() => ({ status: 200 }));
    const webhook = await createWebhook(sandbox(), target.url, { status: 'disabled' });
    const r = await svc.run(['sandbox', 'trigger', 'exception.sla.breached', '--webhook', webhook.id]);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`enable it with: svc webhooks update ${webhook.id} --enable`);
    const all = await call(sandbox(), 'POST', '/_sandbox/webhooks/events', {
      body: { type: 'exception.sla.breached', tenant_id: ACME },
    });
    expect(all.status).toBe(201);
    await settle(sandbox());
    const summary = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/deliveries`)).body.summary;
    expect(summary.total).toBe(0);
    expect(target.received).toHaveLength(0);
    await target.close();
  });
});

describe('deliveries are signed with the wall clock', () => {
  // Last in the file: it moves the sandbox clock two hours.
  it('after POST /_sandbox/clock advances 2 h, a delivery still verifies on the receiver’s clock', async () => {
    const target = await startTarget(() => ({ status: 200 }));
    const webhook = await createWebhook(sandbox(), target.url, { max_attempts: 1 });
    await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 7200 } });
    await call(sandbox(), 'POST', '/_sandbox/webhooks/events', {
      body: { type: 'exception.sla.breached', webhook_id: webhook.id },
    });
    await settle(sandbox());
    expect(target.received).toHaveLength(1);
    const [sent] = target.received;
    const header = sent!.headers['x-svc-signature'] as string;
    expect(header).toMatch(new RegExp(`^t=${WALL / 1000},v1=`));
    expect(
      verifySignature(sent!.body, header, webhook.secret, { nowSeconds: Math.floor(WALL / 1000) }),
    ).toMatchObject({ valid: true, age: 0 });
    await target.close();
  });
});
