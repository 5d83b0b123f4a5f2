// The config store's proof of room (src/config/disk.ts reserve) on a disk that fills up: write(2)
// takes what fits and returns the count, the next write fails ENOSPC. The count was ignored, so a
// short write passed as room proved (attack21 F4, the same rule as the bulk input's copy).
// node:fs's writeSync is replaced for one test and put back (syncBuiltinESMExports: no module is
// mocked, test files share a worker's modules).
import fs, { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { realDisk } from '../../src/config/disk.js';
import { UsageError } from '../../src/errors.js';
import { SecretFile } from '../../src/system/secret-file.js';
import { useTempDir } from '../helpers/temp.js';

/** The test's own temporary directory, removed after it. */
const BASE = useTempDir('svc-odd-unit-');
afterAll(() => rmSync(BASE, { recursive: true, force: true }));

const realWriteSync = fs.writeSync;

/** A disk with room for `room` more bytes: a write past it takes what fits, the next fails ENOSPC. */
function fillingDisk(room: number): void {
  let left = room;
  fs.writeSync = ((fd: number, buffer: Uint8Array, offset?: number, length?: number) => {
    if (left <= 0)
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        syscall: 'write',
      });
    const from = offset ?? 0;
    const took = realWriteSync(fd, buffer, from, Math.min(length ?? buffer.length - from, left));
    left -= took;
    return took;
  }) as typeof fs.writeSync;
  syncBuiltinESMExports();
}

afterEach(() => {
  fs.writeSync = realWriteSync;
  syncBuiltinESMExports();
});

describe('reserve on a disk with room for part of it', () => {
  it('fails with the disk error (ENOSPC), leaving no scratch file', () => {
    const dir = mkdtempSync(join(BASE, 'reserve-'));
    fillingDisk(3000);
    expect(() => realDisk.reserve(join(dir, 'credentials.json'), 4096)).toThrow(/ENOSPC/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('with room: proved, nothing left', () => {
    const dir = mkdtempSync(join(BASE, 'reserve-'));
    fillingDisk(1e6);
    realDisk.reserve(join(dir, 'credentials.json'), 100_000);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("a --secret-file's proof of room on a disk with room for part of a block", () => {
  it('is refused before anything is sent (exit 2), the file it made removed', async () => {
    const dir = mkdtempSync(join(BASE, 'proof-'));
    const probe = await open(join(dir, 'probe'), 'w');
    const handles = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const { write } = handles;
    let left = 1000;
    // A handle's write takes what fits; the next one fails ENOSPC.
    const spy = vi.spyOn(handles, 'write').mockImplementation(function (
      this: FileHandle,
      ...args: unknown[]
    ) {
      if (!readlinkSync(`/proc/self/fd/${this.fd}`).startsWith(dir))
        return (write as (...a: unknown[]) => ReturnType<FileHandle['write']>).apply(this, args);
      const [buffer, offset, length, position] = args as [Buffer, number, number, number];
      if (left <= 0)
        return Promise.reject(
          Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }),
        );
      const took = Math.min(length, left);
      left -= took;
      return (write as (...a: unknown[]) => ReturnType<FileHandle['write']>).call(
        this,
        buffer,
        offset,
        took,
        position,
      );
    } as FileHandle['write']);
    try {
      const path = join(dir, 'secret');
      await expect(SecretFile.create(path)).rejects.toThrow(
        new UsageError(`cannot write to --secret-file ${path}: no space left on device`, {
          hint: 'make room, or choose a path on another disk; nothing was sent',
        }),
      );
      expect(readdirSync(dir)).toEqual(['probe']);
    } finally {
      spy.mockRestore();
    }
  });
});
