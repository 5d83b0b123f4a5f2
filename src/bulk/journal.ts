import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';

interface JournalEntry {
  key: string;
  status: 'ok';
  at: string;
  detail?: Record<string, unknown>;
}

/**
 * An append-only record of finished items (one JSON line each, written with a synchronous
 * append as each item finishes, so a crash or SIGKILL loses at most the items in flight). A
 * re-run of the same operation skips what the journal says is done. The first line names the
 * operation, so a journal is never applied to a different file or tenant.
 */
export class Journal {
  readonly path: string;
  readonly #done = new Map<string, JournalEntry>();
  /** Keys recorded by this process: only the key is kept (a 10,000-row run keeps no entries). */
  readonly #recorded = new Set<string>();
  #meta: Record<string, unknown> = {};
  /** Kept open while items are recorded (one write per item, no open/close each time). */
  #fd: number | undefined;

  private constructor(path: string) {
    this.path = path;
  }

  /**
   * Opens (or starts) the journal at `path` for the operation identified by `operation`. `meta`
   * is written into a new journal's first line; a resumed journal returns the values it was
   * started with (`journal.meta`), e.g. the time relative expiries count from.
   */
  static open(path: string, operation: string, meta: Record<string, unknown> = {}): Journal {
    const journal = new Journal(path);
    let text: string | undefined;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new UsageError(`cannot read journal ${path}: ${(error as Error).message}`);
      }
    }
    if (text === undefined || text.trim() === '') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      appendFileSync(path, `${JSON.stringify({ journal: 1, operation, ...meta })}\n`, { mode: 0o600 });
      journal.#meta = { ...meta };
      return journal;
    }
    const [first, ...rest] = text.split('\n');
    let header: { operation?: unknown } | undefined;
    try {
      header = JSON.parse(first ?? '');
    } catch {
      header = undefined;
    }
    if (header?.operation !== operation) {
      throw new UsageError(`journal ${path} belongs to another operation`, {
        hint: 'use the same file, profile and tenant to resume, or pass another --journal',
      });
    }
    const { journal: _version, operation: _operation, ...started } = header as Record<string, unknown>;
    journal.#meta = started;
    for (const line of rest) {
      if (line.trim() === '') continue;
      try {
        const entry = JSON.parse(line) as JournalEntry;
        if (typeof entry.key === 'string') journal.#done.set(entry.key, entry);
      } catch {
        // the last line of a journal killed mid-write: that item was not recorded, so it runs again
      }
    }
    return journal;
  }

  /** What the journal was started with (see `open`). */
  get meta(): Readonly<Record<string, unknown>> {
    return this.#meta;
  }

  has(key: string): boolean {
    return this.#done.has(key) || this.#recorded.has(key);
  }

  /** The entry of an item an earlier run finished (read from the file). */
  get(key: string): JournalEntry | undefined {
    return this.#done.get(key);
  }

  get size(): number {
    return this.#done.size + this.#recorded.size;
  }

  record(key: string, detail?: Record<string, unknown>): void {
    const entry: JournalEntry = {
      key,
      status: 'ok',
      at: new Date().toISOString(),
      ...(detail ? { detail } : {}),
    };
    this.#fd ??= openSync(this.path, 'a');
    // A plain write(2): once it returns the line is the kernel's, so even SIGKILL cannot lose it.
    writeSync(this.#fd, `${JSON.stringify(entry)}\n`);
    this.#recorded.add(key);
  }

  /** Removes the journal (after a run with nothing left to resume). */
  remove(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    rmSync(this.path, { force: true });
  }
}

/**
 * Where a journal lives unless --journal says otherwise: under the user's state directory
 * ($XDG_STATE_HOME/svc/journals), named by the kind of run and a hash of what identifies it
 * (for instance the file's bytes, base URL and tenant), so re-running the same command finds it.
 */
export function defaultJournalPath(
  env: Readonly<Record<string, string | undefined>>,
  kind: string,
  operation: string,
): string {
  const { createHash } = require_('node:crypto') as typeof import('node:crypto');
  const { homedir } = require_('node:os') as typeof import('node:os');
  const { join } = require_('node:path') as typeof import('node:path');
  const base = env.SVC_STATE_DIR || join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'svc');
  const hash = createHash('sha256').update(operation).digest('hex').slice(0, 16);
  return join(base, 'journals', `${kind}-${hash}.ndjson`);
}

const require_ = createRequire(import.meta.url);
