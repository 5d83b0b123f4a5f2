import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../../src/api/time.js';
import type { Clock } from '../../../../src/context.js';
import { briefWaits, bulkRunner } from '../../../helpers/bulk.js';
import { ndjson } from '../../../helpers/context.js';
import { useLossyProxy } from '../../../helpers/lossy-proxy.js';
import { call, near, sandboxNow, useSandbox } from '../../../helpers/sandbox.js';
import { gate } from '../../../helpers/targets.js';
import {
  cutReplayRun,
  deadLetteredQueue,
  dlqEntries,
  pastRunStart,
  timeless,
} from '../../../helpers/webhooks.js';

/**
 * A DLQ run's window is fixed once, at its first start, on the platform's clock, and kept in its
 * journal (fixdlqclock 1): with the platform's clock a few seconds off this machine's (under the
 * minute at which svc counts durations from it), the run resumed took its cut-off from this
 * machine's clock. 4 s ahead, it said "1 done, 0 to do" and left the stopped run's entry queued;
 * 4 s behind, it took an entry dead-lettered after the run started. And a new run says how many
 * newer entries it leaves queued, as a resumed run does (fixdlqclock 2). A file of its own: it
 * moves the sandbox's clock.
 */
const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);

/**
 * This machine's clock `aheadMs` behind the platform's as it is now (negative: ahead of it). Its
 * waits (the follow's polls of a delivery) are real but at most 20 ms: the sandbox delivers in
 * milliseconds (timeScale), and a poll of 250 ms held the worker idle 2.5 s over the file.
 */
async function machineClock(aheadMs: number): Promise<Clock> {
  const platform = (await sandboxNow(sandbox())) - Date.now();
  return briefWaits({ now: () => Date.now() + platform - aheadMs });
}

const deadLetter = (webhook: string, count: number) =>
  call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', { body: { webhook_id: webhook, count } });

/** A cut `replay --dlq` run (cutReplayRun) with this machine's clock `aheadMs` behind the platform's. */
async function cutRun(aheadMs: number) {
  const clock = await machineClock(aheadMs);
  const runs = {
    journals: svc.journals,
    run: (argv: string[], options: { signal?: AbortSignal; env?: Record<string, string> } = {}) =>
      svc.run(argv, { ...options, clock }),
  };
  const run = await cutReplayRun(sandbox(), runs);
  const header = JSON.parse(readFileSync(run.path, 'utf8').split('\n')[0]!);
  return { ...run, runs, header };
}

describe('a resumed DLQ run with the platform clock a few seconds off', () => {
  it.each([
    ['ahead of', 4000],
    ['behind', -4000],
  ])(
    'the platform 4 s %s this machine: it takes the entries of its first start, no newer one',
    async (_how, aheadMs) => {
      const { webhook, argv, path, started, made, e1, e2, runs, header } = await cutRun(aheadMs);
      // Dead-lettered after the run started: a new run's.
      await pastRunStart(sandbox());
      await deadLetter(webhook, 1);
      const newer = (await dlqEntries(sandbox(), webhook, 'queued')).find((e) => e.id !== e2.id)!;

      const again = await runs.run([...argv, '--ndjson']);
      expect(again.code, again.stderr).toBe(0);
      expect(ndjson(again.stdout).map((r) => [r.dlq_entry_id, r.status])).toEqual([
        [e1.id, 'skipped'],
        [e2.id, 'ok'],
      ]);
      expect(ndjson(again.stdout)[0]!.new_delivery_id).toBe(made);
      const lines = timeless(again.stderr).split('\n');
      expect(lines[0]).toBe(`resuming the run started at ${started}: 1 done, 1 to do (journal ${path})`);
      expect(again.stderr).toContain(
        `1 entry dead-lettered since the run started (${started}) is not part of it: run the same command again to replay them (a new run)\n`,
      );
      expect((await dlqEntries(sandbox(), webhook, 'queued')).map((e) => e.id)).toEqual([newer.id]);
      // The window the first start fixed, on the platform's clock, was in the journal.
      expect(header.platform_started_at).toBe(started);
    },
  );

  /** A cut run's journal as an earlier svc wrote it: its start on this machine's clock (`aheadMs` behind the platform's; negative: ahead), no platform_started_at; `planned` false: nor its plan. */
  async function oldJournal(planned: boolean, aheadMs = 4000) {
    const run = await cutRun(aheadMs);
    const { platform_started_at: _kept, ...old } = run.header;
    old.started_at = old.anchor = new Date(Date.parse(run.header.started_at) - aheadMs)
      .toISOString()
      .replace('.000', '');
    const [, ...rest] = readFileSync(run.path, 'utf8').split('\n');
    const lines = rest.filter((line) => planned || !line.startsWith('{"planned"'));
    writeFileSync(run.path, [JSON.stringify(old), ...lines].join('\n'));
    return { ...run, old };
  }

  it('a journal from before svc kept the platform clock: an entry its plan took, still queued, is done', async () => {
    const { webhook, argv, path, e1, e2, runs, old } = await oldJournal(true);
    const again = await runs.run([...argv, '--ndjson']);
    expect(again.code, again.stderr).toBe(0);
    expect(timeless(again.stderr).split('\n')[0]).toBe(
      `resuming the run started at ${old.started_at}: 1 done, 1 to do (journal ${path})`,
    );
    expect(ndjson(again.stdout).map((r) => [r.dlq_entry_id, r.status])).toEqual([
      [e1.id, 'skipped'],
      [e2.id, 'ok'],
    ]);
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toEqual([]);
  });

  it('a journal from before svc kept the platform clock (or its plan) never says "0 to do" while entries it may have counted are queued', async () => {
    const { webhook, argv, path, e2, runs, old } = await oldJournal(false);
    const again = await runs.run([...argv, '--ndjson']);
    expect(again.code, again.stderr).toBe(0);
    const lines = timeless(again.stderr).split('\n');
    expect(lines[0]).toBe(
      `resuming the run started at ${old.started_at}: 1 done, 0 to do (journal ${path}); 1 queued entry dead-lettered in the minute after it started may be ones it counted, but its journal, from an earlier svc, kept its start on this machine's clock only: not part of this run, it is left queued (said again at its end)`,
    );
    expect(again.stderr).toContain(
      `1 entry dead-lettered since the run started (${old.started_at}, on this machine's clock: its journal, from an earlier svc, did not keep the platform's) is still queued, not part of it, and some may be ones it counted: run the same command again to replay them (a new run)\n`,
    );
    expect((await dlqEntries(sandbox(), webhook, 'queued')).map((e) => e.id)).toEqual([e2.id]);
    // The same command again is a new run: it takes it.
    const next = await runs.run([...argv, '--ndjson']);
    expect(next.code, next.stderr).toBe(0);
    expect(ndjson(next.stdout).map((r) => [r.dlq_entry_id, r.status])).toEqual([[e2.id, 'ok']]);
  });

  // Session 23: with --json a queue run's resuming line is said as every bulk verb's is, only
  // when it carries a note, then as a warning in the same words (it was a note of its own).
  it('--json: the line with its doubt is a warning, in the words a terminal gets', async () => {
    const { argv, path, runs, old } = await oldJournal(false);
    const again = await runs.run([...argv, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(timeless(again.stderr).split('\n')[0]).toBe(
      `warning: resuming the run started at ${old.started_at}: 1 done, 0 to do (journal ${path}); 1 queued entry dead-lettered in the minute after it started may be ones it counted, but its journal, from an earlier svc, kept its start on this machine's clock only: not part of this run, it is left queued (said again at its end)`,
    );
  });

  it('a journal from before svc kept the platform clock, this machine 4 s ahead: an entry dead-lettered after the run started is left queued and named', async () => {
    const { webhook, argv, path, e1, e2, old, started } = await oldJournal(true, -4000);
    // Dead-lettered after the run started on the platform's clock, before its start on this machine's.
    await pastRunStart(sandbox());
    await deadLetter(webhook, 1);
    const newer = (await dlqEntries(sandbox(), webhook, 'queued')).find((e) => e.id !== e2.id)!;
    expect(Date.parse(newer.dead_lettered_at)).toBeLessThan(Date.parse(old.started_at));
    // This machine's clock still 4 s ahead as the platform's moved on.
    const again = await svc.run([...argv, '--ndjson'], { clock: await machineClock(-4000) });
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout).map((r) => [r.dlq_entry_id, r.status])).toEqual([
      [e1.id, 'skipped'],
      [e2.id, 'ok'],
    ]);
    const lines = timeless(again.stderr).split('\n');
    expect(lines[0]).toBe(
      `resuming the run started at ${old.started_at}: 1 done, 1 to do (journal ${path}); 1 queued entry dead-lettered in the minute after it started may be ones it counted, but its journal, from an earlier svc, kept its start on this machine's clock only: not part of this run, it is left queued (said again at its end)`,
    );
    // From the earliest the run could have started on the platform's clock (its Date header's whole
    // second makes that its start's second, or the one before).
    const said = new RegExp(
      `^1 entry dead-lettered since the run started \\(${old.started_at} on this machine's clock; counted from (\\S+), the earliest it could have been on the platform's: its journal, from an earlier svc, did not keep the platform's\\) is still queued, not part of it, and some may be ones it counted: run the same command again to replay them \\(a new run\\)$`,
      'm',
    ).exec(again.stderr);
    expect(said, again.stderr).not.toBeNull();
    expect([started, isoSeconds(Date.parse(started) - 1000)]).toContain(said![1]);
    expect((await dlqEntries(sandbox(), webhook, 'queued')).map((e) => e.id)).toEqual([newer.id]);
  });

  // review17 F7: an older svc took the platform's clock for its anchor when the clocks were a
  // minute or more apart: the end line said that platform time was "on this machine's clock", and
  // the entries after it were hedged as "may be ones it counted", though the window was known.
  it("a journal from before svc kept the platform clock, this machine 2 min ahead: its anchor is the platform's start, said so, and nothing is hedged", async () => {
    const run = await cutRun(-120_000);
    const { platform_started_at: kept, ...old } = run.header;
    // As an older svc wrote it: the anchor is the platform's start, started_at this machine's.
    old.anchor = kept;
    old.started_at = isoSeconds(Date.parse(kept) + 120_000);
    const [, ...rest] = readFileSync(run.path, 'utf8').split('\n');
    writeFileSync(run.path, [JSON.stringify(old), ...rest].join('\n'));
    await pastRunStart(sandbox());
    await deadLetter(run.webhook, 1);
    const newer = (await dlqEntries(sandbox(), run.webhook, 'queued')).find((e) => e.id !== run.e2.id)!;

    const again = await run.runs.run([...run.argv, '--ndjson']);
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout).map((r) => [r.dlq_entry_id, r.status])).toEqual([
      [run.e1.id, 'skipped'],
      [run.e2.id, 'ok'],
    ]);
    const lines = timeless(again.stderr).split('\n');
    expect(lines[0]).toBe(
      `resuming the run started at ${kept} on the platform's clock (${old.started_at} on this machine's): 1 done, 1 to do (journal ${run.path})`,
    );
    expect(again.stderr).toContain(
      `1 entry dead-lettered since the run started (${kept}) is not part of it: run the same command again to replay them (a new run)\n`,
    );
    expect(again.stderr).not.toContain("on this machine's clock");
    expect((await dlqEntries(sandbox(), run.webhook, 'queued')).map((e) => e.id)).toEqual([newer.id]);
  });
});

/** Entries dead-lettered once a run has counted the queue, before it lists it (after its start's second). */
let beforeListing: (() => Promise<void>) | undefined;
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: async (method, path) => {
    if (!beforeListing || method !== 'GET' || !/\/dlq\?/.test(path) || !/limit=200/.test(path)) return;
    if (/since=/.test(path)) return;
    const run = beforeListing;
    beforeListing = undefined;
    await run();
  },
});

describe('a new DLQ run says how many newer entries it leaves queued', () => {
  it.each([
    ['replay --dlq', (w: string) => ['webhooks', 'replay', w, '--dlq', '--no-wait'], 'replay', 'replayed'],
    [
      'dlq discard --all',
      (w: string) => ['webhooks', 'dlq', 'discard', w, '--all', '--yes'],
      'discard',
      'discarded',
    ],
  ])('%s: one line, and the same command again takes them', async (_verb, argv, act, done) => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 2, { max_attempts: 1 });
    const at = await sandboxNow(sandbox());
    beforeListing = async () => {
      await pastRunStart(sandbox());
      await deadLetter(webhook, 3);
    };
    const r = await svc.run([...argv(webhook), '--ndjson'], { env: { SVC_BASE_URL: proxy().url } });
    expect(beforeListing).toBeUndefined();
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout).map((row) => row.dlq_entry_id)).toEqual(entries.map((e) => e.id));
    const said =
      /^3 entries dead-lettered since the run started \((\S+)\) are not part of it: run the same command again to (\w+) them \(a new run\)$/m.exec(
        r.stderr,
      );
    expect(said, r.stderr).not.toBeNull();
    expect(near(said![1], at)).toBe(true);
    expect(said![2]).toBe(act);
    expect(timeless(r.stderr).split('\n').filter(Boolean).at(-1)).toBe(said![0]);
    expect(r.stderr).toContain(`✓ 2 ${done} in `);

    const again = await svc.run([...argv(webhook), '--ndjson']);
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout)).toHaveLength(3);
    expect(again.stderr).not.toContain('not part of it');
  });

  it('a dry run says nothing of them: it changes nothing', async () => {
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 204 }, 1, { max_attempts: 1 });
    beforeListing = async () => {
      await pastRunStart(sandbox());
      await deadLetter(webhook, 1);
    };
    const r = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--dry-run', '--ndjson'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(ndjson(r.stdout)).toHaveLength(1);
    expect(r.stderr).not.toContain('not part of it');
  });

  it('a run that ends keeping its journal says the same command resumes it first', async () => {
    // The target holds its answers past --wait-timeout: the replays are made, not followed to their
    // end, and the journal is kept (the same command follows them).
    const held = gate();
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 204, until: held.until }, 1, {
      max_attempts: 1,
    });
    beforeListing = async () => {
      await pastRunStart(sandbox());
      await deadLetter(webhook, 1);
    };
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait', '--wait-timeout', '1', '--ndjson'];
    const r = await svc.run(argv, { env: { SVC_BASE_URL: proxy().url } });
    held.open();
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(
      /^1 entry dead-lettered since the run started \(\S+\) is not part of it: the same command resumes this run first \(its journal is kept\), then run it again to replay them \(a new run\)$/m,
    );
    const resumed = await svc.run(argv, { env: { SVC_BASE_URL: proxy().url } });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/^resuming the run started at /);
    expect(resumed.stderr).toMatch(
      /^1 entry dead-lettered since the run started \(\S+\) is not part of it: run the same command again to replay them \(a new run\)$/m,
    );
  });
});
