/**
 * A resumed `replay --dlq --wait` whose read of a delivery it follows fails for a reason other
 * than Ctrl-C (brief s13 fix-replay #1): the platform answered 503 to the read of the delivery of
 * an entry replayed while the run was stopped, and the row was `skipped` with no outcome,
 * journaled done: the run said ✓ and the next resume showed it finished, though that delivery may
 * have failed. The row now fails saying its delivery could not be read (and how to look), is not
 * journaled, and the next run of the same command follows it.
 */

import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';
import {
  cutReplayRun,
  delivery,
  journalFiles,
  pastRunStart,
  timeless,
  until,
} from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);
/** The delivery whose reads the platform answers 503 (after svc's retries too). */
let unreadable: string | undefined;
/** Ctrl-C the in-process run as soon as it reads this delivery (the read is cut). */
let cutAt: { delivery: string; ctrlC: AbortController } | undefined;
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: (method, path) => {
    if (cutAt && method === 'GET' && path.endsWith(`/deliveries/${cutAt.delivery}`)) cutAt.ctrlC.abort();
  },
  refuse: (method, path) =>
    unreadable && method === 'GET' && path.endsWith(`/deliveries/${unreadable}`)
      ? refusal(503, 'service_unavailable', 'the platform is unavailable')
      : undefined,
});

const journals = () => journalFiles(svc.journals);
const stopped = (what: string) => `left the queue before this run: ${what}`;
const byWhom = 'by another run or by an attempt of that run whose answer was lost';

/** A cut run (through the proxy) whose second entry is then replayed, and delivered, by another run. */
async function replayedWhileStopped() {
  // Every run through the proxy: a journal is the run's against one base URL.
  const env = { SVC_BASE_URL: proxy().url };
  const run = await cutReplayRun(sandbox(), svc, env);
  // Past the second the run started in: an entry dead-lettered in it would be the run's to take.
  await pastRunStart(sandbox());
  const other = await svc.run(['webhooks', 'replay', run.webhook, run.e2.id, '--no-wait', '--json'], { env });
  expect(other.code, other.stderr).toBe(0);
  const as = (JSON.parse(other.stdout) as Array<{ new_delivery_id: string }>)[0]!.new_delivery_id;
  await until(async () => (await delivery(sandbox(), run.webhook, as)).status === 'delivered');
  const earlierRow = `skipped\t${run.e1.delivery_id}\t${run.made}\t${run.e1.event_type}\tdelivered\tdone in an earlier run (replayed as ${run.made}); not followed then (interrupted): delivered now`;
  return { ...run, env, as, earlierRow };
}

describe('replay --dlq --wait resumed: a delivery it follows that cannot be read', () => {
  it('an entry replayed while stopped: a failed row saying so, not journaled; the next run follows it', async () => {
    const run = await replayedWhileStopped();
    const { env, as, earlierRow } = run;
    unreadable = as;
    const cut = await svc.run([...run.argv, '--ndjson'], { env });
    unreadable = undefined;
    expect(cut.code, cut.stderr).toBe(7);
    const message = `${stopped(`replayed as ${as}, ${byWhom}`)}; its delivery ${as} could not be read (the platform is unavailable), so how it went is not known: see with \`svc webhooks deliveries get ${run.webhook} ${as}\`, or run the same command again to follow it`;
    expect(ndjson(cut.stdout)[1]).toEqual({
      status: 'failed',
      delivery_id: run.e2.delivery_id,
      dlq_entry_id: run.e2.id,
      event_type: run.e2.event_type,
      event_id: run.e2.event_id,
      error: { code: 'delivery_unread', message },
    });
    expect(timeless(cut.stderr)).toBe(
      `resuming the run started at ${run.started}: 1 done, 1 to do (journal ${run.path})\n` +
        '0 replayed and delivered, 1 skipped, 1 failed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n' +
        '1 entry the earlier run had listed left the queue before this run (replayed, discarded or delivered by another run, or by an attempt of that run whose answer was lost; or gone): each is on its row, and none was replayed again\n' +
        `${JSON.stringify({
          error: {
            code: 'partial_failure',
            message: `1 of 2 items failed: ${run.e2.delivery_id}: ${message}`,
            exit_code: 7,
            hint: `fix them and run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal ${run.path})`,
          },
        })}\n`,
    );
    // Owed still: the journal stays, and the next run follows that delivery.
    expect(journals()).toHaveLength(1);

    const again = await svc.run(run.argv, { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(
      [
        earlierRow,
        `skipped\t${run.e2.delivery_id}\t${as}\t${run.e2.event_type}\tdelivered\t${stopped(`replayed as ${as}, ${byWhom}`)}`,
      ].join('\n') + '\n',
    );
    expect(journals()).toEqual([]);
    await run.target.close();
  }, 30_000);

  it('one whose follow Ctrl-C cut, read again by a resumed run: failed, the journal kept; then followed', async () => {
    const run = await replayedWhileStopped();
    const { env, as, earlierRow } = run;
    cutAt = { delivery: as, ctrlC: new AbortController() };
    const cut = await svc.run(run.argv, { signal: cutAt.ctrlC.signal, env });
    cutAt = undefined;
    expect(cut.code, cut.stderr).toBe(130);

    unreadable = as;
    const unread = await svc.run(run.argv, { env });
    unreadable = undefined;
    expect(unread.code, unread.stderr).toBe(7);
    const left = `${stopped(`replayed as ${as}, ${byWhom}`)}`;
    const notRead = `its delivery ${as} could not be read (the platform is unavailable), so how it went is not known: see with \`svc webhooks deliveries get ${run.webhook} ${as}\`, or run the same command again to follow it`;
    expect(unread.stdout).toBe(
      `${earlierRow}\nfailed\t${run.e2.delivery_id}\t${as}\t${run.e2.event_type}\t\t${left}; ${notRead}\n`,
    );
    expect(timeless(unread.stderr)).toBe(
      `resuming the run started at ${run.started}: 2 done, 0 to do (journal ${run.path})\n` +
        '0 replayed and delivered, 1 skipped, 1 failed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n' +
        `error: 1 of 2 items failed: ${run.e2.delivery_id}: ${notRead}; fix them and run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal ${run.path}); --ndjson prints one result per item\n`,
    );
    expect(journals()).toHaveLength(1);

    const again = await svc.run(run.argv, { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(
      `${earlierRow}\nskipped\t${run.e2.delivery_id}\t${as}\t${run.e2.event_type}\tdelivered\t${left}\n`,
    );
    expect(journals()).toEqual([]);
    await run.target.close();
  }, 30_000);
});
