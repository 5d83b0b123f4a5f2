import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/bulk/journal.js';
import { useTempDir } from '../helpers/temp.js';

// truth22 3: a kept journal says whether its last run finished (every item tried, some failed)
// or was cut short, so the words of a later run (apply's "the plan of the … run", a queue run's
// first line) say which; a resumed run's own line takes the finish back until it finishes too.
const dir = useTempDir('svc-journal-finished-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let at = Date.parse('2026-01-01T00:00:00Z');
const now = () => at;

describe("a journal's last run: finished with failures, or cut short", () => {
  it('finished is read back with its time; a resumed run cut short (no item line yet) is not finished', () => {
    const path = join(dir, 'a.ndjson');
    const first = Journal.load(path, 'op', now);
    first.start();
    first.recordFailure('k1');
    at += 5_000;
    first.markFinished();
    expect(Journal.load(path, 'op', now).earlierFinish()).toBe('2026-01-01T00:00:05Z');

    // Taken up again and interrupted before any row ended: its journal holds no finish of its own.
    at += 60_000;
    Journal.load(path, 'op', now).start();
    expect(Journal.load(path, 'op', now).earlierFinish()).toBeUndefined();
    expect(
      readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { key: 'k1', status: 'failed', at: '2026-01-01T00:00:00Z' },
      { finished: '2026-01-01T00:00:05Z' },
      { resumed: '2026-01-01T00:01:05Z' },
    ]);
  });

  it('a journal an earlier svc wrote (no such line) is not said finished', () => {
    const path = join(dir, 'b.ndjson');
    const journal = Journal.load(path, 'op', now);
    journal.start();
    journal.record('k1');
    expect(Journal.load(path, 'op', now).earlierFinish()).toBeUndefined();
  });

  // attack23b F2: an svc before truth22 3 takes a finished run up writing item lines and no
  // `resumed` line; those lines were read as a resumed run of this svc cut short ("resuming").
  it('item lines after a finish with no resumed line: an earlier svc took the run up, its end unknown', () => {
    const path = join(dir, 'c.ndjson');
    const first = Journal.load(path, 'op', now);
    first.start();
    first.recordFailure('k1');
    at += 5_000;
    first.markFinished();
    const end = Journal.load(path, 'op', now).earlierFinish();
    expect(end).toBeDefined();
    // The earlier svc's run: the failed item tried again, and nothing more.
    appendFileSync(path, `${JSON.stringify({ key: 'k1', status: 'failed', at: '2026-01-01T00:02:00Z' })}\n`);
    const taken = Journal.load(path, 'op', now);
    expect([taken.earlierFinish(), taken.earlierAllDone(), taken.earlierTakenUp()]).toEqual([
      undefined,
      undefined,
      end,
    ]);
    // Taken up by this svc since (its `resumed` line) and cut short: resumed, as before.
    at += 60_000;
    taken.start();
    expect(taken.earlierTakenUp()).toBeUndefined();
    expect(Journal.load(path, 'op', now).earlierTakenUp()).toBeUndefined();
    // A resumed run of this svc cut short after a row: no earlier svc in it.
    const path2 = join(dir, 'd.ndjson');
    const second = Journal.load(path2, 'op', now);
    second.start();
    second.recordFailure('k1');
    second.markFinished();
    const again = Journal.load(path2, 'op', now);
    again.start();
    again.recordFailure('k1');
    expect(Journal.load(path2, 'op', now).earlierTakenUp()).toBeUndefined();
  });
});
