/**
 * A resumed queue run (`replay --dlq`, `dlq discard --all`) says it resumes and shows what the
 * earlier run did (review s8, finding 3): the done entries have left the queue, so they were
 * given no row at all; a run whose every entry was done said "nothing to replay" and kept its
 * journal, and a later run adopted that journal, took only the newer entries and said nothing.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandbox } from '../../helpers/sandbox.js';
import { type Answer, gate } from '../../helpers/targets.js';
import {
  deadLetteredQueue,
  delivery,
  dlqEntries,
  interruptedRun,
  pastRunStart,
  until,
} from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);

const queue = (answer: Answer, count: number, extra = {}) =>
  deadLetteredQueue(sandbox(), answer, count, extra);
const deadLetter = (webhook: string, count: number) =>
  call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', { body: { webhook_id: webhook, count } });
const entries = (webhook: string, status: string) => dlqEntries(sandbox(), webhook, status);
const journals = () => (existsSync(svc.journals) ? readdirSync(svc.journals) : []);
/** The journal a run left (the only one: each test's resumed run removes its own), and its header. */
function journal(): { path: string; started: string; anchorMs: number; allDone: string | undefined } {
  const [name, ...more] = journals().filter((f) => f.endsWith('.ndjson'));
  expect(more).toEqual([]);
  const path = join(svc.journals, name!);
  const [first, ...rest] = readFileSync(path, 'utf8').split('\n');
  const header = JSON.parse(first!);
  // When the run finished with every item done (its `all_done` line), if it did.
  const allDone = rest
    .filter((line) => line.includes('"all_done"'))
    .map((line) => JSON.parse(line).all_done)[0];
  // The run's start on the platform's clock (its window's second), as its lines name it.
  return { path, started: header.started_at, anchorMs: Date.parse(header.platform_started_at), allDone };
}
/** The sandbox's clock past the second the run started in: what is dead-lettered now is newer. */
const pastStart = () => pastRunStart(sandbox());

describe('replay --dlq --wait cut by Ctrl-C, then the same command', () => {
  it('some done: a journal row for the done entry (how its delivery is doing now), the rest replayed, counted', async () => {
    // The target holds the first answer until the run is cut: the cut falls in its follow.
    const held = gate();
    const { webhook, target, entries: queued } = await queue({ status: 204, until: held.until }, 3);
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1'];
    const first = await interruptedRun(svc, argv, target, 1, {}, held.open);
    const [row] = ndjson(first.stdout);
    const made = row.new_delivery_id as string;
    const { path, started } = journal();
    await until(async () => (await delivery(sandbox(), webhook, made)).status === 'delivered');

    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(0);
    const [said, ...rest] = again.stderr.trimEnd().split('\n');
    expect(said).toBe(`resuming the run started at ${started}: 1 done, 2 to do (journal ${path})`);
    expect(rest).toEqual([
      expect.stringMatching(
        /^✓ 2 replayed and delivered, 1 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \([\d.]+ s\)$/,
      ),
    ]);
    const lines = again.stdout.trimEnd().split('\n');
    const [e, f, g] = queued;
    expect(lines[0]).toBe(
      `skipped\t${e!.delivery_id}\t${made}\t${e!.event_type}\tdelivered\tdone in an earlier run (replayed as ${made}); not followed then (interrupted): delivered now`,
    );
    expect(lines.slice(1).map((l) => l.split('\t')[1])).toEqual([f!.delivery_id, g!.delivery_id]);
    expect(lines.slice(1).map((l) => l.split('\t')[0])).toEqual(['ok', 'ok']);
    expect(target.received).toHaveLength(3);
    expect((await entries(webhook, 'replayed')).map((x) => x.replay_count)).toEqual([1, 1, 1]);
    expect(journals()).toEqual([]);
    await target.close();
  });

  // The resuming line is said in every mode, --json too (attack26a F11), the rows saying which
  // were done (reason journal).
  for (const mode of ['plain', '--json'] as const) {
    it(`all done (${mode}): every entry a journal row, the journal removed; then the queue is empty`, async () => {
      const held = gate();
      const { webhook, target, entries: queued } = await queue({ status: 204, until: held.until }, 2);
      const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait'];
      const first = await interruptedRun(svc, argv, target, 2, {}, held.open);
      const made = new Map(
        ndjson(first.stdout).map((r) => [r.delivery_id as string, r.new_delivery_id as string]),
      );
      expect(made.size).toBe(2);
      // The one journal the cut run left (removed by the run below).
      const { path, started } = journal();
      for (const id of made.values()) {
        await until(async () => (await delivery(sandbox(), webhook, id)).status === 'delivered');
      }

      const again = await svc.run(mode === '--json' ? [...argv, '--json'] : argv);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr.replace(/ \([\d.]+ s\)\n$/, ' (T)\n')).toBe(
        `resuming the run started at ${started}: 2 done, 0 to do (journal ${path})\n` +
          '✓ 0 replayed and delivered, 2 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n',
      );
      if (mode === '--json') {
        const rows = JSON.parse(again.stdout) as Array<Record<string, unknown>>;
        expect(rows.map((r) => r.dlq_entry_id).sort()).toEqual(queued.map((e) => e.id).sort());
        for (const r of rows) {
          expect(r).toMatchObject({
            status: 'skipped',
            reason: 'journal',
            new_delivery_id: made.get(r.delivery_id as string),
            follow: 'interrupted',
            delivery_status: 'delivered',
          });
        }
      } else {
        const lines = again.stdout.trimEnd().split('\n').sort();
        expect(lines).toEqual(
          queued
            .map(
              (e) =>
                `skipped\t${e.delivery_id}\t${made.get(e.delivery_id)}\t${e.event_type}\tdelivered\tdone in an earlier run (replayed as ${made.get(e.delivery_id)}); not followed then (interrupted): delivered now`,
            )
            .sort(),
        );
      }
      expect(journals()).toEqual([]);
      const none = await svc.run(argv);
      expect([none.code, none.stderr]).toEqual([
        0,
        'nothing to replay: no queued dead-letter entry matches\n',
      ]);
      expect(target.received).toHaveLength(2);
      await target.close();
    });
  }
});

describe('a resumed replay --dlq run to a target that still fails', () => {
  it('names the entries dead-lettered since the run started as they are at its end: its own failed replays too', async () => {
    const held = gate();
    const { webhook, target } = await queue({ status: 503, until: held.until }, 3, { max_attempts: 1 });
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1'];
    const controller = new AbortController();
    const running = svc.run(argv, { signal: controller.signal });
    await until(() => target.received.length > 0);
    controller.abort();
    // Let the held answers go at the cut, not once the run has ended (interruptedRun says why).
    held.open();
    const cut = await running;
    expect(cut.code).toBe(130);
    const { started, anchorMs } = journal();

    const again = await svc.run(argv);
    expect(again.stderr).toMatch(/^resuming the run started at /);
    expect(target.received).toHaveLength(3);
    // Every replay failed and came back to the queue: the three queued now are all newer than the start.
    const queued = await entries(webhook, 'queued');
    expect(queued).toHaveLength(3);
    for (const entry of queued)
      expect(Date.parse(entry.dead_lettered_at)).toBeGreaterThanOrEqual(Date.parse(started));
    expect(again.stderr.split('\n').filter((line) => line.includes('dead-lettered since'))).toEqual([
      `3 entries dead-lettered since the run started (${isoSeconds(anchorMs)}) are not part of it (they are replays of this run's entries, which failed again and came back to the queue after svc last read them): run the same command again to replay them (a new run)`,
    ]);
    const next = await svc.run([...argv, '--json']);
    expect(next.stderr).not.toMatch(/resuming/);
    expect(JSON.parse(next.stdout)).toHaveLength(3);
    await target.close();
  }, 30_000);
});

describe('a queue run whose stdout failed (a full disk), then the same command', () => {
  it('replay --dlq: resumes that run only (journal rows), names the newer entries as a new run, which takes them', async () => {
    const { webhook, target, entries: queued } = await queue({ status: 503 }, 3, { max_attempts: 1 });
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--no-wait'];
    const full = await svc.run(argv, { stdoutFails: 'ENOSPC' });
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/cannot write to stdout \(ENOSPC\) after 3 of 3/);
    const { path, started, anchorMs, allDone } = journal();
    // Every item was done before stdout failed: the journal says the run finished (s24).
    expect(allDone).toEqual(expect.any(String));
    // The replays failed and were dead-lettered again; then new entries came.
    await until(async () => (await entries(webhook, 'queued')).length === 3);
    await pastStart();
    await deadLetter(webhook, 4);
    const made = new Map(
      (await entries(webhook, 'replayed')).map((e) => [e.id, e.last_replay_delivery_id as string]),
    );

    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.replace(/ \([\d.]+ s\)\n/, ' (T)\n')).toBe(
      `showing again the run started at ${started} (it finished at ${allDone}, every item done): 3 done, 0 to do (journal ${path})\n` +
        '✓ 0 replayed, 3 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n' +
        `7 entries dead-lettered since the run started (${isoSeconds(anchorMs)}) are not part of it (3 of them are replays of this run's entries, which failed again and came back to the queue after svc last read them): run the same command again to replay them (a new run)\n`,
    );
    expect(again.stdout).toBe(
      queued
        .map(
          (e) =>
            `skipped\t${e.delivery_id}\t${made.get(e.id)}\t${e.event_type}\t\tdone in an earlier run (replayed as ${made.get(e.id)})\n`,
        )
        .join(''),
    );
    expect(journals()).toEqual([]);

    const next = await svc.run([...argv, '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toMatch(/resuming/);
    expect(JSON.parse(next.stdout).filter((r: { status: string }) => r.status === 'ok')).toHaveLength(7);
    expect(queued.map((e) => made.get(e.id))).not.toContain(undefined);
    const counts = (await entries(webhook, 'all')).filter((e) => queued.some((q) => q.id === e.id));
    expect(counts.map((e) => e.replay_count)).toEqual([1, 1, 1]);
    await target.close();
  });

  it('dlq discard --all: journal rows for the discarded entries, the journal removed, the newer ones named', async () => {
    const { webhook, target, entries: queued } = await queue({ status: 204 }, 3);
    const argv = ['webhooks', 'dlq', 'discard', webhook, '--all', '--yes'];
    const full = await svc.run(argv, { stdoutFails: 'ENOSPC' });
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/cannot write to stdout \(ENOSPC\) after 3 of 3/);
    const { path, started, anchorMs, allDone } = journal();
    // Every item was done before stdout failed: the journal says the run finished (s24).
    expect(allDone).toEqual(expect.any(String));
    await pastStart();
    await deadLetter(webhook, 2);
    const discarded = new Map((await entries(webhook, 'discarded')).map((e) => [e.id, e.discarded_at]));

    const again = await svc.run(argv);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.replace(/ \([\d.]+ s\)\n/, ' (T)\n')).toBe(
      `showing again the run started at ${started} (it finished at ${allDone}, every item done): 3 done, 0 to do (journal ${path})\n` +
        '✓ 0 discarded, 3 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n' +
        `2 entries dead-lettered since the run started (${isoSeconds(anchorMs)}) are not part of it: run the same command again to discard them (a new run)\n`,
    );
    expect(again.stdout).toBe(
      queued
        .map(
          (e) =>
            `skipped\t${e.id}\t${e.delivery_id}\t${e.event_type}\t${discarded.get(e.id)}\tdone in an earlier run\n`,
        )
        .join(''),
    );
    expect(journals()).toEqual([]);
    expect(await entries(webhook, 'queued')).toHaveLength(2);
    await target.close();
  });
});
