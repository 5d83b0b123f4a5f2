/**
 * attack26b F3: `webhooks test W` said "✓ test event delivered on attempt 1 (HTTP 200)" from a
 * delivery of another webhook and another event, in the test's answer or in a poll of it. The
 * delivery (the answer's and each poll's) must be W's, of the test event, and the poll's the one
 * asked: otherwise exit 1, what was seen, no ✓. Through a proxy that rewrites the sandbox's answer;
 * W's target is unreachable, so its real test delivery never succeeds.
 */
import { describe, expect, it } from 'vitest';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const proxy = useReshapingProxy(svc.sandbox);
const viaProxy = (argv: string[]) => svc.run(argv, { env: { SVC_BASE_URL: proxy().url }, now: Date.now() });

/** What a delivery that went well says. */
const DELIVERED = { status: 'delivered', attempt_count: 1, last_status_code: 200, last_error: null };
/** The test's answer, its delivery not yet attempted: svc polls it. */
const PENDING = { status: 'pending', attempt_count: 0, last_status_code: null, next_retry_at: null };

type Body = Record<string, unknown> & { delivery: Record<string, unknown> };

/** The test's answer changed by `test`, each poll's answer by `poll`. */
const answers =
  (test: (body: Body) => void, poll: (body: Record<string, unknown>) => void = () => {}) =>
  (answer: Reshaped) => {
    if (answer.status >= 300) return;
    if (answer.method === 'POST' && answer.path.endsWith('/test')) test(answer.body as Body);
    if (answer.method === 'GET' && /\/deliveries\/[^/]+$/.test(answer.path))
      poll(answer.body as Record<string, unknown>);
  };

describe('webhooks test: a delivery not of W, or not of the test event, is no ✓ (attack26b F3)', () => {
  it('the answer names a delivery of another webhook', async () => {
    const w = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/w')).id;
    const other = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/other')).id;
    proxy().set({
      reshape: answers((body) => Object.assign(body.delivery, DELIVERED, { webhook_id: other })),
    });
    const r = await viaProxy(['webhooks', 'test', w]);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toContain(
      `error: the server's answer to POST /v1/webhooks/${w}/test is about delivery.webhook_id "${other}", not the delivery.webhook_id "${w}" asked for`,
    );
    expect(r.stderr).not.toContain('✓');
  });

  it('the answer names a delivery of another event', async () => {
    const w = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/w')).id;
    let event = '';
    let delivery = '';
    proxy().set({
      reshape: answers((body) => {
        event = (body.event as { id: string }).id;
        delivery = body.delivery.id as string;
        Object.assign(body.delivery, DELIVERED, { event_id: 'evt_other' });
      }),
    });
    const r = await viaProxy(['webhooks', 'test', w]);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toContain(
      `error: the server's answer to POST /v1/webhooks/${w}/test is about delivery ${delivery} of event evt_other, not of the test event ${event} it names`,
    );
    expect(r.stderr).not.toContain('✓');
  });

  it.each([
    ['another event', { event_id: 'evt_other' }, 'event_id', 'evt_other'],
    ['another webhook', { webhook_id: 'wh_other' }, 'webhook_id', 'wh_other'],
    ['another delivery', { id: 'dlv_other' }, 'id', 'dlv_other'],
  ] as const)('a poll answered with a delivered delivery of %s', async (_, fields, field, came) => {
    const w = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/w')).id;
    proxy().set({
      reshape: answers(
        (body) => Object.assign(body.delivery, PENDING),
        (body) => Object.assign(body, DELIVERED, fields),
      ),
    });
    const r = await viaProxy(['webhooks', 'test', w]);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: the server's answer to GET /v1/webhooks/${w}/deliveries/\\S+ is about ${field} "${came}", not the ${field} "\\S+" asked for`,
      ),
    );
    expect(r.stderr).not.toContain('✓');
  });
});
