import { realDisk, type StoreDisk } from '../../src/config/disk.js';

/**
 * A disk that runs out of room when the test says so (a tmpfs cannot be mounted in a test): the
 * store's disk seam (config/disk.ts) then fails its scratch write (`full.reserve`: svc's proof of
 * room before something that cannot be undone) or its file write (`full.write`: a disk that
 * filled up after that proof) with ENOSPC. Pass `disk` to a ConfigStore, or to testContext /
 * runInProcess / startInProcess.
 */
export function fillableDisk(): { disk: StoreDisk; full: { reserve: boolean; write: boolean } } {
  const full = { reserve: false, write: false };
  const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  const disk: StoreDisk = {
    reserve(path, bytes) {
      if (full.reserve) throw enospc();
      realDisk.reserve(path, bytes);
    },
    async write(dir, name, file) {
      if (full.write) throw enospc();
      await realDisk.write(dir, name, file);
    },
  };
  return { disk, full };
}
