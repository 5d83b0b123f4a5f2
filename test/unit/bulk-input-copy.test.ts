// The bulk input's private copy in TMPDIR (src/bulk/input.ts) when TMPDIR fills up, is missing, or
// the copy cannot be removed (attack21 F4, F3): played through the snapshot's disk seam, as a
// tmpfs or a `ulimit -n` would (test/e2e/full-tmpdir.test.ts fills a real one where it can).
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { realSnapshotDisk, type SnapshotDisk, snapshotInput } from '../../src/bulk/input.js';
import { UsageError } from '../../src/errors.js';
import { thisProcess } from '../../src/system/processes.js';
import { BIN, baseEnv } from '../helpers/svc.js';
import { useTempDir } from '../helpers/temp.js';

/** A directory of the machine's temporary one, made before a test points TMPDIR elsewhere. */
const BASE = useTempDir('svc-input-copy-');
afterAll(() => rmSync(BASE, { recursive: true, force: true }));

const systemError = (code: string, words: string, call: string) =>
  Object.assign(new Error(`${code}: ${words}, ${call}`), { code, syscall: call });

/** svc's own directory in TMPDIR, where the copies' directories are made (copiesHome). */
const OWN = `svc-inputs-${process.getuid?.() ?? 'user'}`;

/** A TMPDIR of its own, so what the copy leaves in it can be listed. */
function ownTmpdir(): string {
  const dir = mkdtempSync(join(BASE, 'svc-tmpdir-'));
  vi.stubEnv('TMPDIR', dir);
  return dir;
}

/** A file of `rows` grant rows, every one naming ops-readonly. */
function grantsFile(rows: number): string {
  const file = join(mkdtempSync(join(BASE, 'svc-bulk-')), 'ops.csv');
  let text = 'user,role\n';
  for (let i = 1; i <= rows; i++) text += `usr_bulk_${String(i).padStart(6, '0')},ops-readonly\n`;
  writeFileSync(file, text);
  return file;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('a TMPDIR that fills up while the input is copied', () => {
  /** Room for `room` more bytes: a write past it takes what fits, the next one fails ENOSPC. */
  function fillingDisk(room: number): SnapshotDisk {
    let left = room;
    return {
      ...realSnapshotDisk,
      write(fd, bytes, offset) {
        if (left === 0) throw systemError('ENOSPC', 'no space left on device', 'write');
        const took = writeSync(fd, bytes, offset, Math.min(left, bytes.length - offset));
        left -= took;
        return took;
      },
    };
  }

  it('is refused in one line naming TMPDIR and the cause, nothing sent, the copy removed', async () => {
    const temporary = ownTmpdir();
    const file = grantsFile(482);
    const error = await snapshotInput(
      file,
      Readable.from([]),
      '--file',
      undefined,
      undefined,
      fillingDisk(12_288),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      message: `cannot copy ${file} to TMPDIR (${temporary}): no space left on device; nothing was sent`,
      code: 'tmpdir_unusable',
      hint: 'make room there, or set TMPDIR to a directory you can write with room for a copy of the input (svc runs from that copy), then run the command again',
    });
    expect(readdirSync(temporary)).toEqual([]);
  });

  it('a disk whose writes say they took bytes they did not keep: the copy is checked by its size', async () => {
    const temporary = ownTmpdir();
    const file = grantsFile(100);
    const lying: SnapshotDisk = { ...realSnapshotDisk, write: (_fd, bytes, offset) => bytes.length - offset };
    await expect(
      snapshotInput(file, Readable.from([]), '--file', undefined, undefined, lying),
    ).rejects.toThrow(
      `cannot copy ${file} to TMPDIR (${temporary}): the copy holds 0 of the ${statSync(file).size} bytes read; nothing was sent`,
    );
    expect(readdirSync(temporary)).toEqual([]);
  });

  it('a copy with room is whole', async () => {
    ownTmpdir();
    const file = grantsFile(482);
    const snap = await snapshotInput(
      file,
      Readable.from([]),
      '--file',
      undefined,
      undefined,
      fillingDisk(1e6),
    );
    expect(snap.remove()).toBeUndefined();
  });
});

describe('a TMPDIR that is missing', () => {
  it.each([
    ['--file', () => grantsFile(2)],
    ['standard input', () => '-'],
  ])('%s: says TMPDIR does not exist and how to fix it (exit 2), not "a bug in svc"', async (_name, spec) => {
    vi.stubEnv('TMPDIR', '/nonexistent/tmp');
    const path = spec();
    const error = await snapshotInput(path, Readable.from(['user,role\n']), '--file').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      message: `cannot copy ${path === '-' ? 'standard input' : path} to TMPDIR (/nonexistent/tmp): it does not exist or is not a directory; nothing was sent`,
      hint: 'set TMPDIR to a directory that exists and that you can write (or unset it: /tmp), then run the command again',
    });
  });
});

describe('standard input into a full TMPDIR', () => {
  it('names the copy, not the input', async () => {
    const temporary = ownTmpdir();
    // The stream's own write fails as a full disk's does (fs.write, ENOSPC).
    const write = vi.spyOn((await import('node:fs')).default, 'write');
    write.mockImplementation(((_fd: number, _buffer: unknown, ...rest: unknown[]) => {
      const done = rest.at(-1) as (error: Error) => void;
      done(systemError('ENOSPC', 'no space left on device', 'write'));
    }) as never);
    try {
      await expect(
        snapshotInput('-', Readable.from([Buffer.from('user,role\nu,r\n')]), '--file'),
      ).rejects.toThrow(
        `cannot copy standard input to TMPDIR (${temporary}): no space left on device; nothing was sent`,
      );
    } finally {
      write.mockRestore();
    }
    expect(readdirSync(temporary)).toEqual([]);
  });
});

describe('a copy that cannot be removed (out of file descriptors)', () => {
  const emfile = () => systemError('EMFILE', 'too many open files', 'scandir');

  it('is removed by a second try', async () => {
    const temporary = ownTmpdir();
    let fails = 1;
    const disk: SnapshotDisk = {
      ...realSnapshotDisk,
      remove(dir, path) {
        if (fails-- > 0) throw emfile();
        realSnapshotDisk.remove(dir, path);
      },
    };
    const snap = await snapshotInput(grantsFile(3), Readable.from([]), '--file', undefined, undefined, disk);
    expect(snap.remove()).toBeUndefined();
    expect(readdirSync(temporary)).toEqual([]);
  });

  it('that fails twice is words for a warning, not a thrown error', async () => {
    ownTmpdir();
    const disk: SnapshotDisk = {
      ...realSnapshotDisk,
      remove() {
        throw emfile();
      },
    };
    const file = grantsFile(3);
    const snap = await snapshotInput(file, Readable.from([]), '--file', undefined, undefined, disk);
    const dir = join(snap.path, '..');
    expect(snap.remove()).toMatch(
      new RegExp(
        `^svc's private copy of ${file} \\(0600\\) could not be removed \\(too many open files \\(ulimit -n (\\d+)\\): raise the limit\\); remove it: rm -r ${dir}$`,
      ),
    );
    realSnapshotDisk.remove(dir, snap.path);
  });
});

describe('a copy left by a run killed with SIGKILL (attack25b L3)', () => {
  // Nothing removed them: /tmp held hundreds, each a grant file or what came on standard input.
  it('is removed when the next run starts; an unmarked one (an older svc’s) is left', async () => {
    const temporary = ownTmpdir();
    const dirs = mkdtempSync(join(BASE, 'svc-killed-'));
    const child = spawn(process.execPath, [BIN, 'roles', 'assign', '--file', '-', '--yes'], {
      env: baseEnv({
        TMPDIR: temporary,
        SVC_CONFIG_DIR: join(dirs, 'config'),
        SVC_STATE_DIR: join(dirs, 'state'),
        SVC_TOKEN: 'svc_pk_killedrunkilledrun1234',
        SVC_TENANT: 'acme-treasury',
        SVC_BASE_URL: 'http://127.0.0.1:9',
      }),
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const exited = new Promise((done) => child.once('exit', done));
    // Standard input stays open: the run is copying it when it is killed.
    child.stdin.write('user,role\nusr_viewer,tenant_analyst\n');
    const home = join(temporary, OWN);
    const copies = () =>
      existsSync(home) ? readdirSync(home).filter((name) => name.startsWith('svc-input-')) : [];
    // What was written has reached the copy (its directory is made first, then the file).
    const copied = () =>
      copies().some((name) => {
        const input = join(home, name, 'input');
        return existsSync(input) && statSync(input).size > 0;
      });
    for (let waited = 0; !copied(); waited += 50) {
      if (waited > 60_000) throw new Error('no copy was made within 60 s');
      await new Promise((done) => setTimeout(done, 50));
    }
    expect(copies()).toHaveLength(1);
    const its = copies()[0];
    // While the child runs, another run's sweep leaves its copy (review25d M2: a live run's copy).
    const beside = await snapshotInput('-', Readable.from(['user,role\n']), '--file');
    expect(copies()).toContain(its);
    expect(beside.remove()).toBeUndefined();
    child.kill('SIGKILL');
    await exited;
    // An svc before session 25's copy (unmarked: whose it is cannot be told) is left.
    mkdirSync(join(home, 'svc-input-AbC123'));

    const next = await snapshotInput('-', Readable.from(['user,role\n']), '--file');
    expect(copies().sort()).toEqual([dirname(next.path).slice(home.length + 1), 'svc-input-AbC123'].sort());
    expect(next.remove()).toBeUndefined();
  }, 90_000);

  it('a copy of another boot or another PID namespace is left (review25d M1)', async () => {
    // Another machine sharing TMPDIR, a VM-isolated container (its own boot id), a container
    // sharing it (its own PID namespace): whether that run still goes cannot be told from here.
    const temporary = ownTmpdir();
    const me = thisProcess();
    const myBoot = me.boot?.replaceAll('-', '').slice(0, 12) ?? '';
    const otherBoot = myBoot.startsWith('0') ? '1234567890ab' : '0123456789ab';
    const myNs = /\d+/.exec(me.pidns ?? '')?.[0] ?? '4026531836';
    const otherNs = String(Number(myNs) + 7);
    const names = [
      `svc-input-4242-123456-${otherBoot}-${myNs}-AbCdEf`,
      `svc-input-4242-123456-${otherBoot}-${otherNs}-QwErTy`,
      `svc-input-4242-123456-${myBoot}-${otherNs}-ZxCvBn`,
    ];
    const home = join(temporary, OWN);
    mkdirSync(home, { mode: 0o700 });
    for (const name of names) mkdirSync(join(home, name));
    const next = await snapshotInput('-', Readable.from(['user,role\n']), '--file');
    const left = readdirSync(home).filter((name) => name.startsWith('svc-input-'));
    expect(left.sort()).toEqual([...names, dirname(next.path).slice(home.length + 1)].sort());
    expect(next.remove()).toBeUndefined();
  });

  it('a copy of this process (another run in it) is left', async () => {
    const temporary = ownTmpdir();
    const one = await snapshotInput('-', Readable.from(['a\n']), '--file');
    const two = await snapshotInput('-', Readable.from(['b\n']), '--file');
    expect(statSync(one.path).isFile()).toBe(true);
    expect(readdirSync(join(temporary, OWN))).toHaveLength(2);
    one.remove();
    expect(readdirSync(join(temporary, OWN))).toHaveLength(1);
    two.remove();
    // svc's own directory went with its last copy: a run leaves nothing in TMPDIR.
    expect(readdirSync(temporary)).toEqual([]);
  });
});

describe('svc’s own directory in TMPDIR (session 27): a run lists only it, not the whole of TMPDIR', () => {
  const me = process.getuid?.();
  const gone = () => {
    // A mark of a run that is gone: pid 1 of this boot and namespace, started at another time.
    const mine = thisProcess();
    const boot = mine.boot?.replaceAll('-', '').slice(0, 12) ?? '';
    const ns = /\d+/.exec(mine.pidns ?? '')?.[0] ?? '4026531836';
    return `svc-input-1-1-${boot}-${ns}-AbCdEf`;
  };

  it('is made 0700, holds the copy, and is removed with the last copy', async () => {
    const temporary = ownTmpdir();
    const one = await snapshotInput('-', Readable.from(['a\n']), '--file');
    expect(dirname(dirname(one.path))).toBe(join(temporary, OWN));
    expect(lstatSync(join(temporary, OWN)).mode & 0o777).toBe(0o700);
    expect(one.remove()).toBeUndefined();
    expect(readdirSync(temporary)).toEqual([]);
  });

  it('removed by another run between its making and its look: made again, the copy in it (review27b L2)', async () => {
    const temporary = ownTmpdir();
    const fs = (await import('node:fs')).default;
    const real = fs.lstatSync;
    let raced = false;
    // Another run's leaveHome removes the empty directory just before this run looks at it.
    const look = vi.spyOn(fs, 'lstatSync').mockImplementation(((path: string, ...more: never[]) => {
      if (!raced && path === join(temporary, OWN)) {
        raced = true;
        rmSync(path, { recursive: true });
      }
      return (real as (...args: unknown[]) => unknown)(path, ...more);
    }) as typeof fs.lstatSync);
    syncBuiltinESMExports();
    try {
      const one = await snapshotInput('-', Readable.from(['a\n']), '--file');
      expect(raced).toBe(true);
      expect(dirname(dirname(one.path))).toBe(join(temporary, OWN));
      expect(one.remove()).toBeUndefined();
      expect(readdirSync(temporary)).toEqual([]);
    } finally {
      look.mockRestore();
      syncBuiltinESMExports();
    }
  });

  it('a marked copy of a gone run in TMPDIR itself (where svc before session 27 made them) is not listed, nor removed', async () => {
    const temporary = ownTmpdir();
    mkdirSync(join(temporary, gone()));
    const next = await snapshotInput('-', Readable.from(['a\n']), '--file');
    expect(readdirSync(temporary).sort()).toEqual([OWN, gone()].sort());
    expect(next.remove()).toBeUndefined();
    expect(readdirSync(temporary)).toEqual([gone()]);
  });

  const plants: Array<[string, (home: string, elsewhere: string) => void]> = [
    ['a symlink to another directory', (home: string, elsewhere: string) => symlinkSync(elsewhere, home)],
    [
      'a directory of the user’s open to others (0755)',
      (home: string) => {
        mkdirSync(home);
        chmodSync(home, 0o755);
      },
    ],
  ];
  // Another user's directory: only root can make one here.
  if (me === 0)
    plants.push([
      'another user’s directory (uid 4242)',
      (home: string) => {
        mkdirSync(home, { mode: 0o700 });
        chownSync(home, 4242, 4242);
      },
    ]);
  it.each(plants)(
    '%s of that name is not used nor touched: the copy is made in TMPDIR itself, private',
    async (_name, plant) => {
      const temporary = ownTmpdir();
      const home = join(temporary, OWN);
      const elsewhere = mkdtempSync(join(BASE, 'svc-elsewhere-'));
      // What is in it is never swept: a copy of a gone run there stays.
      mkdirSync(join(elsewhere, gone()));
      plant(home, elsewhere);
      if (!lstatSync(home).isSymbolicLink()) mkdirSync(join(home, gone()));
      const before = lstatSync(home);
      const next = await snapshotInput('-', Readable.from(['a\n']), '--file');
      expect(dirname(dirname(next.path))).toBe(temporary);
      expect(lstatSync(dirname(next.path)).mode & 0o777).toBe(0o700);
      expect(readdirSync(elsewhere)).toEqual([gone()]);
      const after = lstatSync(home);
      expect([after.mode, after.uid, after.isSymbolicLink()]).toEqual([
        before.mode,
        before.uid,
        before.isSymbolicLink(),
      ]);
      if (!after.isSymbolicLink()) expect(readdirSync(home)).toEqual([gone()]);
      expect(next.remove()).toBeUndefined();
      expect(readdirSync(temporary)).toEqual([OWN]);
    },
  );
});
