import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { deadLetteredQueue, delivery, journalFiles, until } from '../../helpers/webhooks.js';

/**
 * "Run the same command again with the same profile, logged in as the same user or with the same API key, to resume": a `replay --dlq` cut by Ctrl-C on a terminal (where
 * --wait is implied) is resumed by the same command typed into a pipe (where it is not). Following
 * is how the run is shown, not which run it is: the resumed run does not wait, and ends saying the
 * earlier run's cut follows were not followed (exit 7, no ✓: how they went is not known), its
 * journal kept, so the same command with --wait follows them (review R1: it ended ✓, exit 0, the
 * journal removed).
 */
const sandbox = useSandbox({ webhooks: { timeScale: 0.001 } });
const svc = bulkRunner(sandbox);

const journals = () => journalFiles(svc.journals);

describe('replay --dlq: --wait implied by a terminal is not part of the run', () => {
  it('the same command in a pipe resumes the run cut on a terminal; the cut follow is said not followed', async () => {
    const { webhook, target, entries } = await deadLetteredQueue(
      sandbox(),
      { status: 204, delayMs: 800 },
      2,
      { max_attempts: 1 },
    );
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--concurrency', '1'];
    const controller = new AbortController();
    // On a terminal: --wait is implied, so the first replay's follow is what Ctrl-C cuts.
    const running = svc.run(argv, { mode: 'table', signal: controller.signal });
    await until(() => target.received.length >= 1);
    controller.abort();
    const cut = await running;
    expect(cut.code, cut.stderr).toBe(130);
    expect(cut.stderr).toContain(
      'run the same command again with the same profile, logged in as the same user or with the same API key, to resume (journal ',
    );
    expect(journals()).toHaveLength(1);
    const journal = `${svc.journals}/${journals()[0]}`;
    await until(async () => (await delivery(sandbox(), webhook, firstReplay())).status === 'delivered');

    // The same command, its output kept with a pipe: no terminal, so no --wait.
    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(7);
    const lines = again.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^resuming the run started at \\S+: 1 done, 1 to do \\(journal ${journal}\\)$`),
    );
    const rows = again.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toBe(
      `skipped\t${entries[0]!.delivery_id}\t${firstReplay()}\t${entries[0]!.event_type}\t\tdone in an earlier run (replayed as ${firstReplay()}); not followed then (interrupted)`,
    );
    expect(rows[1]).toMatch(new RegExp(`^ok\t${entries[1]!.delivery_id}\tdlv_\\w+\t`));
    expect(lines.slice(1).map((l) => l.replace(/ \([\d.]+ s\)$/, ' (T s)'))).toEqual([
      '1 replayed, 1 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T s)',
      `their deliveries were not followed: see how they went with \`svc webhooks deliveries ${webhook}\`, or pass --wait`,
      `error: 1 replay the earlier run made was not followed to its delivery (cut by Ctrl-C), and this run does not wait: how it went is not known; see how it went with \`svc webhooks deliveries ${webhook}\`, or run the same command with --wait to follow it (nothing is replayed twice)`,
    ]);
    // Still owed: the same command with --wait follows it, and the run is done.
    expect(journals()).toHaveLength(1);
    const followed = await svc.run([...argv, '--wait']);
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout.split('\n')[0]).toBe(
      `skipped\t${entries[0]!.delivery_id}\t${firstReplay()}\t${entries[0]!.event_type}\tdelivered\tdone in an earlier run (replayed as ${firstReplay()}); not followed then (interrupted): delivered now`,
    );
    expect(journals()).toEqual([]);

    function firstReplay(): string {
      const row = cut.stdout.split('\n').find((l) => l.includes(entries[0]!.delivery_id))!;
      return row.match(/dlv_\w+/g)![1]!;
    }
  });
});
