import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

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

let conf: Promise<typeof import('conf').default> | undefined;

export const realDisk: StoreDisk = {
  reserve(path, bytes) {
    const scratch = join(dirname(path), `.${basename(path)}.room-${process.pid}`);
    const fd = openSync(scratch, 'w', 0o600);
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
    // Loaded only when something is written.
    conf ??= import('conf').then((m) => m.default);
    const Conf = await conf;
    // conf writes through `atomically`: a temporary file chmod-ed to 0600, then renamed.
    const store = new Conf<Record<string, unknown>>({
      cwd: dir,
      configName: name,
      projectName: 'svc',
      projectSuffix: '',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
    });
    store.store = file;
  },
};
