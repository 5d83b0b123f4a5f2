import type { Stats } from 'node:fs';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { pathWord } from '../../system/shell-words.js';
import type { CapturedRequest, CaptureFiles, ReceivedDelivery } from '../../webhooks/listen.js';

/**
 * `svc webhooks listen --capture DIR`: each request kept as it came, in two files a receiver's
 * test or `svc webhooks verify --header-file F.headers --payload F.body` takes as they are —
 * `NNNN-<delivery>.headers` (the request line and headers, as sent) and `NNNN-<delivery>.body`
 * (the raw bytes). Deliveries carry signed payloads, so the directory is 0700 and the files 0600;
 * an existing directory that others can read is refused rather than silently changed. In a
 * directory used before, numbering carries on after the highest NNNN there, so files still sort
 * in arrival order and none is overwritten.
 */
export class CaptureDir {
  #next: number;

  private constructor(
    readonly dir: string,
    next: number,
  ) {
    this.#next = next;
  }

  static async open(dir: string): Promise<CaptureDir> {
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
    } else {
      try {
        await mkdir(dir, { recursive: true, mode: 0o700 });
      } catch (error) {
        throw captureError(dir, error);
      }
    }
    return new CaptureDir(dir, highest + 1);
  }

  /**
   * Writes one request's head and body to new 0600 files; never overwrites a file. A number taken
   * meanwhile (another session on the same directory) is passed over for the next free one.
   */
  async save(request: CapturedRequest, record: ReceivedDelivery): Promise<CaptureFiles> {
    for (;;) {
      const n = String(this.#next++).padStart(4, '0');
      const name = record.delivery_id
        ? `${n}-${record.delivery_id.replace(/[^\w.-]/g, '_')}${record.attempt === null ? '' : `-${record.attempt}`}`
        : `${n}-request`;
      const files = { headers: join(this.dir, `${name}.headers`), body: join(this.dir, `${name}.body`) };
      try {
        await writeFile(files.headers, request.head, { mode: 0o600, flag: 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw error;
      }
      await writeFile(files.body, request.body, { mode: 0o600, flag: 'wx' });
      return files;
    }
  }
}

function captureError(dir: string, error: unknown): UsageError {
  return new UsageError(`cannot use --capture ${dir}: ${(error as Error).message}`);
}
