/**
 * Whose a journal's lock is (src/bulk/lock.ts over judgeMark, src/system/processes.ts) when a pid
 * alone cannot say: two containers sharing a state directory (one host name, their own PID
 * namespaces, svc PID 1 in each: attack21 F10) and a killed run's pid that another program got
 * after a reboot (attack21 F7). Locks are written by hand as the other process would have written
 * them; the holder that runs is a `sleep` child or this process.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  type PathLike,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { realJournalDisk } from '../../src/bulk/journal-disk.js';
import { type LockWatch, lockJournal, staleDisk, WATCH_MS } from '../../src/bulk/lock.js';
import { thisProcess } from '../../src/system/processes.js';
import { useTempDirs } from '../helpers/context.js';
import { endedPid } from '../helpers/ended-pid.js';

const dirs = useTempDirs();
const run = { command: 'roles assign', operation: 'op-1' };
const now = Date.parse('2026-11-26T01:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

let n = 0;
function journal(): string {
  const dir = mkdtempSync(join(dirs().SVC_STATE_DIR.replace(/state$/, ''), 'j-'));
  return join(dir, `j${n++}.ndjson`);
}

/** A lock as another process wrote it: this host, this process's mark unless `mark` says otherwise. */
function lockAs(path: string, mark: Record<string, unknown>, ageMs = 0): string {
  const text = `${JSON.stringify({ ...thisProcess(), host: hostname(), since: iso(Date.now()), beat: 5, ...run, ...mark })}\n`;
  writeFileSync(`${path}.lock`, text);
  const at = new Date(Date.now() - ageMs);
  utimesSync(`${path}.lock`, at, at);
  return text;
}

/**
 * How a test watches a lock: no real wait; `meanwhile` is what the other machine does during it
 * (refresh the lock with its own clock), and what svc said is kept.
 */
function watching(
  meanwhile: () => void = () => {},
  signal?: AbortSignal,
): LockWatch & { said: string[]; waited: number[] } {
  const said: string[] = [];
  const waited: number[] = [];
  return {
    said,
    waited,
    signal,
    say: (line) => said.push(line),
    sleep: async (ms, aborted) => {
      waited.push(ms);
      if (aborted?.aborted) throw new Error('aborted');
      meanwhile();
    },
  };
}

async function refusal(
  path: string,
  watch = watching(),
): Promise<{ message: string; hint: string; code: string }> {
  try {
    (await lockJournal(path, run, now, undefined, watch))();
  } catch (error) {
    return error as { message: string; hint: string; code: string };
  }
  throw new Error('the lock was taken');
}

/** Takes the lock, says what it then holds, and releases it. */
async function taken(path: string, watch = watching()): Promise<unknown> {
  const release = await lockJournal(path, run, now, undefined, watch);
  const held = JSON.parse(readFileSync(`${path}.lock`, 'utf8'));
  release();
  expect(existsSync(`${path}.lock`)).toBe(false);
  return held;
}

const sleeps: ChildProcess[] = [];
afterAll(() => {
  for (const child of sleeps) child.kill('SIGKILL');
});

/** A live process that is not svc: the program that got a killed run's pid. */
function otherProgram(): number {
  const child = spawn('sleep', ['300'], { stdio: 'ignore' });
  sleeps.push(child);
  return child.pid!;
}

const gonePid = () => endedPid();

/** The holder's refresh as its own clock sets it: `behindMs` behind this machine's. */
const refresh = (path: string, behindMs: number) => () => {
  const at = new Date(Date.now() - behindMs);
  utimesSync(`${path}.lock`, at, at);
};

const waiting = (path: string) =>
  `waiting ${WATCH_MS / 1000} s to see whether the run holding ${path}.lock is alive`;

describe('a lock of another PID namespace (containers sharing a state directory: attack21 F10)', () => {
  it('is held while its run refreshes it, whatever its pid is here (ours, or none)', async () => {
    const path = journal();
    for (const pid of [process.pid, gonePid()]) {
      const text = lockAs(path, { pid, pidns: 'pid:[4026599999]', start: '1' });
      const watch = watching(refresh(path, 1_000));
      const error = await refusal(path, watch);
      expect(error).toMatchObject({
        code: 'journal_locked',
        message: `another svc roles assign of the same input is running (pid ${pid} in another PID namespace (another container), since ${JSON.parse(text).since}); nothing was done`,
        hint: `wait for it to finish; its run refreshed it while svc watched it for ${WATCH_MS / 1000} s; if no svc is running there, remove ${path}.lock`,
      });
      expect(watch.said).toEqual([waiting(path)]);
      expect(watch.waited).toEqual([WATCH_MS]);
      expect(readFileSync(`${path}.lock`, 'utf8')).toBe(text);
    }
  });

  it('is a dead run’s once svc sees it not refreshed, and is taken over', async () => {
    const path = journal();
    // Its mtime is this very second: only what svc sees over its own wait counts.
    lockAs(path, { pid: process.pid, pidns: 'pid:[4026599999]', start: '1' });
    expect(await taken(path)).toEqual({
      ...thisProcess(),
      host: hostname(),
      since: iso(now),
      beat: 5,
      ...run,
    });
  });

  it('is refreshed by its holder while it runs (the mtime, every 5 s)', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const path = journal();
      const release = await lockJournal(path, run, now);
      const old = new Date(Date.now() - 60_000);
      utimesSync(`${path}.lock`, old, old);
      vi.advanceTimersByTime(5_000);
      expect(Date.now() - statSync(`${path}.lock`).mtimeMs).toBeLessThan(WATCH_MS);
      release();
    } finally {
      vi.useRealTimers();
    }
  });

  it('is left as it was when Ctrl-C stops the wait (nothing done)', async () => {
    const path = journal();
    const text = lockAs(path, { pid: 1, pidns: 'pid:[4026599999]', start: '1' });
    const stop = new AbortController();
    stop.abort();
    const error = await refusal(path, watching(undefined, stop.signal));
    expect(error).toMatchObject({
      code: 'interrupted',
      message: `interrupted while watching the journal's lock ${path}.lock; nothing was done`,
    });
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(text);
  });
});

describe('a lock of an earlier boot (a reboot, a preempted VM) or of another machine of the same name', () => {
  it('is taken over once seen not refreshed, however old or new its mtime', async () => {
    const path = journal();
    lockAs(path, { pid: otherProgram(), boot: 'a-boot-before', start: '1' }, 3600_000);
    expect(await taken(path)).toMatchObject({ pid: process.pid });
    // A mtime ahead of this machine's clock (the other machine's clock is ahead) still ends.
    lockAs(path, { pid: 1, boot: 'a-boot-before', start: '1' }, -60_000);
    expect(await taken(path)).toMatchObject({ pid: process.pid });
  });

  it('is held while refreshed, even by a machine whose clock is 40 s behind ours (review21b R21b-1)', async () => {
    const path = journal();
    const text = lockAs(path, { pid: 1, boot: 'a-boot-before', start: '1' }, 40_000);
    const watch = watching(refresh(path, 35_000));
    expect(await refusal(path, watch)).toMatchObject({
      message: `another svc roles assign of the same input is running (pid 1 of another boot of this machine, or of another machine named ${hostname()}, since ${JSON.parse(text).since}); nothing was done`,
      hint: `wait for it to finish; its run refreshed it while svc watched it for ${WATCH_MS / 1000} s; if no svc is running there, remove ${path}.lock`,
    });
    expect(watch.said).toEqual([waiting(path)]);
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(text);
  });

  it('that an older svc wrote (no refreshes) is held until removed, with no wait', async () => {
    const path = journal();
    writeFileSync(
      `${path}.lock`,
      JSON.stringify({ pid: 1, boot: 'a-boot-before', host: hostname(), since: iso(now), ...run }),
    );
    const watch = watching();
    expect((await refusal(path, watch)).hint).toBe(
      `wait for it to finish; if no svc is running there, remove ${path}.lock`,
    );
    expect(watch.waited).toEqual([]);
  });
});

describe('a killed run’s pid that another program has now (attack21 F7)', () => {
  afterEach(() => vi.useRealTimers());

  it('is no holder: its process started after the lock was written', async () => {
    const path = journal();
    // This svc's lock: the process's start is recorded, and the sleep's is another.
    lockAs(path, { pid: otherProgram(), start: '1' });
    expect(await taken(path)).toMatchObject({ pid: process.pid });
    // An older svc's lock (pid, host, since): the sleep started an hour after it.
    writeFileSync(
      `${path}.lock`,
      JSON.stringify({ pid: otherProgram(), host: hostname(), since: iso(Date.now() - 3600_000) }),
    );
    expect(await taken(path)).toMatchObject({ pid: process.pid });
  });

  it('that svc cannot tell from a holder is refused naming the lock file to remove', async () => {
    const path = journal();
    const pid = otherProgram();
    // An older svc's lock written after that process started: the pid is all there is to judge by.
    const since = iso(Date.now() + 60_000);
    writeFileSync(
      `${path}.lock`,
      JSON.stringify({ pid, host: hostname(), since, command: 'roles assign', operation: 'op-1' }),
    );
    expect(await refusal(path)).toMatchObject({
      message: `another svc roles assign of the same input is running (pid ${pid}, since ${since}); nothing was done`,
      hint: `wait for it to finish, then run the command again to pick up what is left (journal ${path}); if pid ${pid} is not svc (the lock is an older svc's: it names the pid alone), remove ${path}.lock`,
    });
    // Our own pid in an older svc's lock written since this process started: another container's.
    writeFileSync(
      `${path}.lock`,
      JSON.stringify({ pid: process.pid, host: hostname(), since: iso(Date.now()) }),
    );
    expect((await refusal(path)).hint).toBe(
      `pass another --journal (one journal per operation), or wait for that run to finish; if pid ${process.pid} is not svc (the lock is an older svc's: it names the pid alone), remove ${path}.lock`,
    );
  });
});

describe('a lock of this process', () => {
  it('holds this process’s mark, refuses a second run at once, and its release leaves a lock that replaced it', async () => {
    const path = journal();
    const release = await lockJournal(path, run, now);
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8'))).toEqual({
      ...thisProcess(),
      host: hostname(),
      since: iso(now),
      beat: 5,
      ...run,
    });
    expect((await refusal(path)).hint).toBe(
      `wait for it to finish, then run the command again to pick up what is left (journal ${path})`,
    );
    // Taken over while held (a human removed it, another run): the release removes only its own.
    renameSync(`${path}.lock`, `${path}.moved`);
    const other = lockAs(path, { pid: process.pid, pidns: 'pid:[4026599999]', start: '1' });
    release();
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(other);
  });
});

describe('an empty or torn lock of a run’s own journal (its maker killed between making and writing it)', () => {
  const unreadable = (path: string) =>
    `waiting ${WATCH_MS / 1000} s to see whether ${path}.lock, which cannot be read, is its maker's, still being written`;

  it('is watched, then taken over: the run goes on (it was held for good until removed by hand)', async () => {
    for (const text of ['', '{"pid":12']) {
      const path = journal();
      writeFileSync(`${path}.lock`, text);
      const watch = watching();
      expect(await taken(path, watch)).toMatchObject({ pid: process.pid, ...run });
      expect(watch.said).toEqual([unreadable(path)]);
      expect(watch.waited).toEqual([WATCH_MS]);
    }
  });

  it('written by its maker meanwhile is judged again: a live holder is refused, its lock left', async () => {
    const path = journal();
    writeFileSync(`${path}.lock`, '');
    const pid = otherProgram();
    let text = '';
    const error = await refusal(
      path,
      watching(() => {
        text = lockAs(path, {
          pid,
          pidns: undefined,
          boot: undefined,
          start: undefined,
          since: iso(Date.now() + 60_000),
        });
      }),
    );
    expect(error).toMatchObject({
      code: 'journal_locked',
      message: `another svc roles assign of the same input is running (pid ${pid}, since ${JSON.parse(text).since}); nothing was done`,
    });
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(text);
  });

  it('taken over while a third run locks in the instant it is aside: that run keeps its lock, the taker is refused (review24b M1)', async () => {
    const path = journal();
    writeFileSync(`${path}.lock`, '');
    const maker = gonePid();
    const third = otherProgram();
    let text = '';
    const rename = staleDisk.renameSync;
    // The order of review24b's SIGSTOP run: the taker moves the empty lock aside; its maker, stopped
    // till then, writes it there (and is refused by stillAt, then ends); a third run makes its lock.
    staleDisk.renameSync = (from, to) => {
      rename(from, to);
      staleDisk.renameSync = rename;
      writeFileSync(
        to,
        `${JSON.stringify({ pid: maker, host: hostname(), since: iso(Date.now()), beat: 5, ...run })}\n`,
      );
      text = lockAs(path, {
        pid: third,
        pidns: undefined,
        boot: undefined,
        start: undefined,
        since: iso(Date.now() + 60_000),
      });
    };
    try {
      const error = await refusal(path);
      expect(error).toMatchObject({
        code: 'journal_locked',
        message: `another svc roles assign of the same input is running (pid ${third}, since ${JSON.parse(text).since}); nothing was done`,
      });
    } finally {
      staleDisk.renameSync = rename;
    }
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(text);
    expect(readdirSync(dirname(path)).sort()).toEqual([basename(`${path}.lock`)]);
  });

  // review24e M1: on a file system without hard links (vfat, exFAT, SMB, some FUSE) the link
  // failed EPERM, was taken for EEXIST, and the live maker's lock moved aside was removed.
  const makerWrites = () => {
    const maker = otherProgram();
    const text = `${JSON.stringify({ pid: maker, host: hostname(), since: iso(Date.now() + 60_000), beat: 5, ...run })}\n`;
    const rename = staleDisk.renameSync;
    staleDisk.renameSync = (from, to) => {
      rename(from, to);
      staleDisk.renameSync = rename;
      writeFileSync(to, text);
    };
    return { maker, text, rename };
  };
  const noLinks = () => {
    throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
  };

  it('without hard links, a live maker’s lock moved aside is put back by a rename and the taker refused', async () => {
    const path = journal();
    writeFileSync(`${path}.lock`, '');
    const { maker, text, rename } = makerWrites();
    const link = staleDisk.linkSync;
    staleDisk.linkSync = noLinks;
    try {
      expect(await refusal(path)).toMatchObject({
        code: 'journal_locked',
        message: expect.stringContaining(`(pid ${maker}, since `),
      });
    } finally {
      staleDisk.renameSync = rename;
      staleDisk.linkSync = link;
    }
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(text);
    expect(readdirSync(dirname(path)).sort()).toEqual([basename(`${path}.lock`)]);
  });

  it('without hard links, a lock that cannot be put back is left aside and the taker refused naming both', async () => {
    const path = journal();
    writeFileSync(`${path}.lock`, '');
    const { text, rename } = makerWrites();
    const link = staleDisk.linkSync;
    staleDisk.linkSync = noLinks;
    const aside = `${path}.lock.${process.pid}.stale`;
    // The give-back's rename fails too (EIO): the first rename, the move aside, is the real one.
    const failing = (from: PathLike, to: PathLike) => {
      if (from === aside) throw Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' });
      rename(from, to);
    };
    const moveAside = staleDisk.renameSync;
    staleDisk.renameSync = (from, to) => {
      moveAside(from, to);
      staleDisk.renameSync = failing;
    };
    try {
      expect(await refusal(path)).toEqual(
        expect.objectContaining({
          code: 'journal_locked',
          message: `the lock ${path}.lock is another svc run's, and svc moved it aside to ${aside} and could not put it back (link: EPERM; rename: EIO); nothing was done`,
          hint: `put it back: mv ${aside} ${path}.lock (unless ${path}.lock exists: then remove ${aside}), then run the command again`,
        }),
      );
    } finally {
      staleDisk.renameSync = rename;
      staleDisk.linkSync = link;
    }
    expect(readFileSync(aside, 'utf8')).toBe(text);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('changed while watched but still unreadable is refused naming the lock, left as it is', async () => {
    const path = journal();
    writeFileSync(`${path}.lock`, '');
    utimesSync(`${path}.lock`, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const error = await refusal(path, watching(refresh(path, 0)));
    expect(error).toMatchObject({
      code: 'journal_locked',
      message: `the lock ${path}.lock cannot be read, and changed while svc watched it for ${WATCH_MS / 1000} s; nothing was done`,
      hint: `wait for the svc run that made it to finish, then run the command again; if no svc is running, remove ${path}.lock`,
    });
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe('');
  });

  it('made by a run stopped before writing it and taken over meanwhile: that run is refused, the other’s lock left', async () => {
    const path = journal();
    let other = '';
    // The stop: between this run's create and its write, another run took the empty lock over.
    const stopped = {
      ...realJournalDisk,
      write(fd: number, text: string) {
        renameSync(`${path}.lock`, `${path}.aside`);
        other = lockAs(path, { pid: otherProgram(), since: iso(Date.now() + 60_000) });
        realJournalDisk.write(fd, text);
      },
    };
    let error: { code?: string; message?: string } | undefined;
    try {
      await lockJournal(path, run, now, stopped, watching());
    } catch (caught) {
      error = caught as typeof error;
    }
    expect(error).toMatchObject({
      code: 'journal_locked',
      message: `the lock ${path}.lock was taken over by another svc run while this one was writing it (this process was stopped for over ${WATCH_MS / 1000} s); nothing was done`,
    });
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(other);
  });
});
