// Over 300 lines: one case per rule of a journal's lines (src/bulk/journal.ts: what load() reads
// back, what start() and the records write, when a new run's start moves, which file it appends
// to); apart they would each repeat the file set-up and the reading of lines.
/**
 * A bulk run's journal, line by line (session 23, journal.ts measured alone with the bulk
 * selection: each case held one of its survivors). Exact lines written, exact state read back.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { headerOf, Journal, refusedOwner } from '../../src/bulk/journal.js';
import { JournalChangedError, type JournalDisk, realJournalDisk } from '../../src/bulk/journal-disk.js';
import { useTempDir } from '../helpers/temp.js';
import { thrown } from '../helpers/thrown.js';

const dir = useTempDir('svc-journal-lines-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NOW = Date.parse('2026-01-15T12:00:00Z');
let at = NOW;
const now = () => at;
let n = 0;
const pathOf = () => join(dir, `j-${++n}.ndjson`);
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
/** A journal file of operation `op` whose first line is `header` (merged over a valid one). */
const written = (header: object, ...rest: string[]) => {
  const path = pathOf();
  const head = {
    journal: 3,
    operation: 'op',
    run_id: 'run-1',
    started_at: '2026-01-15T11:00:00Z',
    ...header,
  };
  writeFileSync(path, [JSON.stringify(head), ...rest].join('\n'));
  return path;
};

describe('Journal.load: a new run', () => {
  it("starts on the second it was made in, not yet resumed; a file that holds only blanks is a new run's", () => {
    at = NOW + 750;
    const fresh = Journal.load(pathOf(), 'op', now);
    expect([fresh.run.startedAtMs, fresh.run.resumed]).toEqual([NOW, false]);
    expect(fresh.run.runId).toMatch(/^[0-9a-f-]{36}$/);
    const blank = pathOf();
    writeFileSync(blank, ' \n\n');
    expect(Journal.load(blank, 'op', now).run.resumed).toBe(false);
    at = NOW;
  });

  it('a file of blanks, once started, is read back as the run it holds (its header after the blanks; mut23: "belongs to another operation")', () => {
    const path = pathOf();
    writeFileSync(path, ' \n\n');
    const journal = Journal.load(path, 'op', now);
    journal.start();
    journal.recordFailure('a');
    const again = Journal.load(path, 'op', now);
    expect([again.run.runId, again.run.resumed, again.attempts('a')]).toEqual([journal.run.runId, true, 1]);
  });

  it('writes its first line: operation, command and caller when known, run, start, anchor and platform start once asked', () => {
    const path = pathOf();
    const journal = Journal.load(path, { operation: 'op', command: 'cmd', by: 'alice' }, now);
    journal.anchor(() => NOW + 90_000);
    journal.platformStart(() => NOW + 120_000);
    journal.start();
    expect(lines(path)).toEqual([
      {
        journal: 3,
        operation: 'op',
        command: 'cmd',
        by: 'alice',
        run_id: journal.run.runId,
        started_at: '2026-01-15T12:00:00Z',
        anchor: '2026-01-15T12:01:30Z',
        platform_started_at: '2026-01-15T12:02:00Z',
      },
    ]);
    const bare = pathOf();
    const plain = Journal.load(bare, 'op', now);
    plain.start();
    expect(lines(bare)).toEqual([
      { journal: 3, operation: 'op', run_id: plain.run.runId, started_at: '2026-01-15T12:00:00Z' },
    ]);
  });

  it('makes the directories it is in', () => {
    const path = join(dir, 'made', 'below', 'j.ndjson');
    Journal.load(path, 'op', now).start();
    expect(lines(path)).toHaveLength(1);
  });

  it("a new run's start becomes its anchor while the two are under a minute apart", () => {
    const near = Journal.load(pathOf(), 'op', now);
    near.anchor(() => NOW + 59_999);
    expect(near.run.startedAtMs).toBe(NOW + 59_000);
    const far = Journal.load(pathOf(), 'op', now);
    far.anchor(() => NOW + 60_000);
    expect(far.run.startedAtMs).toBe(NOW);
    const behind = Journal.load(pathOf(), 'op', now);
    behind.anchor(() => NOW - 60_000);
    expect(behind.run.startedAtMs).toBe(NOW);
    const started = Journal.load(pathOf(), 'op', now);
    started.start();
    started.anchor(() => NOW + 5_000);
    expect(started.run.startedAtMs).toBe(NOW);
  });
});

describe('Journal.load: an earlier run read back', () => {
  it('takes its run id and start, and marks it resumed', () => {
    const journal = Journal.load(written({}), 'op', now);
    expect(journal.run).toEqual({
      runId: 'run-1',
      startedAtMs: Date.parse('2026-01-15T11:00:00Z'),
      resumed: true,
    });
    // No anchor written (an earlier svc): its durations count from its start.
    expect(journal.knownAnchor()).toBe(Date.parse('2026-01-15T11:00:00Z'));
    expect(journal.knownPlatformStart()).toBeUndefined();
  });

  it('takes its anchor and platform start when written, and a resumed run keeps its start when asked', () => {
    const journal = Journal.load(
      written({ anchor: '2026-01-15T11:00:30Z', platform_started_at: '2026-01-15T11:00:20Z' }),
      'op',
      now,
    );
    expect([journal.knownAnchor(), journal.knownPlatformStart()]).toEqual([
      Date.parse('2026-01-15T11:00:30Z'),
      Date.parse('2026-01-15T11:00:20Z'),
    ]);
    const unanchored = Journal.load(written({}), 'op', now);
    unanchored.platformStart(() => Date.parse('2026-01-15T11:00:10Z'));
    expect(unanchored.run.startedAtMs).toBe(Date.parse('2026-01-15T11:00:00Z'));
    // Unreadable times are as if not written.
    const garbled = Journal.load(written({ anchor: 'soon', platform_started_at: 12 }), 'op', now);
    expect([garbled.knownAnchor(), garbled.knownPlatformStart()]).toEqual([
      Date.parse('2026-01-15T11:00:00Z'),
      undefined,
    ]);
  });

  it("refuses another operation's, a first line without a run id or a readable start, and one that is not an object", () => {
    const another = {
      message: `journal ${'PATH'} belongs to another operation`,
      hint: 'use the same file, flags, profile, credential and tenant to resume, or pass another --journal',
    };
    for (const header of [
      { operation: 'other' },
      { run_id: 7 },
      { started_at: 'yesterday' },
      { started_at: 5 },
    ]) {
      const path = written(header);
      expect(
        thrown(() => Journal.load(path, 'op', now)),
        JSON.stringify(header),
      ).toMatchObject({
        ...another,
        message: another.message.replace('PATH', path),
      });
    }
    const path = pathOf();
    writeFileSync(path, '[1,2]\n');
    expect(thrown(() => Journal.load(path, 'op', now))).toMatchObject({
      message: `journal ${path} belongs to another operation`,
    });
  });

  it('reads its items: done with details, failed attempts counted, other lines and blanks passed over', () => {
    const path = written(
      {},
      '',
      '{"key":"a","status":"ok","at":"2026-01-15T11:00:01Z","detail":{"id":"g1"}}',
      '   ',
      '{"key":"b","status":"failed","at":"2026-01-15T11:00:02Z"}',
      '{"key":"b","status":"failed","at":"2026-01-15T11:00:03Z"}',
      '{"key":"c","status":"ok","at":"2026-01-15T11:00:04Z"}',
      '{"key":7,"status":"ok"}',
      '{"note":"from a later svc"}',
      '{"planned":["d",5,"a"]}',
      '{"key":"e","sta',
    );
    const journal = Journal.load(path, 'op', now);
    expect([
      journal.has('a'),
      journal.has('b'),
      journal.has('c'),
      journal.has('e'),
      journal.has('7'),
    ]).toEqual([true, false, true, false, false]);
    expect([journal.attempts('a'), journal.attempts('b'), journal.attempts('x')]).toEqual([0, 2, 0]);
    expect(journal.get('a')).toEqual({ id: 'g1' });
    expect(journal.get('c')).toBeUndefined();
    expect([...journal.finished()]).toEqual([{ id: 'g1' }]);
    expect(journal.earlier()).toEqual([
      { key: 'a', detail: { id: 'g1' } },
      { key: 'c', detail: {} },
    ]);
    expect([...journal.planned()]).toEqual(['d', 'a']);
    // d was taken and not done: still owed its row.
    expect(journal.unfinished()).toBe(1);
  });

  it('a file cut mid-line: the next line starts on a line of its own, and the cut one stays unread', () => {
    const path = written({}, '{"key":"a","status":"ok","at":"2026-01-15T11:00:01Z"}', '{"key":"b","st');
    const journal = Journal.load(path, 'op', now);
    journal.start();
    journal.record('c');
    journal.record('d', { id: 'g4' });
    const text = readFileSync(path, 'utf8');
    expect(text.split('\n').slice(2)).toEqual([
      '{"key":"b","st',
      '{"resumed":"2026-01-15T12:00:00Z"}',
      '{"key":"c","status":"ok","at":"2026-01-15T12:00:00Z"}',
      '{"key":"d","status":"ok","at":"2026-01-15T12:00:00Z","detail":{"id":"g4"}}',
      '',
    ]);
    const again = Journal.load(path, 'op', now);
    expect(['a', 'b', 'c', 'd'].map((key) => again.has(key))).toEqual([true, false, true, true]);
  });
});

describe('Journal: what one process records', () => {
  it('start() of a resumed run writes one resumed line, however often it is called; a new run writes none again', () => {
    const path = written({});
    const journal = Journal.load(path, 'op', now);
    journal.start();
    journal.start();
    expect(lines(path).slice(1)).toEqual([{ resumed: '2026-01-15T12:00:00Z' }]);
    const fresh = pathOf();
    const made = Journal.load(fresh, 'op', now);
    made.start();
    made.start();
    expect(lines(fresh)).toHaveLength(1);
  });

  it("a finish read back is the last run's until a later line takes it up again", () => {
    const path = written({}, '{"finished":"2026-01-15T11:30:00Z"}');
    expect(Journal.load(path, 'op', now).earlierFinish()).toBe('2026-01-15T11:30:00Z');
    const journal = Journal.load(path, 'op', now);
    journal.start();
    expect(journal.earlierFinish()).toBeUndefined();
    const keyed = written(
      {},
      '{"finished":"2026-01-15T11:30:00Z"}',
      '{"key":"a","status":"failed","at":"x"}',
    );
    expect(Journal.load(keyed, 'op', now).earlierFinish()).toBeUndefined();
    const other = written({}, '{"finished":"2026-01-15T11:30:00Z"}', '{"planned":["a"]}');
    expect(Journal.load(other, 'op', now).earlierFinish()).toBe('2026-01-15T11:30:00Z');
  });

  it('has() counts items recorded by this process; a failure adds an attempt', () => {
    const journal = Journal.load(pathOf(), 'op', now);
    journal.start();
    journal.record('a');
    journal.recordFailure('b');
    journal.recordFailure('b');
    expect([journal.has('a'), journal.has('b'), journal.attempts('b')]).toEqual([true, false, 2]);
  });

  it('plan() notes only keys not noted yet, and nothing when none is new', () => {
    const path = pathOf();
    const journal = Journal.load(path, 'op', now);
    journal.start();
    journal.plan(['a', 'b']);
    journal.plan(['b', 'c']);
    journal.plan(['a']);
    journal.record('a');
    expect(lines(path).slice(1)).toEqual([
      { planned: ['a', 'b'] },
      { planned: ['c'] },
      { key: 'a', status: 'ok', at: '2026-01-15T12:00:00Z' },
    ]);
    expect([...journal.planned()]).toEqual(['a', 'b', 'c']);
    expect(journal.unfinished()).toBe(2);
  });

  it('a file kept beside a started journal gets a line of its own', () => {
    const path = pathOf();
    const journal = Journal.load(path, 'op', now);
    journal.start();
    journal.keepBeside('.plan', ['{}']);
    expect(Object.keys(lines(path)[1])).toEqual(['kept']);
    expect(Object.keys(lines(path)[1].kept)).toEqual(['.plan']);
    journal.removeKept();
  });
});

describe('Journal: which file it appends to', () => {
  /** The real disk, but `open` fails with `code`. */
  const failingOpen = (code: string): JournalDisk => ({
    ...realJournalDisk,
    open: () => {
      throw Object.assign(new Error(`${code}: failed`), { code });
    },
  });

  it('a new journal that appeared meanwhile is refused as made by someone else; another open failure is a write error', () => {
    const appeared = Journal.load(pathOf(), 'op', now, failingOpen('EEXIST'));
    const error = thrown(() => appeared.start());
    expect(error).toBeInstanceOf(JournalChangedError);
    expect((error as Error).message).toMatch(/was made after svc looked for it \(someone else made it\)/);
    const full = Journal.load(pathOf(), 'op', now, failingOpen('ENOSPC'));
    expect(thrown(() => full.start())).toMatchObject({ code: 'journal_unwritable' });
  });

  it('a journal changed after it was read (grown, replaced) is refused, and every later write says the same', () => {
    const path = written({});
    const journal = Journal.load(path, 'op', now);
    writeFileSync(path, `${readFileSync(path, 'utf8')}\n{"key":"z","status":"ok","at":"x"}\n`);
    const first = thrown(() => journal.start());
    expect(first).toBeInstanceOf(JournalChangedError);
    expect((first as Error).message).toMatch(/changed after svc read it/);
    expect(thrown(() => journal.record('a'))).toBe(first);
  });

  it('a file kept as read but for one of inode, size or time is another file', () => {
    // A whole second, which utimes sets exactly: only the one property the case changes differs.
    const t = Math.floor(NOW / 1000) - 3_600;
    const readBack = () => {
      const path = written({});
      utimesSync(path, t, t);
      return { path, journal: Journal.load(path, 'op', now), text: readFileSync(path, 'utf8') };
    };
    const refused = (journal: Journal) => thrown(() => journal.start());
    // Another inode: the same bytes and time, put in its place.
    const swapped = readBack();
    writeFileSync(`${swapped.path}.new`, swapped.text);
    renameSync(`${swapped.path}.new`, swapped.path);
    utimesSync(swapped.path, t, t);
    expect(refused(swapped.journal)).toBeInstanceOf(JournalChangedError);
    // The same inode and time, a line longer.
    const grown = readBack();
    appendFileSync(grown.path, '{"key":"z","status":"ok","at":"x"}\n');
    utimesSync(grown.path, t, t);
    expect(refused(grown.journal)).toBeInstanceOf(JournalChangedError);
    // The same inode and size, written since.
    const rewritten = readBack();
    writeFileSync(rewritten.path, rewritten.text.replace('run-1', 'run-2'));
    utimesSync(rewritten.path, t, t + 5);
    expect(refused(rewritten.journal)).toBeInstanceOf(JournalChangedError);
    // Untouched: appended to.
    const same = readBack();
    same.journal.start();
    expect(lines(same.path)).toHaveLength(2);
  });

  it('a first line that cannot be written leaves no file; a file someone else put there is left as it is', () => {
    const path = pathOf();
    const full: JournalDisk = {
      ...realJournalDisk,
      write: (fd, text) => {
        realJournalDisk.write(fd, text.slice(0, 5));
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      },
    };
    expect(thrown(() => Journal.load(path, 'op', now, full).start())).toMatchObject({
      code: 'journal_unwritable',
    });
    expect(existsSync(path)).toBe(false);
    const theirs = pathOf();
    const journal = Journal.load(theirs, 'op', now);
    writeFileSync(theirs, 'theirs\n');
    expect(thrown(() => journal.start())).toBeInstanceOf(JournalChangedError);
    expect(readFileSync(theirs, 'utf8')).toBe('theirs\n');
  });

  it('the same file as read is appended to', () => {
    const path = written({});
    const journal = Journal.load(path, 'op', now);
    journal.start();
    journal.record('a');
    expect(lines(path).slice(1)).toEqual([
      { resumed: '2026-01-15T12:00:00Z' },
      { key: 'a', status: 'ok', at: '2026-01-15T12:00:00Z' },
    ]);
  });
});

describe('headerOf', () => {
  it('reads a JSON object; anything else is no header', () => {
    expect(headerOf('{"operation":"op"}')).toEqual({ operation: 'op' });
    for (const line of ['null', '"op"', '7', 'not json', '']) expect(headerOf(line), line).toBeUndefined();
  });
});

describe('refusedOwner', () => {
  const owner = { operation: 'op-2', command: 'cmd' };
  it("names another caller's run of the command, with who when written", () => {
    const path = join(dir, 'theirs.ndjson');
    expect(refusedOwner(path, { operation: 'op-1', command: 'cmd', by: 'bob' }, owner)).toMatchObject({
      code: 'journal_other_caller',
      message: `journal ${path} holds another caller's run of this command (bob): a run is resumed only by the caller who started it`,
      hint: 'pass another --journal for a run of your own, or run the command as that caller to resume theirs',
    });
    expect(refusedOwner(path, { operation: 'op-1', command: 'cmd', by: 3 }, owner)?.message).toBe(
      `journal ${path} holds another caller's run of this command: a run is resumed only by the caller who started it`,
    );
  });

  it("a first line naming a command is never an earlier svc's, whatever its operation", () => {
    const path = join(dir, 'named.ndjson');
    expect(refusedOwner(path, { operation: 'cmd', command: 'other' }, owner)).toBeUndefined();
    expect(refusedOwner(path, { operation: 'cmd' }, owner)).toMatchObject({ code: 'journal_caller_unknown' });
  });

  it('another command, no header, or an owner without a command: not refused here', () => {
    const path = join(dir, 'other.ndjson');
    expect(refusedOwner(path, { operation: 'op-1', command: 'other' }, owner)).toBeUndefined();
    expect(refusedOwner(path, { operation: 'other' }, owner)).toBeUndefined();
    expect(refusedOwner(path, undefined, owner)).toBeUndefined();
    expect(refusedOwner(path, { operation: 'cmd' }, { operation: 'op-2' })).toBeUndefined();
  });
});

it('a directory in the way of the journal cannot be read', () => {
  const path = join(dir, 'a-dir.ndjson');
  mkdirSync(path);
  expect(thrown(() => Journal.load(path, 'op', now))).toMatchObject({
    message: `cannot read journal ${path}: it is a directory`,
  });
});
