/**
 * A delivery status word svc does not know (the reference: "Full enumeration of delivery status
 * values: not shown"; another server's `succeeded`) is neither a delivery nor a failure
 * (attack18b 10): `replay --wait` rows are ok, their outcome unknown (`follow: unknown_status`),
 * never "failed … check the target" nor "still in flight" (whose next step, a replay, would send
 * the event twice); `webhooks test --wait` exits 1 saying so, never "the test delivery failed".
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { deadLetteredQueue } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);
const proxy = useReshapingProxy(sandbox);

/** Another server's status words: delivered → succeeded, failed → errored (deliveries only). */
function otherWords(answer: Reshaped): void {
  const rename = (d: unknown) => {
    if (d === null || typeof d !== 'object') return;
    const delivery = d as Record<string, unknown>;
    if (typeof delivery.id !== 'string' || !delivery.id.startsWith('dlv_')) return;
    if (delivery.status === 'delivered') delivery.status = 'succeeded';
    if (delivery.status === 'failed') delivery.status = 'errored';
  };
  const body = answer.body as Record<string, unknown>;
  if (!/\/deliveries\/|\/replay$|\/test$/.test(answer.path) || body === null) return;
  rename(body);
  rename(body.delivery);
}

describe('a delivery status svc does not know', () => {
  it('replay --dlq --wait: rows ok with the status as it came, the outcome unknown, no "failed", no "in flight"', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 2);
    proxy().set({ reshape: otherWords });
    const r = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--wait', '--ndjson'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(r.code, r.stderr).toBe(7);
    const rows = ndjson(r.stdout);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const e = entries.find((x) => x.id === row.dlq_entry_id)!;
      expect(row).toEqual({
        status: 'ok',
        delivery_id: e.delivery_id,
        dlq_entry_id: e.id,
        new_delivery_id: expect.stringMatching(/^dlv_/),
        event_type: e.event_type,
        event_id: e.event_id,
        delivery_status: 'succeeded',
        follow: 'unknown_status',
        follow_error: { code: 'unknown_status', message: 'status "succeeded" (not known to svc), HTTP 200' },
      });
    }
    const lines = r.stderr.split('\n');
    expect(lines[0]).toMatch(
      /^2 replayed \(not followed to their deliveries: with a status svc does not know \("succeeded"\)\) in [\d.]+ s$/,
    );
    expect(JSON.parse(lines[1]!)).toEqual({
      error: {
        code: 'not_followed',
        message:
          '2 replays were made, but how their deliveries went is not known: 2 with a status svc does not know ("succeeded")',
        exit_code: 7,
        hint: `run the same command again to follow them (nothing is replayed twice), or \`svc webhooks deliveries ${webhook}\``,
      },
    });
    expect(r.stderr).not.toMatch(/failed|in flight|check the target/);
  });

  it('replay one delivery --wait, as a table: its row says the status as it came', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    proxy().set({ reshape: otherWords });
    const r = await svc.run(['webhooks', 'replay', webhook, entries[0]!.id, '--wait', '--yes'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(r.code).toBe(7);
    const [row] = r.stdout.trim().split('\n');
    expect(row).toMatch(
      new RegExp(
        `^ok\\t${entries[0]!.delivery_id}\\t(dlv_\\w+)\\texception\\.sla\\.breached\\tsucceeded\\tstatus "succeeded" \\(not known to svc\\), HTTP 200; the replay was made \\(\\1\\), how it went is not known: see how it went with \`svc webhooks deliveries get ${webhook} \\1\`$`,
      ),
    );
  });

  it('webhooks test --wait: exit 1, how it went is not known — not "the test delivery failed"', async () => {
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 200 }, 0);
    proxy().set({ reshape: otherWords });
    const r = await svc.run(['webhooks', 'test', webhook, '--wait'], { env: { SVC_BASE_URL: proxy().url } });
    expect(r.code).toBe(1);
    const id = /^delivery\t(dlv_\w+)$/m.exec(r.stdout)?.[1];
    expect(r.stdout).toContain('status\tsucceeded\n');
    expect(r.stderr).toBe(
      `error: how the test delivery went is not known: status "succeeded" (not known to svc), HTTP 200; see it with: svc webhooks deliveries get ${webhook} ${id}\n`,
    );
  });
});
