import { closeSync, fsyncSync, lstatSync, openSync, realpathSync, rmSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { NEW_FILE, replaceWhole, roomBeside, writeAll } from '../system/output-file.js';
import { ownFileProblem, ownFileRefusal } from './ownership.js';
import { heirOf, makeStoreDirectories } from './store-directory.js';

/** The two files of the config directory. */
export type ConfFile = 'config' | 'credentials';

/**
 * How the config store puts its files on disk (config/store.ts). A seam so that a test can play
 * a disk with no room (a tmpfs cannot be mounted in a test); svc itself always uses realDisk.
 */
export interface StoreDisk {
  /**
   * Proves that `bytes` fit next to `path` before something that cannot be undone (a refresh
   * token spent): writes a scratch file that big, syncs and removes it; throws the system error.
   */
  reserve(path: string, bytes: number): void;
  /** Replaces `name`.json in `dir` whole and atomically, mode 0600; throws the system error. */
  write(dir: string, name: ConfFile, file: Record<string, unknown>): Promise<void>;
}

export const realDisk: StoreDisk = {
  reserve(path, bytes) {
    // Where the write will make its temp file: a link's target's directory, maybe another disk.
    const target = writeTarget(path);
    const scratch = roomBeside(target);
    // Made new, never through a link or into a file already there.
    rmSync(scratch, { force: true });
    const fd = openSync(scratch, NEW_FILE, 0o600);
    try {
      const chunk = Buffer.alloc(Math.min(bytes, 64 * 1024));
      // Every byte, or the disk's error: a write that took part of a chunk (a disk filling up) is
      // followed by one for the rest, which fails ENOSPC; ignoring the count proved room there was not.
      for (let left = bytes; left > 0; left -= chunk.length)
        writeAll(fd, chunk.subarray(0, Math.min(left, chunk.length)));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      unlinkSync(scratch);
    }
  },
  async write(dir, name, file) {
    makeStoreDirectories(dir);
    const path = join(dir, `${name}.json`);
    // A link to the user's own file (a dotfile manager's) is written at its target, as before;
    // anything else of someone else's is refused again right before it is replaced.
    const refuse = () => {
      const problem = ownFileProblem(path);
      if (problem !== undefined) throw ownFileRefusal(path, problem);
    };
    refuse();
    const target = writeTarget(path);
    // replaceWhole first removes the temp files a killed write left (removeStaleTemporaries): each
    // held the whole store, every profile's credential. Root writing the store of $HOME's owner
    // (`sudo -E svc login`) gives the file to them, before it is in place: a root-owned 0600
    // credentials.json is one their own runs cannot read.
    const owner = heirOf(dirname(target));
    replaceWhole(target, [JSON.stringify(file, undefined, '	')], {
      mode: 0o600,
      check: refuse,
      ...(owner === undefined ? {} : { owner }),
    });
  },
};

/** Where a write of `path` lands: a link's target (a dotfile manager's), else `path` itself. */
function writeTarget(path: string): string {
  return lstatOrUndefined(path)?.isSymbolicLink() ? realpathSync(path) : path;
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
