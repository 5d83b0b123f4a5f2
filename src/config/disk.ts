import {
  closeSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  realpathSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { NEW_FILE, replaceWhole } from '../system/output-file.js';
import { processRuns, uid } from '../system/processes.js';
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
    const scratch = join(dirname(target), `.${basename(target)}.room-${process.pid}`);
    // Made new, never through a link or into a file already there.
    rmSync(scratch, { force: true });
    const fd = openSync(scratch, NEW_FILE, 0o600);
    try {
      const chunk = Buffer.alloc(Math.min(bytes, 64 * 1024));
      for (let left = bytes; left > 0; left -= chunk.length)
        writeSync(fd, chunk, 0, Math.min(left, chunk.length));
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
    removeStaleTemporaries(target);
    // Root writing the store of $HOME's owner (`sudo -E svc login`) gives the file to them, before
    // it is in place: a root-owned 0600 credentials.json is one their own runs cannot read.
    const owner = heirOf(dirname(target));
    replaceWhole(target, [JSON.stringify(file, undefined, '\t')], {
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

/**
 * Removes the temp files (`.credentials.json.PID-HEX`, `.credentials.json.room-PID`) a write
 * killed before its rename left beside `target` (kill -9, a power cut): each holds the whole
 * store, every profile's credential. Only those of processes that are gone, and only files the
 * user owns (svc made its own, 0600): a file of that name another user owns (beside a link's
 * target, in a directory of theirs) is no copy of the user's credentials and is not svc's to
 * remove; it is left, unsaid (the write's own temp name is random, made exclusively). The write
 * that follows (a logout's included) then leaves no copy.
 */
function removeStaleTemporaries(target: string): void {
  const me = uid();
  const prefix = `.${basename(target)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(target));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = /^(?:(\d+)-[0-9a-f]{12}|room-(\d+))$/.exec(name.slice(prefix.length));
    const owner = Number(pid?.[1] ?? pid?.[2]);
    if (!Number.isSafeInteger(owner) || owner === process.pid || processRuns(owner)) continue;
    const path = join(dirname(target), name);
    const stat = lstatOrUndefined(path);
    if (stat?.isFile() !== true || (me !== undefined && stat.uid !== me)) continue;
    rmSync(path, { force: true });
  }
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
