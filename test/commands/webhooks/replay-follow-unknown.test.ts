/**
 * `replay --wait` whose follow ends without an outcome (oncall13 F5, F4): a read of the new
 * delivery that gets no answer, or --wait-timeout passing before any attempt finished. The replay
 * was made (the platform answered 201): its row is ok with its new delivery, `follow` saying why
 * its outcome is not known, journaled, and the same command follows it to its end. It was a plain
 * `failed` row (the read's connection_error, no new delivery; "is the server running?", exit 1 for
 * one id), or `failed` not_settled, journaled done, with "their deliveries failed".
 */

import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/context.js';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { gate } from '../../helpers/targets.js';
import { deadLetteredQueue, delivery, replayCounts, until } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);
/** While `dropReads`: every read of one delivery (a follow's) has its connection closed, no answer. */
let dropReads = false;
const proxy = useLossyProxy(sandbox, {
  lose: (method, path) =>
    dropReads && method === 'GET' && /\/deliveries\/dlv_\w+$/.test(path) ? 'drop' : false,
});
/** svc's clock leaps a second at each look: --wait-timeout 1 passes at the first poll. */
const leaping = (): Clock => {
  let ms = Date.now();
  return { now: () => (ms += 1000) };
};

describe('replay --wait: a follow that ends with no outcome is no failure', () => {
  it('a read of the new delivery that gets no answer: ok, new delivery, follow unreadable; the same command follows it', async () => {
    const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 2);
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1'];
    const env = { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' };
    dropReads = true;
    const r = await svc.run([...argv, '--ndjson'], { env });
    dropReads = false;
    expect(r.code, r.stderr).toBe(7);
    const rows = ndjson(r.stdout);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const e = entries.find((x) => x.id === row.dlq_entry_id)!;
      const made = row.new_delivery_id as string;
      expect(made).toMatch(/^dlv_/);
      expect(row).toEqual({
        status: 'ok',
        delivery_id: e.delivery_id,
        dlq_entry_id: e.id,
        new_delivery_id: made,
        event_type: e.event_type,
        event_id: e.event_id,
        delivery_status: 'pending',
        follow: 'unreadable',
        follow_error: {
          code: 'delivery_unread',
          message: expect.stringMatching(
            new RegExp(
              `^its delivery ${made} could not be read \\(the connection to http://127\\.0\\.0\\.1:\\d+ failed after the request was sent: .+\\), so how it went is not known: see with \`svc webhooks deliveries get ${webhook} ${made}\`, or run the same command again to follow it$`,
            ),
          ),
        },
      });
    }
    const lines = r.stderr.split('\n');
    expect(lines[0]).toMatch(
      /^2 replayed \(not followed to their deliveries: could not be read\) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)$/,
    );
    expect(JSON.parse(lines[1]!)).toEqual({
      error: {
        code: 'not_followed',
        message: '2 replays were made, but how their deliveries went is not known: 2 could not be read',
        exit_code: 7,
        hint: expect.stringMatching(
          /^run the same command again to follow them \(nothing is replayed twice\), or `svc webhooks deliveries wh_\w+`$/,
        ),
      },
    });
    expect(r.stderr).not.toMatch(/failed|server running/);
    for (const row of rows) {
      await until(
        async () =>
          (await delivery(sandbox(), webhook, row.new_delivery_id as string)).status === 'delivered',
      );
    }

    const again = await svc.run(argv, { env });
    expect(again.code, again.stderr).toBe(0);
    const said = rows.map((row) => {
      const e = entries.find((x) => x.id === row.dlq_entry_id)!;
      const made = row.new_delivery_id as string;
      return `skipped\t${e.delivery_id}\t${made}\t${e.event_type}\tdelivered\tdone in an earlier run (replayed as ${made}); not followed then (its delivery could not be read): delivered now\n`;
    });
    expect(again.stdout).toBe(said.join(''));
    expect(again.stderr).toMatch(
      /^resuming the run started at .+: 2 done, 0 to do \(journal .+\)\n✓ 0 replayed and delivered, 2 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)\n$/,
    );
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 1: 2 });
    expect(target.received).toHaveLength(2);
    await target.close();
  });

  it('one named entry whose follow read gets no answer: ok with its new delivery, exit 7, never "is the server running?"', async () => {
    const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
    const [e] = entries;
    const env = { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' };
    dropReads = true;
    const r = await svc.run(['webhooks', 'replay', webhook, e!.id, '--wait'], { env });
    dropReads = false;
    expect(r.code, r.stderr).toBe(7);
    const made = r.stdout.split('\t')[2] as string;
    expect(made).toMatch(/^dlv_/);
    expect(r.stdout).toMatch(
      new RegExp(
        `^ok\t${e!.delivery_id}\t${made}\t${e!.event_type}\tpending\tthe replay was made \\(${made}\\); its delivery ${made} could not be read \\(the connection to .+ failed after the request was sent: .+\\), so how it went is not known: see with \`svc webhooks deliveries get ${webhook} ${made}\`, or run the same command again to follow it\n$`,
      ),
    );
    expect(r.stderr).not.toMatch(/server running|failed|✓/);
    expect(r.stderr).toMatch(
      new RegExp(
        `^1 replayed \\(not followed to its delivery: could not be read\\) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \\([\\d.]+ s\\)\nerror: 1 replay was made, but how its delivery went is not known: 1 could not be read; run the same command again to follow it \\(nothing is replayed twice\\), or \`svc webhooks deliveries ${webhook}\`\n$`,
      ),
    );
    await until(async () => (await delivery(sandbox(), webhook, made)).status === 'delivered');
    const again = await svc.run(['webhooks', 'replay', webhook, e!.id, '--wait'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(
      `skipped\t${e!.delivery_id}\t${made}\t${e!.event_type}\tdelivered\tdone in an earlier run (replayed as ${made}); not followed then (its delivery could not be read): delivered now\n`,
    );
    expect(again.stderr).not.toMatch(/warning|sent again/);
    expect(target.received).toHaveLength(1);
    await target.close();
  });

  it('past --wait-timeout with no attempt finished: ok, follow not_settled, "not settled within 1 s"; the same command follows it', async () => {
    // The target holds its answers until the run has ended: no attempt finishes within the wait.
    const held = gate();
    const { webhook, target, entries } = await deadLetteredQueue(
      sandbox(),
      { status: 204, until: held.until },
      2,
    );
    const argv = [
      'webhooks',
      'replay',
      webhook,
      '--dlq',
      '--wait',
      '--wait-timeout',
      '1',
      '--concurrency',
      '2',
    ];
    const r = await svc.run([...argv, '--ndjson'], { clock: leaping() });
    held.open();
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
        delivery_status: 'pending',
        follow: 'not_settled',
        follow_error: { code: 'not_settled', message: 'no attempt finished within 1 s' },
      });
    }
    const lines = r.stderr.split('\n');
    expect(lines[0]).toMatch(
      /^2 replayed \(not followed to their deliveries: not settled within 1 s\) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)$/,
    );
    expect(JSON.parse(lines[1]!).error).toMatchObject({
      code: 'not_followed',
      message: '2 replays were made, but how their deliveries went is not known: 2 not settled within 1 s',
      exit_code: 7,
    });
    expect(r.stderr).not.toMatch(/failed/);
    for (const row of rows) {
      await until(
        async () =>
          (await delivery(sandbox(), webhook, row.new_delivery_id as string)).status === 'delivered',
      );
    }
    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(0);
    for (const row of rows) {
      const e = entries.find((x) => x.id === row.dlq_entry_id)!;
      const made = row.new_delivery_id as string;
      expect(again.stdout).toContain(
        `skipped\t${e.delivery_id}\t${made}\t${e.event_type}\tdelivered\tdone in an earlier run (replayed as ${made}); not followed then (no attempt finished within 1 s): delivered now\n`,
      );
    }
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 1: 2 });
    expect(target.received).toHaveLength(2);
    await target.close();
  });
});
