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
import { deadLetteredQueue, dlqEntries } from '../../helpers/webhooks.js';

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
      /^2 replayed \(not followed to their deliveries: with a status svc does not know \("succeeded"\)\) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)$/,
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

/** Every delivery's status word, as another server may spell it (deliveries only). */
const statusAs = (word: string) => (answer: Reshaped) => {
  const rename = (d: unknown) => {
    if (d === null || typeof d !== 'object') return;
    const delivery = d as Record<string, unknown>;
    if (typeof delivery.id === 'string' && delivery.id.startsWith('dlv_')) delivery.status = word;
  };
  const body = answer.body as Record<string, unknown> | null;
  if (!/\/deliveries(\/|\?|$)/.test(answer.path) || body === null || typeof body !== 'object') return;
  rename(body);
  for (const d of Array.isArray(body.items) ? body.items : []) rename(d);
};

describe('a delivery status svc does not know, read back', () => {
  it.each(['succeeded', 'errored'])(
    'deliveries get of a %s delivery that failed an attempt: the status as it came, no error, cause or remedy',
    async (word) => {
      const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
      const delivery = entries[0]!.delivery_id;
      proxy().set({ reshape: statusAs(word) });
      const r = await svc.run(['webhooks', 'deliveries', 'get', webhook, delivery], {
        env: { SVC_BASE_URL: proxy().url },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`\nstatus\t${word} (not known to svc)\n`);
      expect(r.stdout).not.toMatch(/^(error|cause|remedy)\t/m);
      expect(r.stdout).not.toMatch(/check its logs/);
    },
  );

  it('deliveries ls: the error column of a status svc does not know is empty, as a delivered one', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    proxy().set({ reshape: statusAs('succeeded') });
    const r = await svc.run(['webhooks', 'deliveries', webhook, '--json'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(r.code, r.stderr).toBe(0);
    const [listed] = JSON.parse(r.stdout) as Array<{ id: string; last_error_code: string | null }>;
    expect(listed!.id).toBe(entries[0]!.delivery_id);
    expect(listed!.last_error_code).not.toBeNull();
    const plain = await svc.run(['webhooks', 'deliveries', webhook], { env: { SVC_BASE_URL: proxy().url } });
    expect(plain.stdout.split('\n')[0]!.split('\t')).toEqual(expect.arrayContaining(['succeeded']));
    expect(plain.stdout).not.toContain(listed!.last_error_code);
  });
});

describe('a named delivery whose status svc does not know', () => {
  it('replay by its id: warned as maybe delivered, noted on its row, and replayed as its dead-letter entry', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    const { delivery_id: delivery, id: entry } = entries[0]!;
    proxy().set({ reshape: statusAs('errored') });
    const r = await svc.run(['webhooks', 'replay', webhook, delivery, '--no-wait', '--yes'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `warning: ${delivery} has a status svc does not know ("errored"), so it may have been delivered: replaying sends its event again\n`,
    );
    const [row] = r.stdout.trim().split('\n');
    expect(row!.split('\t')).toEqual([
      'ok',
      delivery,
      expect.stringMatching(/^dlv_/),
      entries[0]!.event_type,
      '',
      'status "errored" not known to svc (it may have been delivered); sent again',
    ]);
    // Replayed as its entry: the queue no longer holds it, so a `replay --dlq` cannot send it again.
    expect((await dlqEntries(sandbox(), webhook, 'queued')).map((e) => e.id)).not.toContain(entry);
  });
});

describe('a status word svc knows, in capitals (read in any case, as assignment statuses are)', () => {
  it('deliveries get of a DELIVERED delivery: delivered, no "not known", no error, cause or remedy', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    const delivery = entries[0]!.delivery_id;
    proxy().set({ reshape: statusAs('DELIVERED') });
    const r = await svc.run(['webhooks', 'deliveries', 'get', webhook, delivery], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('\nstatus\tDELIVERED\n');
    expect(r.stdout).not.toMatch(/^(error|cause|remedy)\t/m);
  });

  it('deliveries ls: a DELIVERED row has an empty error column; a FAILED one shows its cause', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    const env = { SVC_BASE_URL: proxy().url };
    const listed = await svc.run(['webhooks', 'deliveries', webhook, '--json'], { env });
    const cause = (JSON.parse(listed.stdout) as Array<{ last_error_code: string }>)[0]!.last_error_code;
    expect(cause).toMatch(/^\w+$/);
    for (const [word, error] of [
      ['DELIVERED', ''],
      ['FAILED', cause],
    ]) {
      proxy().set({ reshape: statusAs(word!) });
      const r = await svc.run(['webhooks', 'deliveries', webhook, '--wide'], { env });
      expect(r.code, r.stderr).toBe(0);
      const row = r.stdout.split('\n').find((l) => l.startsWith(`${entries[0]!.delivery_id}\t`))!;
      expect(row.split('\t')[2]).toBe(word);
      expect(row.split('\t')[5]).toBe(error);
    }
  });

  it('replay --dlq --wait whose deliveries read DELIVERED: delivered rows, exit 0, no "not known"', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 2);
    proxy().set({ reshape: (answer: Reshaped) => capitals(answer) });
    const r = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--wait', '--ndjson'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout);
    expect(rows.map((row) => [row.status, row.delivery_status, row.follow])).toEqual([
      ['ok', 'DELIVERED', undefined],
      ['ok', 'DELIVERED', undefined],
    ]);
    expect(rows.map((row) => row.dlq_entry_id).sort()).toEqual(entries.map((e) => e.id).sort());
    expect(r.stderr).not.toMatch(/not known|failed|in flight/);
  });

  it('replay of a delivery that reads DELIVERED, by its id: noted already delivered (by itself), not "not known"', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    const delivery = entries[0]!.delivery_id;
    proxy().set({ reshape: statusAs('DELIVERED') });
    const r = await svc.run(['webhooks', 'replay', webhook, delivery, '--no-wait', '--yes', '--ndjson'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout)).toEqual([
      expect.objectContaining({
        status: 'ok',
        delivery_id: delivery,
        note: 'already_delivered',
        delivered_by: delivery,
      }),
    ]);
    expect(r.stderr).not.toMatch(/not known/);
  });
});

/** The status words of deliveries (not of dead-letter entries) in capitals: `DELIVERED`, `FAILED`. */
function capitals(answer: Reshaped): void {
  const upper = (d: unknown) => {
    if (d === null || typeof d !== 'object') return;
    const delivery = d as Record<string, unknown>;
    if (
      typeof delivery.id === 'string' &&
      delivery.id.startsWith('dlv_') &&
      typeof delivery.status === 'string'
    )
      delivery.status = delivery.status.toUpperCase();
  };
  const body = answer.body as Record<string, unknown> | null;
  if (!/\/deliveries\/|\/replay$/.test(answer.path) || body === null || typeof body !== 'object') return;
  upper(body);
  upper(body.delivery);
}
