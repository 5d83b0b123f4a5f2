/**
 * src/config/lock.ts past the happy path: a lock held by another process until the wait gives up
 * (config_locked, exit 1, said once while waiting), a stale lock taken over, the holder's pid
 * file, and a config directory that cannot be made. The 40-s wait runs on a clock that moves on
 * each reading (Date.now, which proper-lockfile reads too), and its pauses between polls are given
 * as a turn of the event loop (withFileLock's `pause`), so no test waits for it in real time.
 */

import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withFileLock } from '../../src/config/lock.js';
import { ConfigError, EXIT_CODES, type SvcError } from '../../src/errors.js';
import { markWord, thisProcess } from '../../src/system/processes.js';
import { endedPid } from '../helpers/ended-pid.js';
import { tempDir } from '../helpers/temp.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A config directory with `config.json`'s lock held by another process, last touched `age` ms ago. */
function heldLock(ageMs: number): { dir: string; target: string } {
  const dir = join(tempDir('svc-lock-'), 'svc');
  mkdirSync(dir, { mode: 0o700 }); // private: a looser one is tightened, said through the same listener
  const target = join(dir, 'config.json');
  mkdirSync(`${target}.lock`);
  const touched = (Date.now() - ageMs) / 1000;
  utimesSync(`${target}.lock`, touched, touched);
  return { dir, target };
}

/** Date.now moving on by `stepMs` at each reading, from the real time; `each` is told each reading. */
function fastClock(stepMs: number, each?: (now: number) => void): void {
  let now = Date.now();
  vi.spyOn(Date, 'now').mockImplementation(() => {
    now += stepMs;
    each?.(now);
    return now;
  });
}

/**
 * A holder that runs, on a machine whose clock is `skewMs` off this one's (a home on NFS): it
 * sets its lock's mtime by its own clock every 3 s of the waiter's (fake) time, as proper-lockfile's
 * update does.
 */
function refreshedBy(target: string, skewMs: number): (now: number) => void {
  let last = 0;
  return (now) => {
    if (now - last < 3_000) return;
    last = now;
    const at = (now + skewMs) / 1000;
    try {
      utimesSync(`${target}.lock`, at, at);
    } catch {
      // released
    }
  };
}

/** withFileLock's pause between polls on a faked clock: a turn of the event loop, not real time. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function failure(promise: Promise<unknown>): Promise<SvcError> {
  try {
    await promise;
  } catch (error) {
    return error as SvcError;
  }
  throw new Error('it did not fail');
}

/**
 * withFileLock over a lock left as `held` left it, on a clock moving `stepMs` a reading: its result
 * and what it said while waiting (the clock's mock restored).
 */
async function takeOver(
  held: { dir: string; target: string },
  stepMs: number,
): Promise<{ result: string; said: string[] }> {
  const said: string[] = [];
  fastClock(stepMs);
  const result = await withFileLock(
    held.dir,
    held.target,
    async () => 'written',
    (message) => said.push(message),
    turn,
  );
  vi.restoreAllMocks();
  return { result, said };
}

describe('withFileLock against another holder', () => {
  it('gives up after the wait with config_locked (exit 1) naming the lock to remove, having said once that it waits', async () => {
    const { dir, target } = heldLock(0);
    const said: string[] = [];
    let ran = false;
    fastClock(2_000, refreshedBy(target, 0));
    const error = await failure(
      withFileLock(
        dir,
        target,
        async () => {
          ran = true;
        },
        (message) => said.push(message),
        turn,
      ),
    );
    vi.restoreAllMocks();
    expect(ran).toBe(false);
    expect([
      error.constructor.name,
      EXIT_CODES[error.category],
      error.code,
      error.message,
      error.hint,
    ]).toEqual([
      'SvcError',
      1,
      'config_locked',
      `${target} is locked by another svc process`,
      `try again; if no svc is running, remove ${target}.lock`,
    ]);
    expect(said).toEqual([
      `waiting for the lock on ${target}, held by another svc process (${target}.lock); a lock left by a stopped svc is taken over once untouched for 15 s`,
    ]);
    expect(existsSync(`${target}.lock`)).toBe(true);
  });

  it('says nothing on a short wait: the holder lets go within a second', async () => {
    const { dir, target } = heldLock(0);
    const said: string[] = [];
    const done = withFileLock(
      dir,
      target,
      async () => 'written',
      (message) => said.push(message),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    rmdirSync(`${target}.lock`);
    expect(await done).toBe('written');
    expect(said).toEqual([]);
  });

  it('waits for a lock touched 12 s ago (still held), then takes it over once 15 s have passed', async () => {
    const held = heldLock(12_000);
    const { result, said } = await takeOver(held, 250);
    expect(result).toBe('written');
    expect(said).toHaveLength(1);
  });

  // locks22 #2: proper-lockfile took a lock over once its mtime was 15 s older than this
  // machine's clock. A home on NFS shared with a machine whose clock is off made a live holder's
  // lock look stale (two writers of credentials.json at once) and a dead one's fresh for ever.
  it('a lock’s mtime, however old, is no proof by itself: it is watched, said, and taken over once seen untouched for 15 s', async () => {
    const held = heldLock(3_600_000);
    const { result, said } = await takeOver(held, 250);
    expect(result).toBe('written');
    expect(said).toHaveLength(1);
    // Moved aside and removed: nothing of it left.
    expect(readdirSync(held.dir)).toEqual([]);
  });

  it('a live holder whose clock is 20 s behind (its lock looks 20 s old) is waited for, never taken over', async () => {
    const { dir, target } = heldLock(20_000);
    let ran = false;
    fastClock(1_000, refreshedBy(target, -20_000));
    const error = await failure(
      withFileLock(
        dir,
        target,
        async () => {
          ran = true;
        },
        undefined,
        turn,
      ),
    );
    vi.restoreAllMocks();
    expect([ran, error.code, existsSync(`${target}.lock`)]).toEqual([false, 'config_locked', true]);
  });

  it('a dead holder whose clock was a minute ahead (its lock looks fresh) is taken over once seen untouched for 15 s', async () => {
    const held = heldLock(-60_000);
    const { result, said } = await takeOver(held, 250);
    expect(result).toBe('written');
    expect(said).toHaveLength(1);
  });

  it('a lock taken by another holder while watched is watched anew: the take-over waits 15 s from it', async () => {
    const { dir, target } = heldLock(0);
    let taken = 0;
    // At 10 s of the watch, the holder's lock is gone and another's made (a new directory).
    fastClock(250, (now) => {
      if (taken === 0) taken = now;
      else if (taken > 0 && now - taken >= 10_000) {
        taken = -now;
        rmdirSync(`${target}.lock`);
        mkdirSync(`${target}.lock`);
      }
    });
    const seen: number[] = [];
    const result = await withFileLock(
      dir,
      target,
      async () => {
        seen.push(Date.now());
        return 'written';
      },
      undefined,
      turn,
    );
    vi.restoreAllMocks();
    expect(result).toBe('written');
    // The second lock was made while the first was watched (taken holds minus its time)...
    expect(taken).toBeLessThan(0);
    // ...and taken over 15 s after it was first seen, not 15 s after the first.
    expect(seen[0]! + taken).toBeGreaterThanOrEqual(15_000);
  });

  it.each(['0\n', '-12\n', 'abc\n', ''])('a pid file holding %j names no process', async (text) => {
    const { dir, target } = heldLock(0);
    writeFileSync(`${target}.lock-pid`, text);
    const said: string[] = [];
    fastClock(2_000);
    const result = await withFileLock(
      dir,
      target,
      async () => 'written',
      (message) => {
        said.push(message);
        rmdirSync(`${target}.lock`);
      },
      turn,
    );
    vi.restoreAllMocks();
    expect(result).toBe('written');
    expect(said).toEqual([
      `waiting for the lock on ${target}, held by another svc process (${target}.lock); a lock left by a stopped svc is taken over once untouched for 15 s`,
    ]);
  });

  it('gives up without a word when no one listens for the wait', async () => {
    const { dir, target } = heldLock(0);
    fastClock(2_000, refreshedBy(target, 0));
    const error = await failure(withFileLock(dir, target, async () => {}, undefined, turn));
    vi.restoreAllMocks();
    expect(error.code).toBe('config_locked');
  });
});

describe('withFileLock holding the lock', () => {
  it('writes its mark and its lock’s inode beside the lock (0600) while it works, and removes both after', async () => {
    const dir = join(tempDir('svc-lock-'), 'svc');
    const target = join(dir, 'credentials.json');
    const seen = await withFileLock(dir, target, async () => ({
      pid: readFileSync(`${target}.lock-pid`, 'utf8'),
      mode: statSync(`${target}.lock-pid`).mode & 0o777,
      ino: statSync(`${target}.lock`).ino,
    }));
    expect(seen).toEqual({ pid: `${markWord()} ino=${seen.ino}\n`, mode: 0o600, ino: seen.ino });
    expect(seen.pid).toMatch(new RegExp(`^${process.pid}-`));
    expect([existsSync(`${target}.lock-pid`), existsSync(`${target}.lock`)]).toEqual([false, false]);
  });

  it('makes the config directory 0700 before it locks', async () => {
    const dir = join(tempDir('svc-lock-'), 'new', 'svc');
    await withFileLock(dir, join(dir, 'config.json'), async () => {});
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('a config directory that cannot be made: exit 2, naming it and the variable that moves it', async () => {
    const root = tempDir('svc-lock-');
    writeFileSync(join(root, 'file'), 'x');
    const dir = join(root, 'file', 'svc');
    let ran = false;
    const error = await failure(
      withFileLock(dir, join(dir, 'config.json'), async () => {
        ran = true;
      }),
    );
    expect(ran).toBe(false);
    expect(error).toBeInstanceOf(ConfigError);
    expect(EXIT_CODES[error.category]).toBe(2);
    expect(error.message).toMatch(new RegExp(`^cannot create config directory ${dir}: .*ENOTDIR`));
    expect(error.hint).toBe('set SVC_CONFIG_DIR to a writable directory');
  });

  it('a lock that cannot be taken for another reason: config_write, exit 1, nothing changed', async () => {
    const dir = join(tempDir('svc-lock-'), 'svc');
    const target = join(dir, 'missing', 'config.json');
    const error = await failure(withFileLock(dir, target, async () => {}));
    expect([EXIT_CODES[error.category], error.code, error.hint]).toEqual([
      1,
      'config_write',
      'make room on its disk (or make it writable), then run the command again; nothing was changed',
    ]);
  });
});

describe('withFileLock after a holder of this machine was killed', () => {
  /** The pid of a process that has ended (a killed svc's, as its pid file names it). */
  const gonePid = () => endedPid();

  /** A lock left as a killed svc leaves it, fresh (touched now), its pid file naming `word` and the lock's inode. */
  function leftBy(word: (ino: number) => string): { dir: string; target: string } {
    const held = heldLock(0);
    writeFileSync(`${held.target}.lock-pid`, `${word(statSync(`${held.target}.lock`).ino)}\n`);
    return held;
  }

  it('takes over at once a lock whose holder of this boot and namespace is gone, without the 15 s watch', async () => {
    const pid = gonePid();
    const { dir, target } = leftBy((ino) => `${markWord({ ...thisProcess(), pid, start: '1' })} ino=${ino}`);
    const said: string[] = [];
    const result = await withFileLock(
      dir,
      target,
      async () => readFileSync(`${target}.lock-pid`, 'utf8'),
      (message) => said.push(message),
    );
    expect(said).toEqual([]);
    expect(result).toMatch(new RegExp(`^${markWord()} ino=\\d+\\n$`));
    expect(readdirSync(dir).sort()).toEqual([]);
  });

  it.each([
    [
      'of another PID namespace (another container)',
      (ino: number) =>
        `${markWord({ ...thisProcess(), pid: 1, start: '1', pidns: 'pid:[4026531999]' })} ino=${ino}`,
    ],
    [
      'with parts unknown (written where there is no /proc: maybe another machine on a shared home)',
      (ino: number) => `${gonePid()}-x-x-x ino=${ino}`,
    ],
    [
      'of another lock (its inode is not this lock’s)',
      (ino: number) => `${markWord({ ...thisProcess(), pid: 999_999_9, start: '1' })} ino=${ino + 1}`,
    ],
    ['an older svc’s bare pid', () => '999999'],
  ])(
    'watches a lock whose pid file names a holder %s: said waiting, taken over once untouched 15 s',
    async (_, word) => {
      const { result, said } = await takeOver(leftBy(word), 2_000);
      expect(result).toBe('written');
      expect(said).toHaveLength(1);
    },
  );

  it('watches a lock whose pid file was written before the lock was made (its inode reused by a later lock)', async () => {
    const pid = gonePid();
    const held = leftBy((ino) => `${markWord({ ...thisProcess(), pid, start: '1' })} ino=${ino}`);
    const born = statSync(`${held.target}.lock`).birthtimeMs;
    utimesSync(`${held.target}.lock-pid`, (born - 5_000) / 1000, (born - 5_000) / 1000);
    const { result, said } = await takeOver(held, 2_000);
    expect(result).toBe('written');
    expect(said).toHaveLength(1);
  });

  it('never takes its own live lock for a gone holder’s (two writers in one process)', async () => {
    const dir = join(tempDir('svc-lock-'), 'svc');
    const target = join(dir, 'config.json');
    const order: string[] = [];
    let letGo: () => void = () => {};
    const first = withFileLock(dir, target, async () => {
      order.push('first in');
      await new Promise<void>((resolve) => {
        letGo = resolve;
      });
      order.push('first out');
    });
    while (order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const second = withFileLock(dir, target, async () => {
      order.push('second in');
    });
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    letGo();
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'first out', 'second in']);
  });
});
