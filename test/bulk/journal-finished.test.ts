import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/bulk/journal.js';

// truth22 3: a kept journal says whether its last run finished (every item tried, some failed)
// or was cut short, so the words of a later run (apply's "the plan of the … run", a queue run's
// first line) say which; a resumed run's own line takes the finish back until it finishes too.
const dir = mkdtempSync(join(tmpdir(), 'svc-journal-finished-'));
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
});
