import { describe, expect, it } from 'vitest';
import { call, useSandbox } from '../helpers/sandbox.js';
import { startTarget } from '../helpers/targets.js';
import { ANSWERED_TIMEOUT_MS, admin, createWebhook, delivery, emit, settle } from '../helpers/webhooks.js';

// Issue 13: "24 failed" forever after every failure was replayed and delivered is a lie; and the
// sandbox needs a documented way to make a target fail.
// A delivery's time limit far above a healthy target's answer on a loaded machine (at 400 ms a
// replay to the healthy target was once counted failed under load; 3 s is not far above a load of
// 20 either): ANSWERED_TIMEOUT_MS. The timeout fault does not wait, it only names the limit.
const sandbox = useSandbox({ webhooks: { timeScale: 0.0005, requestTimeoutMs: ANSWERED_TIMEOUT_MS } });

async function summary(webhookId: string) {
  return (await admin(sandbox(), 'GET', `/v1/webhooks/${webhookId}/deliveries`)).body.summary;
}

async function replay(webhookId: string, deliveryId: string): Promise<string> {
  const r = await admin(sandbox(), 'POST', `/v1/webhooks/${webhookId}/deliveries/${deliveryId}/replay`, {});
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}

describe('a failed delivery whose replay is delivered', () => {
  it('counts as recovered, not failed, and says which replay recovered it', async () => {
    let healthy = false;
    const target = await startTarget(() => (healthy ? { status: 200 } : { status: 500 }));
    const webhook = await createWebhook(sandbox(), target.url, { max_attempts: 1 });
    const { events } = await emit(sandbox(), webhook.id, 3);
    await settle(sandbox());
    const ids = events.map((e) => e.delivery_ids[0]!);
    expect(await summary(webhook.id)).toEqual({
      total: 3,
      delivered: 0,
      failed: 3,
      in_flight: 0,
      recovered: 0,
    });

    healthy = true;
    const replays = [await replay(webhook.id, ids[0]!), await replay(webhook.id, ids[1]!)];
    await settle(sandbox());
    expect(await summary(webhook.id)).toEqual({
      total: 5,
      delivered: 2,
      failed: 1,
      in_flight: 0,
      recovered: 2,
    });
    expect(await delivery(sandbox(), webhook.id, ids[0]!)).toMatchObject({
      status: 'recovered',
      recovered_by: replays[0],
      attempt_count: 1,
      last_status_code: 500,
    });
    expect(await delivery(sandbox(), webhook.id, ids[2]!)).toMatchObject({
      status: 'failed',
      recovered_by: null,
    });
    const failedOnly = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/deliveries?status=failed`))
      .body;
    expect(failedOnly.items.map((d: { id: string }) => d.id)).toEqual([ids[2]]);
    const recovered = (
      await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/deliveries?status=recovered`)
    ).body;
    expect(recovered.items.map((d: { id: string }) => d.id).sort()).toEqual([ids[0], ids[1]].sort());
    await target.close();
  });

  it('recovers the whole chain when a replay of a failed replay is delivered', async () => {
    let healthy = false;
    const target = await startTarget(() => (healthy ? { status: 204 } : { status: 503 }));
    const webhook = await createWebhook(sandbox(), target.url, { max_attempts: 1 });
    const first = (await emit(sandbox(), webhook.id, 1)).events[0]!.delivery_ids[0]!;
    await settle(sandbox());
    const second = await replay(webhook.id, first);
    await settle(sandbox());
    expect((await delivery(sandbox(), webhook.id, second)).status).toBe('failed');
    healthy = true;
    const third = await replay(webhook.id, second);
    await settle(sandbox());
    for (const id of [first, second]) {
      expect(await delivery(sandbox(), webhook.id, id)).toMatchObject({
        status: 'recovered',
        recovered_by: third,
      });
    }
    expect(await summary(webhook.id)).toMatchObject({ total: 3, delivered: 1, failed: 0, recovered: 2 });
    // A recovered delivery is settled: it can be replayed again.
    await replay(webhook.id, first);
    await settle(sandbox());
    await target.close();
  });
});

describe('PUT /_sandbox/webhooks/{id}/target-fault', () => {
  const setFault = (id: string, body: Record<string, unknown>) =>
    call(sandbox(), 'PUT', `/_sandbox/webhooks/${id}/target-fault`, { body });

  type Case = [{ fault: string; status_code?: number }, string, number | null, RegExp];
  it.each<Case>([
    [
      { fault: 'status', status_code: 503 },
      '5xx_server_error',
      503,
      /^5xx_server_error: the target answered 503/,
    ],
    [{ fault: 'status' }, '5xx_server_error', 500, /^5xx_server_error: the target answered 500/],
    [{ fault: 'status', status_code: 413 }, 'payload_too_large', 413, /^payload_too_large:/],
    [{ fault: 'timeout' }, 'connection_timeout', null, /^connection_timeout: no answer within 30 s/],
    [{ fault: 'refused' }, 'connection_timeout', null, /connection refused \(ECONNREFUSED\)/],
    [{ fault: 'tls' }, 'tls_handshake_failed', null, /^tls_handshake_failed: certificate has expired/],
  ])(
    '%j fails every attempt as a real failure would, without sending it',
    async (fault, cause, status, error) => {
      const target = await startTarget(() => ({ status: 200 }));
      const webhook = await createWebhook(sandbox(), target.url, { max_attempts: 2 });
      const set = await setFault(webhook.id, fault);
      expect(set.status, set.text).toBe(200);
      expect(set.body).toEqual({
        webhook_id: webhook.id,
        fault: fault.fault,
        status_code: fault.fault === 'status' ? (fault.status_code ?? 500) : null,
      });
      const id = (await emit(sandbox(), webhook.id, 1)).events[0]!.delivery_ids[0]!;
      await settle(sandbox());
      const d = await delivery(sandbox(), webhook.id, id);
      expect(d).toMatchObject({
        status: 'failed',
        attempt_count: 2,
        last_error_code: cause,
        last_status_code: status,
      });
      expect(d.last_error).toMatch(error);
      expect(d.last_error).toMatch(/injected by the sandbox \(svc sandbox target\)$/);
      expect(target.received).toHaveLength(0);
      const entry = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/dlq`)).body.items[0];
      expect(entry).toMatchObject({ delivery_id: id, status: 'queued' });

      // Recovered: the next attempt goes to the target again, and the replay recovers the failure.
      expect((await setFault(webhook.id, { fault: 'none' })).body).toEqual({
        webhook_id: webhook.id,
        fault: 'none',
        status_code: null,
      });
      const replayed = await replay(webhook.id, id);
      await settle(sandbox());
      expect((await delivery(sandbox(), webhook.id, replayed)).status).toBe('delivered');
      expect(target.received).toHaveLength(1);
      expect((await delivery(sandbox(), webhook.id, id)).status).toBe('recovered');
      await target.close();
    },
  );

  it('is readable, refuses a status code without fault status, and names unknown webhooks', async () => {
    const webhook = await createWebhook(sandbox(), 'http://127.0.0.1:9/x');
    expect((await call(sandbox(), 'GET', `/_sandbox/webhooks/${webhook.id}/target-fault`)).body).toEqual({
      webhook_id: webhook.id,
      fault: 'none',
      status_code: null,
    });
    const bad = await setFault(webhook.id, { fault: 'timeout', status_code: 500 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('status_code goes with fault status');
    expect((await setFault(webhook.id, { fault: 'slow' })).status).toBe(400);
    const missing = await setFault('wh_missing', { fault: 'timeout' });
    expect([missing.status, missing.body.error.message]).toEqual([404, 'webhook wh_missing not found']);
  });
});
