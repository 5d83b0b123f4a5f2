/**
 * src/config/lock-takeover.ts, step by step (measured alone by Stryker in session 23): what one
 * take-over leaves on disk and returns at each of its ends, and when a take-over marker found
 * there is taken as left. In one process, in a fixed order: another waiter's steps run through
 * the take-over's seam (`takeOverDisk`), and the marker's watch reads a clock the test sets.
 */

import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Seen, takeOverDisk, takeOverStale } from '../../src/config/lock-takeover.js';
import { markWord, thisProcess } from '../../src/system/processes.js';
import { endedPid } from '../helpers/ended-pid.js';
import { tempDir } from '../helpers/temp.js';

afterEach(() => {
  vi.restoreAllMocks();
});

function storeDir(): { dir: string; lock: string; marker: string; pid: string } {
  const dir = join(tempDir('svc-takeover-steps-'), 'svc');
  mkdirSync(dir, { mode: 0o700 });
  const lock = join(dir, 'credentials.json.lock');
  return { dir, lock, marker: `${lock}.takeover`, pid: `${lock}-pid` };
}

function seen(path: string): Seen {
  const { ino, dev, mtimeMs, birthtimeMs } = statSync(path);
  return { ino, dev, mtimeMs, bornMs: birthtimeMs };
}

/** A lock directory other than `lock`'s (made while it is there: never its inode), put in its place. */
function replaced(lock: string): void {
  const other = `${lock}.other`;
  mkdirSync(other);
  rmSync(lock, { recursive: true, force: true });
  renameSync(other, lock);
}

/** The pid of a process that has ended. */
const gonePid = () => endedPid();

const eexist = (path: string) =>
  Object.assign(new Error(`EEXIST: file already exists, open '${path}'`), { code: 'EEXIST' });

describe('one take-over of a lock judged left', () => {
  it('takes it away with its pid file, and drops its marker: nothing is left', () => {
    const { dir, lock, marker, pid } = storeDir();
    mkdirSync(lock);
    writeFileSync(pid, 'x\n');
    const judged = seen(lock);
    // Under the marker, as the lock is moved: the marker is this process's, private, its mark whole.
    let held: { text: string; mode: number } | undefined;
    const rename = takeOverDisk.renameSync;
    vi.spyOn(takeOverDisk, 'renameSync').mockImplementation((from, to) => {
      held = { text: readFileSync(marker, 'utf8'), mode: statSync(marker).mode & 0o777 };
      rename(from, to);
    });
    const looked: Seen[] = [];
    const result = takeOverStale(lock, judged, (now) => {
      looked.push(now);
      return true;
    });
    expect([result, held, looked, readdirSync(dir)]).toEqual([
      true,
      { text: `${markWord()}\n`, mode: 0o600 },
      [judged],
      [],
    ]);
  });

  it('of a lock gone before its look: true, nothing moved or made', () => {
    const { dir, lock } = storeDir();
    mkdirSync(lock);
    const judged = seen(lock);
    rmSync(lock, { recursive: true });
    const moved = vi.spyOn(takeOverDisk, 'renameSync');
    expect([takeOverStale(lock, judged), moved.mock.calls, readdirSync(dir)]).toEqual([true, [], []]);
  });

  it('of a lock made since it was judged (another): true, the new lock and its pid file left in place', () => {
    const { dir, lock, pid } = storeDir();
    mkdirSync(lock);
    const judged = seen(lock);
    replaced(lock);
    writeFileSync(pid, 'new holder\n');
    const now = seen(lock);
    const moved = vi.spyOn(takeOverDisk, 'renameSync');
    const looked = vi.fn(() => true);
    expect(takeOverStale(lock, judged, looked)).toBe(true);
    expect([moved.mock.calls, looked.mock.calls, seen(lock), readdirSync(dir).sort()]).toEqual([
      [],
      [],
      now,
      ['credentials.json.lock', 'credentials.json.lock-pid'],
    ]);
  });

  it('of a lock its holder touched since it was judged (the same lock, refreshed): true, left in place', () => {
    const { dir, lock } = storeDir();
    mkdirSync(lock);
    const judged = seen(lock);
    const later = new Date(judged.mtimeMs + 5_000);
    utimesSync(lock, later, later);
    const moved = vi.spyOn(takeOverDisk, 'renameSync');
    expect(takeOverStale(lock, judged)).toBe(true);
    expect([moved.mock.calls, seen(lock).ino, readdirSync(dir)]).toEqual([
      [],
      judged.ino,
      ['credentials.json.lock'],
    ]);
  });

  it('of a lock its second look finds held (stillGone false): true, the lock and its pid file left in place', () => {
    const { dir, lock, pid } = storeDir();
    mkdirSync(lock);
    writeFileSync(pid, 'holder\n');
    const judged = seen(lock);
    const moved = vi.spyOn(takeOverDisk, 'renameSync');
    expect(takeOverStale(lock, judged, () => false)).toBe(true);
    expect([moved.mock.calls, seen(lock), readdirSync(dir).sort()]).toEqual([
      [],
      judged,
      ['credentials.json.lock', 'credentials.json.lock-pid'],
    ]);
  });

  it('whose move fails (its holder let go): true, its marker dropped, nothing else touched', () => {
    const { dir, lock, pid } = storeDir();
    mkdirSync(lock);
    writeFileSync(pid, 'holder\n');
    const judged = seen(lock);
    vi.spyOn(takeOverDisk, 'renameSync').mockImplementation(() => {
      throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
    });
    expect(takeOverStale(lock, judged)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['credentials.json.lock', 'credentials.json.lock-pid']);
  });

  it('whose move finds the lock gone (its holder let go meanwhile): true, no lock made in its place', () => {
    const { dir, lock } = storeDir();
    mkdirSync(lock);
    const judged = seen(lock);
    const rename = takeOverDisk.renameSync;
    let calls = 0;
    vi.spyOn(takeOverDisk, 'renameSync').mockImplementation((from, to) => {
      if (++calls > 1) return rename(from, to);
      rmSync(lock, { recursive: true });
      throw Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
    });
    expect([takeOverStale(lock, judged), calls, readdirSync(dir)]).toEqual([true, 1, []]);
  });

  it('that moved another lock and cannot put it back (its rename fails): the moved lock is not left aside', () => {
    const { dir, lock } = storeDir();
    mkdirSync(lock);
    const judged = seen(lock);
    const rename = takeOverDisk.renameSync;
    let calls = 0;
    vi.spyOn(takeOverDisk, 'renameSync').mockImplementation((from, to) => {
      calls++;
      // The look and the move: another lock made between them. The give-back's rename fails.
      if (calls === 1) replaced(lock);
      else throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
      rename(from, to);
    });
    expect(takeOverStale(lock, judged)).toBe(true);
    expect([calls, readdirSync(dir)]).toEqual([2, ['credentials.json.lock']]);
  });

  it('that moved another lock while a third waiter locked in its place: the third’s lock kept, the moved one not left aside', () => {
    const { dir, lock } = storeDir();
    mkdirSync(lock);
    const judged = seen(lock);
    const rename = takeOverDisk.renameSync;
    const mkdir = takeOverDisk.mkdirSync;
    let calls = 0;
    vi.spyOn(takeOverDisk, 'renameSync').mockImplementation((from, to) => {
      // The look and the move: another lock made between them.
      if (++calls === 1) replaced(lock);
      rename(from, to);
    });
    let third: number | undefined;
    vi.spyOn(takeOverDisk, 'mkdirSync').mockImplementation((path, options) => {
      // Just before the give-back's mkdir: a third waiter locks.
      mkdirSync(lock);
      third = statSync(lock).ino;
      return mkdir(path, options);
    });
    expect(takeOverStale(lock, judged)).toBe(true);
    expect([calls, seen(lock).ino, readdirSync(dir)]).toEqual([1, third, ['credentials.json.lock']]);
  });

  it.runIf(existsSync('/proc/self/fd'))('closes its marker’s descriptor', () => {
    const { lock } = storeDir();
    mkdirSync(lock);
    const judged = seen(lock);
    const open = readdirSync('/proc/self/fd').length;
    expect(takeOverStale(lock, judged)).toBe(true);
    expect(readdirSync('/proc/self/fd').length).toBe(open);
  });

  it('whose marker was taken as left and made again by another meanwhile: that marker is not dropped', () => {
    const { dir, lock, marker } = storeDir();
    mkdirSync(lock);
    const judged = seen(lock);
    const rename = takeOverDisk.renameSync;
    vi.spyOn(takeOverDisk, 'renameSync').mockImplementation((from, to) => {
      // Another take-over's marker, made while this one's is still there (never its inode).
      writeFileSync(`${marker}.other`, 'other\n');
      renameSync(`${marker}.other`, marker);
      rename(from, to);
    });
    expect(takeOverStale(lock, judged)).toBe(true);
    expect([readdirSync(dir), readFileSync(marker, 'utf8')]).toEqual([
      ['credentials.json.lock.takeover'],
      'other\n',
    ]);
  });
});

describe('a take-over marker found there', () => {
  it('let go between the make and the look (EEXIST, then none): made at the second try, the lock taken over', () => {
    const { dir, lock, marker } = storeDir();
    mkdirSync(lock);
    const open = takeOverDisk.openSync;
    let tries = 0;
    vi.spyOn(takeOverDisk, 'openSync').mockImplementation((path, ...rest) => {
      if (path === marker && ++tries === 1) throw eexist(marker);
      return open(path, ...rest);
    });
    expect([takeOverStale(lock, seen(lock)), tries, readdirSync(dir)]).toEqual([true, 2, []]);
  });

  it('let go at every look, yet never made: two tries, then judged again at the next poll (false)', () => {
    const { dir, lock, marker } = storeDir();
    mkdirSync(lock);
    let tries = 0;
    vi.spyOn(takeOverDisk, 'openSync').mockImplementation((path) => {
      if (path === marker) tries++;
      throw eexist(String(path));
    });
    expect([takeOverStale(lock, seen(lock)), tries, readdirSync(dir)]).toEqual([
      false,
      2,
      ['credentials.json.lock'],
    ]);
  });

  it('of this very process (a take-over of its own in progress): never taken', () => {
    const { lock, marker } = storeDir();
    mkdirSync(lock);
    writeFileSync(marker, `${markWord()}\n`);
    let now = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const took: boolean[] = [];
    for (let step = 0; step <= 4; step++, now += 10_000) took.push(takeOverStale(lock, seen(lock)));
    expect([took, readFileSync(marker, 'utf8'), existsSync(lock)]).toEqual([
      [false, false, false, false, false],
      `${markWord()}\n`,
      true,
    ]);
  });

  /** Takes over `lock` at each of `at` (ms after the first), the marker's watch reading that clock. */
  function tries(lock: string, at: number[], between?: (ms: number) => void): boolean[] {
    const start = Date.now();
    let now = start;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    return at.map((ms) => {
      now = start + ms;
      between?.(ms);
      return takeOverStale(lock, seen(lock));
    });
  }

  for (const [what, mark] of [
    [
      'a gone pid without its start, boot or namespace (another machine’s, or no /proc)',
      () => `${gonePid()}-x-x-x`,
    ],
    [
      'a gone pid of another boot',
      () => markWord({ ...thisProcess(), pid: gonePid(), start: '1', boot: '0123456789ab-0000' }),
    ],
    ['a gone pid without its start', () => markWord({ ...thisProcess(), pid: gonePid(), start: undefined })],
    [
      'a gone pid without its PID namespace',
      () => markWord({ ...thisProcess(), pid: gonePid(), start: '1', pidns: undefined }),
    ],
    ['no mark at all', () => 'not a mark'],
  ] as const) {
    it(`whose mark does not tell (${what}): watched, taken once seen 15 s, not a millisecond before`, () => {
      const { dir, lock, marker } = storeDir();
      mkdirSync(lock);
      writeFileSync(marker, `${mark()}\n`);
      expect(tries(lock, [0, 14_999, 15_000])).toEqual([false, false, true]);
      expect(readdirSync(dir)).toEqual([]);
    });
  }

  it('made again while watched (another marker): its watch starts again', () => {
    const { dir, lock, marker } = storeDir();
    mkdirSync(lock);
    writeFileSync(marker, 'first\n');
    const again = (ms: number) => {
      if (ms !== 10_000) return;
      writeFileSync(`${marker}.other`, 'second\n');
      renameSync(`${marker}.other`, marker);
    };
    expect(tries(lock, [0, 10_000, 15_000, 24_999, 25_000], again)).toEqual([
      false,
      false,
      false,
      false,
      true,
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });
});
