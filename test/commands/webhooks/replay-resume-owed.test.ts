/**
 * A resumed `replay` and the follows its earlier run owes (review R1, R2, R6). --wait is not part
 * of the run, so the same command resumes a run whether it waits or not:
 * - R1: a --no-wait resume of a run whose follows were not_settled or unreadable showed the
 *   earlier run's read as "pending now", said nothing of them, ended ✓ exit 0 and removed the
 *   journal: nothing ever said how they went.
 * - R2: a --wait resume whose read of such a delivery still failed made the replay a failed row
 *   ("0 replayed and delivered, 2 failed"; exit 1 for one id), though the replay was made.
 * - R6: a --no-wait run cut by Ctrl-C, resumed with --wait, did not follow the earlier run's
 *   replays and ended "✓ … replayed and delivered".
 */

import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/context.js';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { gate } from '../../helpers/targets.js';
import { deadLetteredQueue, delivery, journalFiles, until } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);
/** While set: every read of one delivery (a follow's) has its connection closed, no answer. */
let dropReads = false;
/** While set: the replay POSTs after the first wait for it to resolve (a run to cut meanwhile). */
let hold: Promise<void> | undefined;
let posts = 0;
const proxy = useLossyProxy(sandbox, {
  lose: (method, path) =>
    dropReads && method === 'GET' && /\/deliveries\/dlv_\w+$/.test(path) ? 'drop' : false,
  before: async (method, path) => {
    if (method === 'POST' && path.endsWith('/replay') && ++posts > 1 && hold) await hold;
  },
});
/** svc's clock leaps a second at each look: --wait-timeout 1 passes at the first poll. */
const leaping = (): Clock => {
  let ms = Date.now();
  return { now: () => (ms += 1000) };
};
const journals = () => journalFiles(svc.journals);
const notFollowedError = (webhook: string, why: string) =>
  `error: 2 replays the earlier run made were not followed to their deliveries (${why}), and this run does not wait: how they went is not known; see how they went with \`svc webhooks deliveries ${webhook}\`, or run the same command with --wait to follow them (nothing is replayed twice)`;

describe('a resumed replay says how the earlier run owed follows went, or that it did not follow them', () => {
  it.each([
    ['not settled within --wait-timeout', 'not_settled', 'not settled in time'],
    ['whose delivery could not be read', 'unreadable', 'could not be read'],
  ])(
    'R1: follows %s, resumed with --no-wait: no stale status, exit 7, journal kept; --wait then follows them',
    async (_, follow, why) => {
      // not_settled: the target holds its answers until the first run has ended (none finishes
      // within its wait).
      const held = gate();
      const { webhook, target, entries } = await deadLetteredQueue(
        sandbox(),
        follow === 'not_settled' ? { status: 204, until: held.until } : { status: 204 },
        2,
      );
      const argv = ['webhooks', 'replay', webhook, '--dlq', '--concurrency', '1'];
      const env = { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' };
      const before = journals();
      dropReads = follow === 'unreadable';
      const first =
        follow === 'unreadable'
          ? await svc.run([...argv, '--wait', '--ndjson'], { env })
          : await svc.run([...argv, '--wait', '--wait-timeout', '1', '--ndjson'], { env, clock: leaping() });
      held.open();
      dropReads = false;
      expect(first.code, first.stderr).toBe(7);
      const made = ndjson(first.stdout).map((row) => row.new_delivery_id as string);
      expect(ndjson(first.stdout).map((row) => row.follow)).toEqual([follow, follow]);
      for (const id of made) {
        await until(async () => (await delivery(sandbox(), webhook, id)).status === 'delivered');
      }

      // The same command in a pipe: it does not wait.
      const piped = await svc.run([...argv, '--no-wait'], { env });
      expect(piped.code, piped.stderr).toBe(7);
      const cut =
        follow === 'unreadable' ? 'its delivery could not be read' : 'no attempt finished within 1 s';
      expect(piped.stdout).toBe(
        entries
          .map(
            (e, i) =>
              `skipped\t${e.delivery_id}\t${made[i]}\t${e.event_type}\t\tdone in an earlier run (replayed as ${made[i]}); not followed then (${cut})\n`,
          )
          .join(''),
      );
      const lines = piped.stderr.trimEnd().split('\n');
      expect(lines.slice(1).map((l) => l.replace(/ \([\d.]+ s\)$/, ' (T s)'))).toEqual([
        '0 replayed, 2 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T s)',
        notFollowedError(webhook, why),
      ]);
      expect(journals().filter((j) => !before.includes(j))).toHaveLength(1);

      const followed = await svc.run([...argv, '--wait'], { env });
      expect(followed.code, followed.stderr).toBe(0);
      expect(followed.stdout).toBe(
        entries
          .map(
            (e, i) =>
              `skipped\t${e.delivery_id}\t${made[i]}\t${e.event_type}\tdelivered\tdone in an earlier run (replayed as ${made[i]}); not followed then (${cut}): delivered now\n`,
          )
          .join(''),
      );
      expect(journals()).toEqual(before);
      expect(target.received).toHaveLength(2);
      await target.close();
    },
  );

  it('R2: a --wait resume whose reads still get no answer: the made replays stay ok-as-journal, unreadable; exit 7, never failed', async () => {
    const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 2);
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1', '--ndjson'];
    const env = { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' };
    const before = journals();
    dropReads = true;
    const first = await svc.run(argv, { env });
    const again = await svc.run(argv, { env });
    dropReads = false;
    expect(first.code, first.stderr).toBe(7);
    expect(again.code, again.stderr).toBe(7);
    const made = ndjson(first.stdout).map((row) => row.new_delivery_id as string);
    const rows = ndjson(again.stdout);
    expect(rows).toHaveLength(2);
    for (const [i, row] of rows.entries()) {
      expect(row).toEqual({
        status: 'skipped',
        delivery_id: entries[i]!.delivery_id,
        dlq_entry_id: entries[i]!.id,
        new_delivery_id: made[i],
        event_type: entries[i]!.event_type,
        event_id: entries[i]!.event_id,
        reason: 'journal',
        follow: 'unreadable',
        follow_error: {
          code: 'delivery_unread',
          message: expect.stringMatching(
            new RegExp(
              `^its delivery ${made[i]} could not be read \\(the connection to .+ failed after the request was sent: .+\\), so how it went is not known`,
            ),
          ),
        },
      });
    }
    const lines = again.stderr.trimEnd().split('\n');
    expect(lines[1]).toMatch(
      /^0 replayed \(not followed to their deliveries: could not be read\), 2 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)$/,
    );
    expect(JSON.parse(lines[2]!).error).toMatchObject({
      code: 'not_followed',
      message: '2 replays were made, but how their deliveries went is not known: 2 could not be read',
      exit_code: 7,
    });
    expect(again.stderr).not.toMatch(/failed/);
    expect(journals().filter((j) => !before.includes(j))).toHaveLength(1);
    // Readable again: the same command follows them and the run ends.
    const settled = await svc.run(argv, { env });
    expect(settled.code, settled.stderr).toBe(0);
    expect(journals()).toEqual(before);
    await target.close();
  });

  it('R2, one named entry: the --wait resume whose read still fails is exit 7 not_followed, not 1', async () => {
    const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
    const argv = ['webhooks', 'replay', webhook, entries[0]!.id, '--wait', '--json'];
    const env = { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' };
    dropReads = true;
    const first = await svc.run(argv, { env });
    const again = await svc.run(argv, { env });
    dropReads = false;
    expect(first.code, first.stderr).toBe(7);
    expect(again.code, again.stderr).toBe(7);
    const [row] = JSON.parse(again.stdout) as Array<Record<string, unknown>>;
    expect(row).toMatchObject({ status: 'skipped', reason: 'journal', follow: 'unreadable' });
    expect(row).not.toHaveProperty('delivery_status');
    expect(JSON.parse(again.stderr.trimEnd().split('\n').at(-1)!).error.code).toBe('not_followed');
    await svc.run(argv, { env });
    await target.close();
  });

  it('R6: a --no-wait run cut by Ctrl-C, resumed with --wait: the earlier replays are followed too', async () => {
    const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 3);
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--concurrency', '1'];
    const env = { SVC_BASE_URL: proxy().url };
    let release!: () => void;
    posts = 0;
    hold = new Promise<void>((resolve) => (release = resolve));
    const controller = new AbortController();
    const running = svc.run([...argv, '--no-wait', '--ndjson'], { env, signal: controller.signal });
    await until(() => posts >= 2);
    controller.abort();
    release();
    const cut = await running;
    hold = undefined;
    expect(cut.code, cut.stderr).toBe(130);
    const made = ndjson(cut.stdout).map((row) => row.new_delivery_id as string);
    expect(made).toHaveLength(2);
    for (const id of made) {
      await until(async () => (await delivery(sandbox(), webhook, id)).status === 'delivered');
    }

    const resumed = await svc.run([...argv, '--wait'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const rows = resumed.stdout.trimEnd().split('\n');
    expect(rows.slice(0, 2)).toEqual(
      entries
        .slice(0, 2)
        .map(
          (e, i) =>
            `skipped\t${e.delivery_id}\t${made[i]}\t${e.event_type}\tdelivered\tdone in an earlier run (replayed as ${made[i]}); not followed then (it did not wait): delivered now`,
        ),
    );
    expect(rows[2]).toMatch(new RegExp(`^ok\t${entries[2]!.delivery_id}\tdlv_\\w+\t\\S+\tdelivered`));
    expect(target.received).toHaveLength(3);
    await target.close();
  });
});
