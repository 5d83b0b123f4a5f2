/**
 * writeFileWhole (`svc export -o`, `svc plan --out`): a regular file is replaced whole; a path that
 * is no regular file is written into, never renamed over — `-o /dev/null` as root replaced the
 * machine's /dev/null with a regular file. Shown on a named pipe in a temporary directory.
 */
import { execFileSync } from 'node:child_process';
import {
  chownSync,
  closeSync,
  constants,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileWhole } from '../../src/system/user-output-file.js';
import { fifoReader } from '../helpers/fifo.js';
import { useTempDir } from '../helpers/temp.js';

const dir = useTempDir('svc-output-file-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileWhole', () => {
  it('replaces a regular file whole', () => {
    const path = join(dir, 'plan.json');
    writeFileSync(path, 'old\n');
    writeFileWhole(path, 'new\n', '--out');
    expect(readFileSync(path, 'utf8')).toBe('new\n');
  });

  it('writes into a named pipe, which stays a pipe (as /dev/null stays a device)', () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = fifoReader(fifo);
    writeFileWhole(fifo, 'exported\n', '--output');
    const pipeStill = lstatSync(fifo).isFIFO();
    expect(pipeStill).toBe(true);
    expect(reader.read()).toBe('exported\n');
  });

  // review17b R17b-5: a descriptor of svc's own is svc's to write, whoever made it.
  it.skipIf(process.getuid?.() !== 0)(
    "writes into a descriptor of its own (/dev/fd/N) another user's pipe is open on; that pipe by its path is refused",
    () => {
      const fifo = join(dir, 'theirs');
      execFileSync('mkfifo', [fifo]);
      chownSync(fifo, 4242, 4242);
      const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
      try {
        expect(writeFileWhole(`/dev/fd/${fd}`, 'exported\n', '--output')).toBe(false);
        const got = Buffer.alloc(64);
        expect(got.toString('utf8', 0, readSync(fd, got))).toBe('exported\n');
        expect(() => writeFileWhole(fifo, 'exported\n', '--output')).toThrow(
          `--output ${fifo} is a named pipe that belongs to another user (uid 4242), so svc will not write into it`,
        );
      } finally {
        closeSync(fd);
      }
    },
  );
});
