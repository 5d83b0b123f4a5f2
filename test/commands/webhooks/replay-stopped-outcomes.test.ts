/**
 * A resumed `replay --dlq --wait` follows the delivery of an entry its first run took that was
 * replayed while it was stopped (`while_stopped`, `replayed_as`). Review s12-f: #1 a delivery the
 * platform marks `recovered` (its event delivered since by a later replay) was a failed row, exit
 * 7, "still in flight"; #2 Ctrl-C cutting the read of that delivery was swallowed: the row was
 * journaled done and unfollowed, and the next resume said ✓ though the delivery failed; #3 the dry
 * run planned those rows as skips ("0 would fail", exit 0) where the real run fails them; #4 the
 * cut row said "the replay was made (undefined)", its commands lacked the id, and the resumed row
 * had lost its delivery id and event type; #5 counts left those rows out.
 */

import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { type Answer, gate } from '../../helpers/targets.js';
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
/** Ctrl-C the in-process run as soon as it reads this delivery (the read is cut). */
let cutAt: { delivery: string; ctrlC: AbortController } | undefined;
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: (method, path) => {
    if (cutAt && method === 'GET' && path.endsWith(`/deliveries/${cutAt.delivery}`)) cutAt.ctrlC.abort();
  },
});

const journals = () => journalFiles(svc.journals);
const stopped = (what: string) => `left the queue before this run: ${what}`;
const byWhom = 'by another run or by an attempt of that run whose answer was lost';
const failedText =
  'its delivery failed: 5xx_server_error: the target answered 500 Internal Server Error; the target had an internal error: check its logs';

/** A cut run whose second entry is then replayed by another run while the target answers `answer`. */
async function replayedWhileStopped(answer: Answer, env: Record<string, string> = {}) {
  const run = await cutReplayRun(sandbox(), svc, env);
  Object.assign(run.answer, answer);
  // Past the second the run started in: an entry dead-lettered in it would be the run's to take.
  await pastRunStart(sandbox());
  const other = await svc.run(['webhooks', 'replay', run.webhook, run.e2.id, '--no-wait', '--json']);
  expect(other.code, other.stderr).toBe(0);
  const as = (JSON.parse(other.stdout) as Array<{ new_delivery_id: string }>)[0]!.new_delivery_id;
  const earlierRow = `skipped\t${run.e1.delivery_id}\t${run.made}\t${run.e1.event_type}\tdelivered\tdone in an earlier run (replayed as ${run.made}); not followed then (interrupted): delivered now`;
  return { ...run, as, earlierRow };
}

describe('replay --dlq --wait resumed: the delivery of an entry replayed while it was stopped', () => {
  it('recovered since (its event delivered by a later replay) is delivered: skipped, exit 0', async () => {
    const run = await replayedWhileStopped({ status: 500, delayMs: 0 });
    await until(async () => (await delivery(sandbox(), run.webhook, run.as)).status === 'failed');
    // The target is fixed and another admin replays the failed delivery's entry: delivered.
    run.answer.status = 204;
    const entry = (await dlqEntries(sandbox(), run.webhook, 'queued')).find((e) => e.delivery_id === run.as)!;
    const fix = await svc.run(['webhooks', 'replay', run.webhook, entry.id, '--wait', '--json']);
    expect(fix.code, fix.stderr).toBe(0);
    const by = (JSON.parse(fix.stdout) as Array<{ new_delivery_id: string }>)[0]!.new_delivery_id;
    expect(await delivery(sandbox(), run.webhook, run.as)).toMatchObject({
      status: 'recovered',
      recovered_by: by,
    });
    run.answer.status = 500;

    const again = await svc.run(run.argv);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(
      [
        run.earlierRow,
        `skipped\t${run.e2.delivery_id}\t${run.as}\t${run.e2.event_type}\trecovered\t${stopped(`replayed as ${run.as}, ${byWhom}`)}; its event was delivered by ${by}`,
      ].join('\n') + '\n',
    );
    expect(timeless(again.stderr)).toBe(
      `resuming the run started at ${run.started}: 1 done, 1 to do (journal ${run.path})\n` +
        '✓ 0 replayed and delivered, 2 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n' +
        '1 entry the earlier run had listed left the queue before this run (replayed, discarded or delivered by another run, or by an attempt of that run whose answer was lost; or gone): each is on its row, and none was replayed again\n',
    );
    expect(journals()).toEqual([]);
    await run.target.close();
  }, 30_000);

  it('Ctrl-C cutting its read leaves it unfollowed in the journal; the resumed run fails it, exit 7', async () => {
    // Every run through the proxy: a journal is the run's against one base URL.
    const env = { SVC_BASE_URL: proxy().url };
    // Its delivery in flight (the target holds its answer) while the resumed run reads it.
    const held = gate();
    const run = await replayedWhileStopped({ status: 500, until: held.until }, env);
    cutAt = { delivery: run.as, ctrlC: new AbortController() };
    // The held answer goes at the cut, not once the run has ended (past the attempt timeout, 10 s,
    // under load: the delivery then failed on that, not on the 500 asserted below).
    cutAt.ctrlC.signal.addEventListener('abort', held.open);
    const cut = await svc.run(run.argv, { signal: cutAt.ctrlC.signal, env });
    expect(cutAt.ctrlC.signal.aborted).toBe(true);
    cutAt = undefined;
    expect(cut.code, cut.stderr).toBe(130);
    expect(cut.stdout).toBe(
      [
        run.earlierRow,
        `skipped\t${run.e2.delivery_id}\t${run.as}\t${run.e2.event_type}\t\t${stopped(`replayed as ${run.as}, ${byWhom}`)}; interrupted while following its delivery: see how it went with \`svc webhooks deliveries get ${run.webhook} ${run.as}\``,
      ].join('\n') + '\n',
    );
    expect(timeless(cut.stderr)).toBe(
      `resuming the run started at ${run.started}: 1 done, 1 to do (journal ${run.path})\n` +
        '0 replayed (not followed to its delivery: interrupted), 2 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n' +
        `error: interrupted after 2 of 2; run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal ${run.path})\n`,
    );
    expect(journals()).toHaveLength(1);

    await until(async () => (await delivery(sandbox(), run.webhook, run.as)).status === 'failed');
    const again = await svc.run([...run.argv, '--ndjson'], { env });
    expect(again.code, again.stderr).toBe(7);
    expect(ndjson(again.stdout)[1]).toEqual({
      status: 'failed',
      delivery_id: run.e2.delivery_id,
      dlq_entry_id: run.e2.id,
      event_type: run.e2.event_type,
      event_id: run.e2.event_id,
      reason: 'already_replayed',
      replayed_as: run.as,
      while_stopped: true,
      delivery_status: 'failed',
      error: {
        code: '5xx_server_error',
        message: '5xx_server_error: the target answered 500 Internal Server Error',
        remedy: 'the target had an internal error: check its logs',
        http_status: 500,
      },
    });
    expect(again.stderr).toContain(
      `1 is dead-lettered: once the target is fixed, replay it with \`svc webhooks replay ${run.webhook} ${run.as}\``,
    );
    // And once more: nothing left (it was not journaled done and unfollowed).
    expect(journals()).toEqual([]);
    await run.target.close();
  }, 30_000);

  it('its dry run predicts the failed row (read once, nothing changed) and exit 7, as the run', async () => {
    const run = await replayedWhileStopped({ status: 500, delayMs: 0 });
    await until(async () => (await delivery(sandbox(), run.webhook, run.as)).status === 'failed');
    const row = `${run.e2.delivery_id}\t${run.as}\t${run.e2.event_type}\tfailed\t${stopped(`replayed as ${run.as}, ${byWhom}`)}; ${failedText}`;
    const dry = await svc.run([...run.argv, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(7);
    expect(dry.stdout).toBe(`${run.earlierRow.replace(/^skipped/, 'skip')}\nfail\t${row}\n`);
    expect(dry.stderr).toBe(
      `a dry run of resuming the run started at ${run.started}: 1 done, 1 to do (journal ${run.path})\n` +
        'dry run: 0 would be replayed (whether they are delivered is known only when they are sent), 1 would be skipped, 1 would fail\n' +
        `1 entry dead-lettered since the run started (${run.started}) is not part of it (it is a replay of this run's entries, which failed again and came back to the queue after svc last read them): run the same command again to replay them (a new run)\n` +
        `error: 1 of 2 items would fail: ${run.as} 5xx_server_error (the target had an internal error: check its logs); nothing was changed; fix them before running without --dry-run\n`,
    );
    expect(journals()).toHaveLength(1);

    const real = await svc.run(run.argv);
    expect(real.code, real.stderr).toBe(7);
    expect(real.stdout.split('\n')[1]).toBe(`failed\t${row}`);
    await run.target.close();
  }, 30_000);
});
