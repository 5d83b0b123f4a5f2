import type { Stats } from 'node:fs';
import { link, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { idPart } from '../../system/file-names.js';
import { fileErrorReason } from '../../system/input.js';
import { NEW_FILE, removeStaleTemporaries, temporaryBeside } from '../../system/output-file.js';
import { pathWord } from '../../system/shell-words.js';
import type { CapturedRequest, CaptureFiles, ReceivedDelivery } from '../../webhooks/listen.js';

/**
 * `svc webhooks listen --capture DIR`: each request kept as it came, in two files a receiver's
 * test or `svc webhooks verify --header-file F.headers --payload F.body` takes as they are —
 * `NNNN-<delivery>-<attempt>.headers` (the request line and headers, as sent) and `.body` (the raw
 * bytes). Deliveries carry signed payloads, so the directory is 0700 and the files 0600; an
 * existing directory that others can read is refused rather than silently changed. In a
 * directory used before, numbering carries on after the highest NNNN there, so files still sort
 * in arrival order and none is overwritten.
 *
 * A request is saved whole or not at all (attack19 F8): both files are written to temporary names
 * and synced first, then put in place, the body before the headers; a failure (a full disk)
 * removes what it wrote and throws a CaptureError, and listen answers the delivery 503 so the
 * platform retries it. The delivery id in a name is idPart's (bounded, one safe segment: a
 * server's id is not svc's to trust); the .headers file holds it as sent.
 */
export class CaptureDir {
  #next: number;
  /** Whether DIR's filesystem makes hard links (until a link says it does not). */
  #links = true;

  private constructor(
    readonly dir: string,
    next: number,
    private readonly disk: CaptureDisk,
  ) {
    this.#next = next;
  }

  static async open(dir: string, disk: CaptureDisk = realCaptureDisk): Promise<CaptureDir> {
    let existing: Stats | undefined;
    try {
      existing = await stat(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw captureError(dir, error);
    }
    if (existing && !existing.isDirectory()) {
      throw new UsageError(`--capture ${dir} is not a directory`);
    }
    if (existing && (existing.mode & 0o077) !== 0) {
      throw new UsageError(
        `--capture ${dir} can be read by others (mode ${(existing.mode & 0o777).toString(8).padStart(4, '0')}); captured deliveries are signed payloads`,
        { hint: `use a new directory (svc makes it 0700), or \`chmod 700 ${pathWord(dir)}\`` },
      );
    }
    let highest = 0;
    if (existing) {
      try {
        for (const name of await readdir(dir)) {
          const number = /^(\d{4,})-/.exec(name)?.[1];
          if (number !== undefined) highest = Math.max(highest, Number(number));
        }
      } catch (error) {
        throw captureError(dir, error);
      }
      // What a listen killed mid-save left (`.capture.PID-HEX`, a gone process's): never a capture.
      removeStaleTemporaries(join(dir, TEMPORARY_BASE));
    } else {
      try {
        await mkdir(dir, { recursive: true, mode: 0o700 });
      } catch (error) {
        throw captureError(dir, error);
      }
    }
    return new CaptureDir(dir, highest + 1, disk);
  }

  /**
   * Writes one request's head and body to new 0600 files, whole; never overwrites a file. A
   * number taken meanwhile (another session on the same directory) is passed over for the next
   * free one. Throws a CaptureError, leaving nothing of the request behind.
   */
  async save(request: CapturedRequest, record: ReceivedDelivery): Promise<CaptureFiles> {
    const head = this.#temporary();
    const body = this.#temporary();
    try {
      await this.disk.write(head, Buffer.from(request.head));
      await this.disk.write(body, request.body);
      for (;;) {
        const n = String(this.#next++).padStart(4, '0');
        const name = record.delivery_id
          ? `${n}-${idPart(record.delivery_id)}${record.attempt === null ? '' : `-${record.attempt}`}`
          : `${n}-request`;
        const files = { headers: join(this.dir, `${name}.headers`), body: join(this.dir, `${name}.body`) };
        if (await this.#place({ headers: head, body }, files)) return files;
      }
    } catch (error) {
      throw new CaptureError(this.dir, error);
    } finally {
      await Promise.all([rm(head, { force: true }), rm(body, { force: true })]);
    }
  }

  #temporary(): string {
    return temporaryBeside(join(this.dir, TEMPORARY_BASE));
  }

  /**
   * Gives the written files their names unless a file has one of them (false: nothing placed).
   * With hard links (atomic; a name taken fails), the body first: a .headers file is there only
   * with its .body beside it. A filesystem without them (FAT, some network shares) has both
   * names claimed empty first, then each replaced by its temporary file whole.
   */
  async #place(written: CaptureFiles, files: CaptureFiles): Promise<boolean> {
    if (this.#links) {
      try {
        await this.disk.link(written.body, files.body);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
        if (!NO_LINKS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
        this.#links = false;
      }
    }
    if (this.#links) {
      try {
        await this.disk.link(written.headers, files.headers);
        return true;
      } catch (error) {
        await rm(files.body, { force: true });
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw error;
      }
    }
    if (!(await claim(files.body))) return false;
    try {
      if (!(await claim(files.headers))) {
        await rm(files.body, { force: true });
        return false;
      }
      await rename(written.body, files.body);
      await rename(written.headers, files.headers);
      return true;
    } catch (error) {
      await Promise.all([rm(files.body, { force: true }), rm(files.headers, { force: true })]);
      throw error;
    }
  }
}

/** What link(2) fails with on a filesystem without hard links. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** Makes `path` an empty 0600 file, never through a link; false when a file has that name. */
async function claim(path: string): Promise<boolean> {
  try {
    await (await open(path, NEW_FILE, 0o600)).close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** The temporary files' base name in DIR (`.capture.PID-HEX`: no NNNN, so never numbered). */
const TEMPORARY_BASE = 'capture';

/**
 * How captures reach the disk: a seam so that a test can play a disk that fills up (a tmpfs
 * cannot be mounted in a test; chmod does not stop root, who runs the tests in CI); svc itself
 * always uses realCaptureDisk.
 */
export interface CaptureDisk {
  /** Writes `data` whole to the new file `path` (0600, never through a link), synced; throws the system error. */
  write(path: string, data: Buffer): Promise<void>;
  /** Gives the file `existing` the name `path` too (a hard link); throws the system error (EEXIST: taken). */
  link(existing: string, path: string): Promise<void>;
}

export const realCaptureDisk: CaptureDisk = {
  async write(path, data) {
    const file = await open(path, NEW_FILE, 0o600);
    try {
      await file.writeFile(data);
      await file.sync();
    } finally {
      await file.close();
    }
  },
  link: (existing, path) => link(existing, path),
};

/** A request --capture could not save: why, in words (the line's `not saved: …`), and what to do. */
export class CaptureError extends Error {
  /** What to do about it, for the warning that names the delivery. */
  readonly fix: string;

  constructor(dir: string, error: unknown) {
    super(fileErrorReason(error, `${dir} is gone`));
    const code = (error as NodeJS.ErrnoException).code;
    this.fix =
      code === 'ENOSPC' || code === 'EDQUOT'
        ? `make room on the disk of ${dir}`
        : code === 'ENOENT'
          ? `make ${dir} again (mkdir -m 700 ${pathWord(dir)})`
          : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
            ? `make ${dir} writable`
            : `check ${dir}`;
  }
}

function captureError(dir: string, error: unknown): UsageError {
  return new UsageError(`cannot use --capture ${dir}: ${(error as Error).message}`);
}
