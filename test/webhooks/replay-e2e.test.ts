import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/webhooks/signature.js';
import { background } from '../helpers/background.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { sandboxEnv, svc } from '../helpers/svc.js';
import { startTarget } from '../helpers/targets.js';
import { admin, createWebhook, emit, settle } from '../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0005, requestTimeoutMs: 500 } });
const dir = mkdtempSync(join(tmpdir(), 'svc-replay-'));
const env = sandboxEnv(sandbox, { NO_COLOR: '1' });
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function dlqEntries(webhookId: string, status = 'all') {
  return (await admin(sandbox(), 'GET', `/v1/webhooks/${webhookId}/dlq?status=${status}&limit=200`)).body;
}

describe('from the dead-letter queue to a healthy `svc webhooks listen`', () => {
  it('every replayed delivery verifies at listen and arrives byte-identical to the original', async () => {
    // 1. A target that is down (always 500): 25 events fail twice each and are dead-lettered.
    const broken = await startTarget(() => ({ status: 500, body: 'down for maintenance' }));
    const webhook = await createWebhook(sandbox(), broken.url, { max_attempts: 2 });
    await emit(sandbox(), webhook.id, 25);
    await settle(sandbox());
    const originals = new Map(broken.received.map((r) => [r.headers['x-svc-event-id'] as string, r.body]));
    expect(originals.size).toBe(25);
    expect((await dlqEntries(webhook.id, 'queued')).total).toBe(25);

    // 2. A healthy receiver: svc webhooks listen, forwarding what it verified to a recording app.
    const app = await startTarget(() => ({ status: 202, body: 'thanks' }));
    const secretFile = join(dir, 'whsec');
    writeFileSync(secretFile, webhook.secret);
    const listen = background(
      ['webhooks', 'listen', '--port', '0', '--secret-file', secretFile, '--ndjson', '--forward-to', app.url],
      env,
    );
    const url = (await listen.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    const patched = await admin(sandbox(), 'PATCH', `/v1/webhooks/${webhook.id}`, { url: `${url}/hooks` });
    expect(patched.status).toBe(200);

    // 3. A dry run lists what would be replayed and changes nothing.
    const dry = await svc(['webhooks', 'replay', webhook.id, '--dlq', '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect(dry.stdout.trimEnd().split('\n')).toHaveLength(25);
    expect(dry.stderr).toBe('dry run: 25 entries would be replayed; nothing was changed\n');
    expect((await dlqEntries(webhook.id, 'queued')).total).toBe(25);

    // 4. The bulk replay: one result per entry with the new delivery id.
    const run = await svc(['webhooks', 'replay', webhook.id, '--dlq', '--ndjson', '--concurrency', '4'], {
      env,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^✓ 25 replayed in \d+\.\d s\n$/);
    const results = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results).toHaveLength(25);
    for (const r of results) {
      expect(r).toMatchObject({ status: 'ok', event_type: 'exception.sla.breached' });
      expect(r.key).toBe(r.dlq_entry_id);
      expect(r.new_delivery_id).toMatch(/^dlv_/);
      expect(r.new_delivery_id).not.toBe(r.delivery_id);
    }
    await settle(sandbox());

    // 5. listen verified every one, and the app got the original bytes and headers untouched.
    await listen.waitFor(/(.*\n){25}/, 'stdout');
    expect(await listen.interrupt()).toBe(0);
    const seen = listen
      .stdout()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(seen).toHaveLength(25);
    for (const s of seen) {
      expect(s).toMatchObject({
        valid: true,
        reason: 'valid',
        status: 202,
        repeated: false,
        forwarded: { status: 202 },
      });
      expect(s.sha256).toBe(sha256(originals.get(s.event_id)!));
    }
    expect(new Set(seen.map((s) => s.delivery_id))).toEqual(new Set(results.map((r) => r.new_delivery_id)));
    expect(listen.stderr()).toMatch(/stopped after 25 request\(s\): 25 valid, 0 invalid\n$/);
    expect(app.received).toHaveLength(25);
    for (const r of app.received) {
      const eventId = r.headers['x-svc-event-id'] as string;
      expect(r.body.equals(originals.get(eventId)!)).toBe(true);
      const header = r.headers['x-svc-signature'] as string;
      const t = Number(/t=(\d+)/.exec(header)![1]);
      expect(verifySignature(r.body, header, webhook.secret, { nowSeconds: t }).valid).toBe(true);
      expect(r.headers['x-svc-delivery-attempt']).toBe('1');
      expect(r.headers['user-agent']).toBe('svc-sandbox-webhooks/1');
    }

    // 6. The queue records the replays; a second run finds nothing to replay.
    const after = await dlqEntries(webhook.id);
    expect(
      after.items.map((e: { status: string; replay_count: number }) => [e.status, e.replay_count]),
    ).toEqual(Array(25).fill(['replayed', 1]));
    const again = await svc(['webhooks', 'replay', webhook.id, '--dlq'], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('Nothing to replay: no queued dead-letter entry matches.\n');
    const summary = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/deliveries`)).body.summary;
    expect(summary).toEqual({ total: 50, delivered: 25, failed: 25, in_flight: 0 });
  });

  it('exit 7 when some replays fail; running it again replays only the rest, each entry once', async () => {
    const ok = await startTarget(() => ({ status: 200 }));
    const webhook = await createWebhook(sandbox(), ok.url);
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook.id, count: 30 },
    });
    const journal = join(dir, 'partial.journal');
    // Half of the requests fail with 500 before the handler: GETs are retried, POSTs are not.
    await call(sandbox(), 'PUT', '/_sandbox/faults', {
      body: { fail_rate: 0.5, fail_status: 500, phase: 'before', seed: 42, retry_after: null },
    });
    let first: Awaited<ReturnType<typeof svc>>;
    try {
      first = await svc(['webhooks', 'replay', webhook.id, '--dlq', '--ndjson', '--journal', journal], {
        env: { ...env, SVC_MAX_RETRIES: '12' },
      });
    } finally {
      await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { fail_rate: 0 } });
    }
    const lines = first.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const failed = lines.filter((l) => l.status === 'failed');
    expect(first.code).toBe(7);
    expect(lines).toHaveLength(30);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed[0].error).toMatchObject({ status: 500, code: 'service_unavailable' });
    expect(first.stderr).toContain(
      `error: ${failed.length} of 30 item(s) failed; fix them and run the same command again to resume (journal ${journal})`,
    );
    expect(existsSync(journal)).toBe(true);

    const second = await svc(['webhooks', 'replay', webhook.id, '--dlq', '--ndjson', '--journal', journal], {
      env,
    });
    expect(second.code).toBe(0);
    expect(second.stdout.trimEnd().split('\n')).toHaveLength(failed.length);
    expect(existsSync(journal)).toBe(false);
    const entries = (await dlqEntries(webhook.id)).items;
    expect(entries.map((e: { replay_count: number }) => e.replay_count)).toEqual(Array(30).fill(1));
  });

  it('Ctrl-C: in-flight replays finish, exit 130, and the re-run completes without replaying any entry twice', async () => {
    const ok = await startTarget(() => ({ status: 200 }));
    const webhook = await createWebhook(sandbox(), ok.url);
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook.id, count: 12 },
    });
    const journal = join(dir, 'interrupted.journal');
    await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { latency_ms: 250 } });
    let code: number | null;
    let run: ReturnType<typeof background>;
    try {
      run = background(
        ['webhooks', 'replay', webhook.id, '--dlq', '--ndjson', '--concurrency', '2', '--journal', journal],
        env,
      );
      await run.waitFor(/"status":"ok"/, 'stdout');
      code = await run.interrupt();
    } finally {
      await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { latency_ms: 0 } });
    }
    expect(code).toBe(130);
    const done = run.stdout().trimEnd().split('\n');
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.length).toBeLessThan(12);
    for (const line of done) expect(JSON.parse(line).status).toBe('ok');
    expect(run.stderr()).toContain(`run the same command again to resume (journal ${journal})`);

    const rest = await svc(['webhooks', 'replay', webhook.id, '--dlq', '--ndjson', '--journal', journal], {
      env,
    });
    expect(rest.code).toBe(0);
    expect(rest.stdout.trimEnd().split('\n')).toHaveLength(12 - done.length);
    const entries = (await dlqEntries(webhook.id)).items;
    expect(entries.map((e: { replay_count: number }) => e.replay_count)).toEqual(Array(12).fill(1));
  });
});
