import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/bulk/journal.js';
import { useTempDir } from '../helpers/temp.js';

// A run's start on the platform's clock (Journal.platformStart, session 16): a DLQ run's window
// ends with that second. Read once, kept; and a new run's start becomes it only while the two
// clocks agree (under CLOCK_SKEW_MS, one minute), so its lines name one start.
const dir = useTempDir('svc-journal-window-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NOW = Date.parse('2026-01-15T12:00:00Z');
let n = 0;
const fresh = () => Journal.load(join(dir, `run-${++n}.ndjson`), 'op', () => NOW);

describe('Journal.platformStart', () => {
  it('is unknown until asked, then the second it was asked for, kept whatever the clock says next', () => {
    const journal = fresh();
    expect(journal.knownPlatformStart()).toBeUndefined();
    expect(journal.platformStart(() => NOW + 2_700)).toBe(NOW + 2_000);
    expect(journal.platformStart(() => NOW + 9_000)).toBe(NOW + 2_000);
    expect(journal.knownPlatformStart()).toBe(NOW + 2_000);
  });

  it("a new run's start becomes it while the clocks are under a minute apart, not at a minute", () => {
    const near = fresh();
    near.platformStart(() => NOW - 59_000);
    expect(near.run.startedAtMs).toBe(NOW - 59_000);
    const far = fresh();
    far.platformStart(() => NOW + 60_000);
    expect(far.run.startedAtMs).toBe(NOW);
    const behind = fresh();
    behind.platformStart(() => NOW - 60_000);
    expect(behind.run.startedAtMs).toBe(NOW);
  });

  it('a run already started keeps its start', () => {
    const journal = fresh();
    journal.start();
    journal.platformStart(() => NOW + 5_000);
    expect(journal.run.startedAtMs).toBe(NOW);
  });
});

describe('Journal.anchor', () => {
  it('is unknown until computed, then kept', () => {
    const journal = fresh();
    expect(journal.knownAnchor()).toBeUndefined();
    expect(journal.anchor(() => NOW + 1_500)).toBe(NOW + 1_000);
    expect(journal.knownAnchor()).toBe(NOW + 1_000);
    expect(journal.anchor(() => NOW + 30_000)).toBe(NOW + 1_000);
  });
});
