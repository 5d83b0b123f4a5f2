/**
 * A resumed `replay --dlq --wait` and the entries its first run took that were replayed while it
 * was stopped (review s12-a): by another run, or by the stopped run itself, its answer lost (a kill
 * in flight) — svc cannot tell which, the two share the entry's key. #1: such a row was not
 * followed, so a delivery that failed was a skipped row and the run said ✓ and exited 0. #2: a
 * stopped run that had journaled nothing, every entry it took gone since, resumed as "Nothing to
 * replay", gave them no row and deleted its journal.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useSandbox } from '../../helpers/sandbox.js';
import {
  cutReplayRun,
  delivery,
  dlqEntries,
  journalFiles,
  pastRunStart,
  timeless,
  until,
} from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);

const journals = () => journalFiles(svc.journals);
const stopped = (what: string) => `left the queue before this run: ${what}`;
const byWhom = 'by another run or by an attempt of that run whose answer was lost';

const cutRun = () => cutReplayRun(sandbox(), svc);

describe('replay --dlq --wait resumed: entries replayed while it was stopped are followed', () => {
  it('one whose delivery failed is a failed row naming it, exit 7 (it was ✓, exit 0)', async () => {
    const run = await cutRun();
    const { e1, e2, made } = run;
    // While it is stopped the target fails, and the second entry is replayed (by another run here;
    // a kill of the first in flight, its answer lost, leaves the platform just the same).
    run.answer.status = 500;
    run.answer.delayMs = 0;
    // Past the second the run started in: an entry dead-lettered in it would be the run's to take.
    await pastRunStart(sandbox());
    const other = await svc.run(['webhooks', 'replay', run.webhook, e2.id, '--no-wait', '--json']);
    expect(other.code, other.stderr).toBe(0);
    const as = (JSON.parse(other.stdout) as Array<{ new_delivery_id: string }>)[0]!.new_delivery_id;
    await until(async () => (await delivery(sandbox(), run.webhook, as)).status === 'failed');

    const again = await svc.run(run.argv);
    expect(again.code, again.stderr).toBe(7);
    expect(again.stdout).toBe(
      [
        `skipped\t${e1.delivery_id}\t${made}\t${e1.event_type}\tdelivered\tdone in an earlier run (replayed as ${made}); not followed then (interrupted): delivered now`,
        `failed\t${e2.delivery_id}\t${as}\t${e2.event_type}\tfailed\t${stopped(`replayed as ${as}, ${byWhom}`)}; its delivery failed: 5xx_server_error: the target answered 500 Internal Server Error; the target had an internal error: check its logs`,
      ].join('\n') + '\n',
    );
    expect(timeless(again.stderr)).toBe(
      `resuming the run started at ${run.started}: 1 done, 1 to do (journal ${run.path})\n` +
        '0 replayed and delivered, 1 skipped, 1 failed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n' +
        // Said though the run failed, as when it ends well (review s12-f #5).
        '1 entry the earlier run had listed left the queue before this run (replayed, discarded or delivered by another run, or by an attempt of that run whose answer was lost; or gone): each is on its row, and none was replayed again\n' +
        // Its entry, dead-lettered again, is newer than the run: a new run's, or replayed by name.
        `1 entry dead-lettered since the run started (${run.started}) is not part of it (it is a replay of this run's entries, which failed again and came back to the queue after svc last read them): run the same command again to replay them (a new run)\n` +
        `error: 1 of 2 items failed: ${as} 5xx_server_error (the target had an internal error: check its logs); the replays were made and their deliveries failed: 1 is dead-lettered: once the target is fixed, replay it with \`svc webhooks replay ${run.webhook} ${as}\`; --ndjson prints one result per item\n`,
    );
    // Handled (its replay was made): nothing to resume, as for the run's own replays that failed.
    expect(journals()).toEqual([]);
    await run.target.close();
  }, 30_000);

  it('--ndjson: one delivered is skipped with its delivery_status; exit 0', async () => {
    const run = await cutRun();
    const { e2 } = run;
    const other = await svc.run(['webhooks', 'replay', run.webhook, e2.id, '--no-wait', '--json']);
    expect(other.code, other.stderr).toBe(0);
    const as = (JSON.parse(other.stdout) as Array<{ new_delivery_id: string }>)[0]!.new_delivery_id;
    const again = await svc.run([...run.argv, '--ndjson']);
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout)[1]).toEqual({
      status: 'skipped',
      delivery_id: e2.delivery_id,
      dlq_entry_id: e2.id,
      event_type: e2.event_type,
      event_id: e2.event_id,
      reason: 'already_replayed',
      replayed_as: as,
      while_stopped: true,
      delivery_status: 'delivered',
    });
    expect(journals()).toEqual([]);
    await run.target.close();
  }, 30_000);
});

describe('replay --dlq resumed when its stopped run journaled nothing and every entry it took left', () => {
  for (const mode of [[], ['--json']]) {
    it(`${mode.join(' ') || 'text'}: a row for each (its own lost replay followed), not "nothing to replay"`, async () => {
      const run = await cutRun();
      const { e1, e2, made } = run;
      // As a kill in flight leaves it: the first entry's replay made, its answer lost (not journaled).
      const lines = readFileSync(run.path, 'utf8').split('\n');
      writeFileSync(run.path, lines.filter((l) => !l.includes(`"key":"${e1.id}"`)).join('\n'));
      expect(readFileSync(run.path, 'utf8')).not.toContain(`"key"`);
      const discard = await svc.run(['webhooks', 'dlq', 'discard', run.webhook, e2.id, '--yes']);
      expect(discard.code, discard.stderr).toBe(0);
      const discardedAt = (await dlqEntries(sandbox(), run.webhook, 'discarded'))[0]!.discarded_at as string;

      if (mode.length === 0) {
        // Its dry run shows the same rows, changing nothing (the journal stays).
        const dry = await svc.run([...run.argv, '--dry-run']);
        expect({ code: dry.code, stdout: dry.stdout, stderr: dry.stderr }).toEqual({
          code: 0,
          stdout:
            [
              `skip\t${e1.delivery_id}\t${made}\t${e1.event_type}\tdelivered\t${stopped(`replayed as ${made}, ${byWhom}`)}`,
              `skip\t${e2.delivery_id}\t\t${e2.event_type}\t\t${stopped(`discarded at ${discardedAt}, not by this run`)}`,
            ].join('\n') + '\n',
          stderr:
            `a dry run of resuming the run started at ${run.started}: 0 done, 2 to do (journal ${run.path})\n` +
            'dry run: 0 would be replayed (whether they are delivered is known only when they are sent), 2 would be skipped, 0 would fail; nothing was changed\n',
        });
        expect(journals()).toHaveLength(1);
      }
      const again = await svc.run([...run.argv, ...mode]);
      expect(again.code, again.stderr).toBe(0);
      if (mode.length === 0) {
        expect(again.stdout).toBe(
          [
            `skipped\t${e1.delivery_id}\t${made}\t${e1.event_type}\tdelivered\t${stopped(`replayed as ${made}, ${byWhom}`)}`,
            `skipped\t${e2.delivery_id}\t\t${e2.event_type}\t\t${stopped(`discarded at ${discardedAt}, not by this run`)}`,
          ].join('\n') + '\n',
        );
      } else {
        expect(JSON.parse(again.stdout)).toEqual([
          expect.objectContaining({
            status: 'skipped',
            dlq_entry_id: e1.id,
            replayed_as: made,
            while_stopped: true,
            delivery_status: 'delivered',
          }),
          expect.objectContaining({
            status: 'skipped',
            dlq_entry_id: e2.id,
            reason: 'already_discarded',
            while_stopped: true,
          }),
        ]);
      }
      // The resuming line in every mode, --json too (attack26a F11).
      expect(timeless(again.stderr)).toBe(
        `resuming the run started at ${run.started}: 0 done, 2 to do (journal ${run.path})\n` +
          '✓ 0 replayed and delivered, 2 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n' +
          '2 entries the earlier run had listed left the queue before this run (replayed, discarded or delivered by another run, or by an attempt of that run whose answer was lost; or gone): each is on its row, and none were replayed again\n',
      );
      expect(journals()).toEqual([]);
      await run.target.close();
    }, 30_000);
  }
});
