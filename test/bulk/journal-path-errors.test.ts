/**
 * A --journal path svc cannot use is refused in one line naming the path, the reason in words and
 * the fix, exit 2, before anything is locked, written or sent (closing12-s24: Node's own text,
 * `ENAMETOOLONG: name too long, lstat '…'`, with the path twice; a named pipe waited for ever).
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/bulk/journal.js';
import { realJournalDisk } from '../../src/bulk/journal-disk.js';
import { notTheJournal } from '../../src/bulk/journal-path.js';
import { runVerb, testVerb } from '../helpers/bulk-verb.js';
import { useTempDirs, type VerbOptions } from '../helpers/context.js';

const dirs = useTempDirs();
const ELSEWHERE =
  'give a file path, e.g. --journal ./svc-journal.ndjson, or leave out --journal (svc keeps it in its state directory); svc changed nothing';

/** Runs the test verb with `journal`, real and dry: both refused alike, and no item worked. */
async function refused(journal: string, options: VerbOptions = {}) {
  const seen: unknown[] = [];
  for (const dryRun of [false, true]) {
    let worked = 0;
    const verb = testVerb(['ok'], {
      journal,
      dryRun,
      work: async () => {
        worked++;
        return {};
      },
      plan: async () => {
        worked++;
        return {};
      },
    });
    const r = await runVerb(dirs, verb, options);
    expect([r.code, r.stdout, r.stderr, worked]).toEqual([2, '', '', 0]);
    const { message, hint } = r.error as { message: string; hint: string };
    seen.push({ message, hint });
  }
  expect(seen[1]).toEqual(seen[0]);
  return seen[0];
}

/** A directory of the test's own. */
const base = () => {
  mkdirSync(dirs().SVC_STATE_DIR!, { recursive: true });
  return mkdtempSync(join(dirs().SVC_STATE_DIR!, 'here-'));
};

describe('--journal a path svc cannot use', () => {
  it('under a file: says a part of the path is a file, and makes nothing', async () => {
    const dir = base();
    writeFileSync(join(dir, 'afile'), 'x');
    const journal = join(dir, 'afile', 'j.ndjson');
    expect(await refused(journal)).toEqual({
      message: `cannot use --journal ${journal}: a part of its path is a file, not a directory`,
      hint: 'pass --journal PATH in a directory that exists or can be made, or set SVC_STATE_DIR; svc changed nothing',
    });
    expect(readdirSync(dir)).toEqual(['afile']);
  });

  it('a name too long, or a path too long: the path once and "name too long", no lstat', async () => {
    const dir = base();
    const name = join(dir, 'x'.repeat(300));
    const deep = join(dir, `${'y'.repeat(200)}/`.repeat(25), 'j.ndjson');
    for (const journal of [name, deep]) {
      expect(await refused(journal)).toEqual({
        message: `cannot use --journal ${journal}: name too long`,
        hint: 'give a shorter --journal path; svc changed nothing',
      });
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a named pipe is refused before it is read (reading it waited for ever)', async () => {
    const dir = base();
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(await refused(fifo)).toEqual({
      message: `--journal ${fifo} is a named pipe (FIFO); the journal is a file`,
      hint: `give a file path, e.g. --journal ${join(dir, 'svc-journal.ndjson')}; svc changed nothing`,
    });
    expect(readdirSync(dir)).toEqual(['pipe']);
  });

  it('a device is refused as such, not with "chmod 600 /dev/null"', async () => {
    expect(await refused('/dev/null')).toEqual({
      message: '--journal /dev/null is a device; the journal is a file',
      hint: ELSEWHERE,
    });
  });

  // /sys (brief fixfs 2): its files stat as regular (uevent_seqnum, a file there on Linux) and root
  // may write many of them (/sys/kernel/mm/…): a journal appended there is a kernel setting changed.
  it('a path under /dev, /proc or /sys is refused, not made there (dry: /dev is never written by a test)', async () => {
    for (const [journal, system] of [
      ['/dev/svc-test-never.ndjson', '/dev'],
      ['/proc/svc-test-never.ndjson', '/proc'],
      ['/sys/svc-test-never.ndjson', '/sys'],
      ['/sys/kernel/uevent_seqnum', '/sys'],
    ] as const) {
      const there = existsSync(journal);
      let worked = 0;
      const verb = testVerb(['ok'], {
        journal,
        dryRun: true,
        plan: async () => {
          worked++;
          return {};
        },
      });
      const r = await runVerb(dirs, verb);
      expect([r.code, worked, existsSync(journal)]).toEqual([2, 0, there]);
      expect(r.error).toMatchObject({
        message: `--journal ${journal} is under ${system}, which is the system's; the journal is a file of its own`,
        hint: ELSEWHERE,
      });
    }
  });

  it('a link loop: the fix is to remove the loop, not "a writable directory"', async () => {
    const dir = base();
    const journal = join(dir, 'loopa');
    symlinkSync(join(dir, 'loopb'), journal);
    symlinkSync(journal, join(dir, 'loopb'));
    expect(await refused(journal)).toEqual({
      message: `cannot use --journal ${journal}: too many symbolic links encountered`,
      hint: `its links lead back to themselves: remove the loop (\`ls -l ${journal}\` shows where it points) or give another --journal; svc changed nothing`,
    });
  });

  it('a directory where the lock cannot be made (permission denied): the reason in words', async () => {
    const dir = base();
    const journal = join(dir, 'j.ndjson');
    const denied = Object.assign(new Error(`EACCES: permission denied, open '${journal}.lock'`), {
      code: 'EACCES',
    });
    const disk = {
      ...realJournalDisk,
      open: () => {
        throw denied;
      },
    };
    let worked = 0;
    const verb = testVerb(['ok'], {
      journal,
      work: async () => {
        worked++;
        return {};
      },
    });
    const r = await runVerb(dirs, verb, { journalDisk: disk });
    expect([r.code, worked, existsSync(journal)]).toEqual([2, 0, false]);
    expect(r.error).toMatchObject({
      message: `cannot lock journal ${journal}: permission denied`,
      hint: 'pass --journal PATH in a writable directory, or set SVC_STATE_DIR; svc changed nothing',
    });
  });
});

describe('a journal file svc cannot write, found before anything is sent', () => {
  it('permission denied (a 0400 journal, not root): exit 2 in the path words, not exit 1 "make room"', async () => {
    const dir = base();
    const journal = join(dir, 'j.ndjson');
    // The lock is made; the journal itself refuses (tests run as root: the disk seam plays it).
    const denied = Object.assign(new Error(`EACCES: permission denied, open '${journal}'`), {
      code: 'EACCES',
    });
    const disk = {
      ...realJournalDisk,
      open: (path: string, flag: 'a' | 'wx') => {
        if (path === journal) throw denied;
        return realJournalDisk.open(path, flag);
      },
    };
    let worked = 0;
    const verb = testVerb(['ok'], {
      journal,
      work: async () => {
        worked++;
        return {};
      },
    });
    const r = await runVerb(dirs, verb, { journalDisk: disk });
    expect([r.code, r.stdout, r.stderr, worked, existsSync(journal)]).toEqual([2, '', '', 0, false]);
    expect(r.error).toMatchObject({
      message: `cannot write the journal ${journal}: permission denied`,
      hint: 'pass --journal PATH in a writable directory, or set SVC_STATE_DIR; svc changed nothing',
      code: 'journal_path',
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a full disk there stays exit 1, with its own fix', async () => {
    const dir = base();
    const journal = join(dir, 'j.ndjson');
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const disk = {
      ...realJournalDisk,
      write: (fd: number, text: string) => {
        if (text.includes('"journal"')) throw full;
        realJournalDisk.write(fd, text);
      },
    };
    const verb = testVerb(['ok'], { journal, work: async () => ({}) });
    const r = await runVerb(dirs, verb, { journalDisk: disk });
    expect(r.code).toBe(1);
    expect(r.error).toMatchObject({
      hint: 'make room on its disk (or pass --journal PATH on another), then run the same command again',
    });
  });
});

describe('a journal is removed only as the file svc wrote (review25b H1: rm removed /dev/stdout)', () => {
  const now = () => Date.parse('2026-01-01T00:00:00Z');

  it('a link the user made to their own file: written through, then the link and the file are both left', () => {
    const dir = base();
    const target = join(dir, 'mine.ndjson');
    writeFileSync(target, '');
    const link = join(dir, 'j.ndjson');
    symlinkSync(target, link);
    const journal = Journal.load(link, 'op', now);
    journal.start();
    expect(journal.remove()).toBe('it is a symbolic link, and svc removes only the file it wrote');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toContain('"operation":"op"');
  });

  it('a file put in its place since: left, said as not the file this run wrote', () => {
    const dir = base();
    const path = join(dir, 'j.ndjson');
    const journal = Journal.load(path, 'op', now);
    journal.start();
    const moved = join(dir, 'moved');
    writeFileSync(moved, 'x');
    // Another file where the journal was (rename is atomic: the journal's inode is gone from the name).
    renameSync(moved, path);
    expect(journal.remove()).toBe('it is no longer the file this run wrote');
    expect(readFileSync(path, 'utf8')).toBe('x');
  });

  it('never the links of /dev or /proc, whatever they lead to', () => {
    const link = 'it is a symbolic link, and svc removes only the file it wrote';
    expect(notTheJournal('/dev/stdout', undefined)).toBe(link);
    expect(notTheJournal('/proc/self/fd/1', undefined)).toBe(link);
  });

  // review25e M1: a rule of /dev and /proc by name left every default journal under
  // SVC_STATE_DIR=/dev/shm/… in place, so the next identical run printed the old results and sent
  // nothing. The file this run wrote is removed wherever its name leads through (here /proc).
  it.skipIf(!existsSync(`/proc/${process.pid}/root`))(
    'the file it wrote, by a name under /proc, is removed',
    () => {
      const path = join(`/proc/${process.pid}/root`, base(), 'j.ndjson');
      const journal = Journal.load(path, 'op', now);
      journal.start();
      expect([journal.remove(), existsSync(path)]).toEqual([undefined, false]);
    },
  );

  it('the file it wrote is removed', () => {
    const dir = base();
    const path = join(dir, 'j.ndjson');
    const journal = Journal.load(path, 'op', now);
    journal.start();
    expect([journal.remove(), existsSync(path)]).toEqual([undefined, false]);
  });
});
