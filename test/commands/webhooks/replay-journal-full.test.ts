/**
 * `webhooks replay --dlq` on a journal disk that fills up (ascode13 F14, the same bulk engine as
 * `roles assign --file` and `apply`: test/bulk/journal-full.test.ts): the run stops at the first
 * failed write, a replay made is ok (`not_journaled`), never failed; exit 1 names the journal; the
 * same command replays the rest, each entry once.
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { fillableJournalDisk } from '../../helpers/disk.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { deadLetteredQueue, replayCounts } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);

describe('webhooks replay --dlq on a journal disk that fills up', () => {
  it('stops at the first failed write; the replay made is ok (not_journaled); the re-run replays the rest once', async () => {
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 200 }, 4, { max_attempts: 1 });
    // Room for the two locks, the first line, the page of entries taken, one replay's in-flight mark
    // and line, and the 2nd's mark: the 2nd is made, then its line fails.
    const { disk, full } = fillableJournalDisk(7);
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--concurrency', '1', '--ndjson'];
    const r = await svc.run(argv, { journalDisk: disk });
    expect(r.code, r.stderr).toBe(1);
    expect(ndjson(r.stdout).map((row) => [row.status, row.reason])).toEqual([
      ['ok', undefined],
      ['ok', 'not_journaled'],
    ]);
    const error = JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!).error;
    expect(error).toMatchObject({ code: 'journal_unwritable', exit_code: 1 });
    expect(error.message).toMatch(
      /^the journal \S+ could not be written: no space left on device; stopped after 2 of 4, 1 of them replayed but not journaled$/,
    );
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 0: 2, 1: 2 });

    full.room = Number.POSITIVE_INFINITY;
    const again = await svc.run(argv, { journalDisk: disk });
    expect(again.code, again.stderr).toBe(0);
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 1: 4 });
  });
});
