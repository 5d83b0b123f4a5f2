/**
 * A resumed `replay --dlq` run and the entries its first run took that left the queue while it was
 * stopped (oncall11, medium): the journal did not keep the first run's list, so an entry discarded
 * or replayed by someone else in the meantime got no row and was not counted; the resumed run's
 * totals did not add up to the first run's. The journal now keeps each page the run takes.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DlqEntry } from '../../../src/api/schemas/webhooks.js';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { gate } from '../../helpers/targets.js';
import {
  deadLetteredQueue,
  delivery,
  dlqEntries,
  interruptedRun,
  journalFiles,
  timeless,
  until,
} from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);

const journals = () => journalFiles(svc.journals);

/**
 * Four queued entries; a `--wait` run cut by Ctrl-C once the first is replayed; then, while it is
 * stopped, the second discarded and the third replayed by other runs.
 */
async function stoppedRun() {
  // The target holds the first replay's answer until the run is cut: the cut falls in its follow.
  const held = gate();
  const {
    webhook,
    target,
    entries: queued,
  } = await deadLetteredQueue(sandbox(), { status: 204, until: held.until }, 4);
  const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1'];
  const first = await interruptedRun(svc, argv, target, 1, {}, held.open);
  const made = ndjson(first.stdout)[0]!.new_delivery_id as string;
  const [name, ...more] = journals();
  expect(more).toEqual([]);
  const path = join(svc.journals, name!);
  const started = JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!).started_at as string;
  await until(async () => (await delivery(sandbox(), webhook, made)).status === 'delivered');

  const [e1, e2, e3, e4] = queued as [DlqEntry, DlqEntry, DlqEntry, DlqEntry];
  const discard = await svc.run(['webhooks', 'dlq', 'discard', webhook, e2.id, '--yes']);
  expect(discard.code, discard.stderr).toBe(0);
  const other = await svc.run(['webhooks', 'replay', webhook, e3.id, '--no-wait', '--json']);
  expect(other.code, other.stderr).toBe(0);
  const replayedAs = (JSON.parse(other.stdout) as Array<{ new_delivery_id: string }>)[0]!.new_delivery_id;
  const discardedAt = (await dlqEntries(sandbox(), webhook, 'discarded'))[0]!.discarded_at as string;
  return { webhook, target, argv, made, path, started, e1, e2, e3, e4, replayedAs, discardedAt };
}

const note =
  '2 entries the earlier run had listed left the queue before this run (replayed, discarded or delivered by another run, or by an attempt of that run whose answer was lost; or gone): each is on its row, and none were replayed again\n';

describe('replay --dlq resumed after entries it had taken left the queue while it was stopped', () => {
  it('text: a row for each, saying what became of it, skipped and counted; exit 0', async () => {
    const run = await stoppedRun();
    const { e1, e2, e3, e4, made } = run;
    const again = await svc.run(run.argv);
    expect(again.code, again.stderr).toBe(0);
    const lines = again.stdout.trimEnd().split('\n');
    const fourth = (await dlqEntries(sandbox(), run.webhook, 'replayed')).find((e) => e.id === e4.id);
    const new4 = fourth!.last_replay_delivery_id as string;
    expect(again.stdout).toBe(
      [
        `skipped\t${e1.delivery_id}\t${made}\t${e1.event_type}\tdelivered\tdone in an earlier run (replayed as ${made}); not followed then (interrupted): delivered now`,
        `ok\t${e4.delivery_id}\t${new4}\t${e4.event_type}\tdelivered\t`,
        `skipped\t${e2.delivery_id}\t\t${e2.event_type}\t\tleft the queue before this run: discarded at ${run.discardedAt}, not by this run`,
        `skipped\t${e3.delivery_id}\t${run.replayedAs}\t${e3.event_type}\tdelivered\tleft the queue before this run: replayed as ${run.replayedAs}, by another run or by an attempt of that run whose answer was lost`,
      ].join('\n') + '\n',
    );
    expect(lines).toHaveLength(4);
    expect(timeless(again.stderr)).toBe(
      `resuming the run started at ${run.started}: 1 done, 3 to do (journal ${run.path})\n` +
        '✓ 1 replayed and delivered, 3 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n' +
        note,
    );
    expect(journals()).toEqual([]);
    // Nothing sent for them: the first run's replay, the other run's, and the fourth entry's.
    expect(run.target.received).toHaveLength(3);
    await run.target.close();
  }, 30_000);

  for (const mode of ['--json', '--ndjson'] as const) {
    it(`${mode}: the same rows, status skipped, reason and while_stopped; the same summary`, async () => {
      const run = await stoppedRun();
      const { e1, e2, e3, e4, made } = run;
      const again = await svc.run([...run.argv, mode]);
      expect(again.code, again.stderr).toBe(0);
      const rows = mode === '--json' ? JSON.parse(again.stdout) : ndjson(again.stdout);
      const fourth = (await dlqEntries(sandbox(), run.webhook, 'replayed')).find((e) => e.id === e4.id);
      const row = (e: DlqEntry) => ({
        delivery_id: e.delivery_id,
        dlq_entry_id: e.id,
        event_type: e.event_type,
        event_id: e.event_id,
      });
      expect(rows).toEqual([
        expect.objectContaining({ status: 'skipped', reason: 'journal', ...row(e1), new_delivery_id: made }),
        expect.objectContaining({
          status: 'ok',
          ...row(e4),
          new_delivery_id: fourth!.last_replay_delivery_id,
        }),
        {
          status: 'skipped',
          ...row(e2),
          reason: 'already_discarded',
          discarded_at: run.discardedAt,
          while_stopped: true,
        },
        {
          status: 'skipped',
          ...row(e3),
          reason: 'already_replayed',
          replayed_as: run.replayedAs,
          while_stopped: true,
          // --wait: its delivery followed, whoever made the replay (review s12-a #1).
          delivery_status: 'delivered',
        },
      ]);
      // The resuming line in every mode, --json too (attack26a F11).
      expect(timeless(again.stderr)).toBe(
        `resuming the run started at ${run.started}: 1 done, 3 to do (journal ${run.path})\n` +
          '✓ 1 replayed and delivered, 3 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n' +
          note,
      );
      expect(journals()).toEqual([]);
      await run.target.close();
    }, 30_000);
  }

  it('a journal written before svc kept the list: resumes as before, saying nothing of them', async () => {
    const run = await stoppedRun();
    const { e1, e4, made } = run;
    const lines = readFileSync(run.path, 'utf8').split('\n');
    expect(lines.filter((l) => l.includes('"planned"'))).toHaveLength(1);
    writeFileSync(run.path, lines.filter((l) => !l.includes('"planned"')).join('\n'));
    const again = await svc.run([...run.argv, '--ndjson']);
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout)).toEqual([
      expect.objectContaining({
        status: 'skipped',
        reason: 'journal',
        dlq_entry_id: e1.id,
        new_delivery_id: made,
      }),
      expect.objectContaining({ status: 'ok', dlq_entry_id: e4.id }),
    ]);
    expect(timeless(again.stderr)).toBe(
      `resuming the run started at ${run.started}: 1 done, 1 to do (journal ${run.path})\n` +
        '✓ 1 replayed and delivered, 1 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n',
    );
    expect(journals()).toEqual([]);
    await run.target.close();
  }, 30_000);
});
