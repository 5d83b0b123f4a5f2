import { type JournalDisk, realJournalDisk } from '../../src/bulk/journal-disk.js';
import { type CaptureDisk, realCaptureDisk } from '../../src/commands/webhooks/capture.js';
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

/**
 * A journal disk (bulk/journal.ts's seam) with room for `room` more writes: the next one writes
 * half of its text (a line cut short, as a full disk leaves it) and fails with ENOSPC, as does
 * every write after it, until the test sets `full.room` again (room made). Pass it as
 * `journalDisk` to testContext / runInProcess.
 */
export function fillableJournalDisk(room: number): { disk: JournalDisk; full: { room: number } } {
  const full = { room };
  let cut = false;
  const disk: JournalDisk = {
    ...realJournalDisk,
    write(fd, text) {
      if (full.room > 0) {
        full.room--;
        cut = false;
        realJournalDisk.write(fd, text);
        return;
      }
      if (!cut) realJournalDisk.write(fd, text.slice(0, Math.floor(text.length / 2)));
      cut = true;
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    },
  };
  return { disk, full };
}

/**
 * A disk for `webhooks listen --capture` (commands/webhooks/capture.ts's seam) that runs out of
 * room when the test sets `full.write`: each write then puts half of its bytes in its file (as a
 * full disk leaves it) and fails with ENOSPC. `links: false` plays a filesystem without hard
 * links (FAT, some network shares): every link fails with EPERM. Pass it as `captureDisk` to
 * runListen's options.
 */
export function fillableCaptureDisk(options: { links?: boolean } = {}): {
  disk: CaptureDisk;
  full: { write: boolean };
} {
  const full = { write: false };
  const disk: CaptureDisk = {
    async write(path, data) {
      if (!full.write) return realCaptureDisk.write(path, data);
      await realCaptureDisk.write(path, data.subarray(0, Math.floor(data.length / 2)));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    },
    link:
      options.links === false
        ? async () => {
            throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
          }
        : realCaptureDisk.link,
  };
  return { disk, full };
}
