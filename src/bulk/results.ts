import type { Context } from '../context.js';
import { ClosedPipeError } from '../errors.js';
import type { Column } from '../output/output.js';

/**
 * How much a streamed batch holds before it is written. Rows are also written before a worker
 * starts a new item (ResultStream.ready), so a batch is what finished while a write was under way.
 */
const BATCH_BYTES = 16_384;
/** Someone watching the stream (`| jq`) sees results at least this often. */
const FLUSH_MS = 250;

export interface ResultStream<R> {
  /** Adds one result; resolves when a batch is written (backpressure for the workers). */
  add(row: R): Promise<void> | undefined;
  /**
   * Before a new item starts: writes the results not written yet (and waits for a write under
   * way), so a reader gone away (`| head -1`) is learnt, and `closed` aborted, before anything new
   * starts, not a batch later. Results that finish together still go out in one write.
   */
  ready(): Promise<void> | undefined;
  /** Writes what is left. */
  end(): Promise<void>;
  /** Aborted when stdout's reader went away (`| head -1`): the run should stop starting items. */
  readonly closed: AbortSignal;
}

/**
 * The one writer of a bulk run's results, in the output mode: --ndjson, --json (one array) and
 * piped text are streamed in small batches as items finish; a terminal table is printed at the
 * end, in line order (a progress bar runs on stderr meanwhile). A closed stdout stops the
 * writing and aborts `closed`; nothing is thrown at the workers. Every result is written before
 * the worker that made it starts another item (ready), so no item starts after a write to stdout
 * failed, and one starts after its reader went away only if it went in the instant between the
 * last write (which it took) and that start.
 */
export function resultStream<R extends object & { line?: number | undefined }>(
  ctx: Context,
  columns: Array<Column<R>>,
): ResultStream<R> {
  const mode = ctx.out.mode;
  const closing = new AbortController();
  const onClose = () => closing.abort();
  ctx.io.stdout.once('close', onClose);
  const collected: R[] = [];
  let batch: R[] = [];
  let size = 0;
  let count = 0;
  let writing: Promise<void> = Promise.resolve();

  const render = (rows: R[]): Promise<unknown> => {
    if (mode === 'ndjson') return ctx.out.write(rows.map((r) => `${ctx.out.jsonText(r)}\n`).join(''));
    if (mode === 'json') {
      const text = rows.map((r) => `${count++ === 0 ? '[\n' : ',\n'}${ctx.out.jsonText(r)}`).join('');
      return ctx.out.write(text);
    }
    return ctx.out.list(rows, columns);
  };
  const write = (rows: R[]): Promise<void> => {
    writing = writing.then(async () => {
      if (closing.signal.aborted) return;
      try {
        await render(rows);
      } catch (error) {
        if (!(error instanceof ClosedPipeError)) throw error;
        closing.abort();
      }
    });
    return writing;
  };
  const flush = () => {
    if (batch.length === 0) return writing;
    const rows = batch;
    batch = [];
    size = 0;
    return write(rows);
  };
  const streamed = mode !== 'table';
  const timer = streamed ? setInterval(() => void flush().catch(() => {}), FLUSH_MS) : undefined;
  timer?.unref();

  return {
    closed: closing.signal,
    add(row) {
      if (closing.signal.aborted) return undefined;
      if (!streamed) {
        collected.push(row);
        return undefined;
      }
      batch.push(row);
      size += 200;
      return size >= BATCH_BYTES ? flush() : undefined;
    },
    ready() {
      if (!streamed || closing.signal.aborted) return undefined;
      return flush();
    },
    async end() {
      clearInterval(timer);
      try {
        if (streamed) {
          await flush();
          if (mode === 'json') await write([]).then(() => tail(ctx, count, closing));
        } else if (collected.length > 0) {
          collected.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
          await write(collected);
        }
      } finally {
        ctx.io.stdout.off('close', onClose);
      }
    },
  };
}

/** Closes the --json array (an empty run prints `[]`). */
async function tail(ctx: Context, count: number, closing: AbortController): Promise<void> {
  if (closing.signal.aborted) return;
  try {
    await ctx.out.write(count === 0 ? '[]\n' : '\n]\n');
  } catch (error) {
    if (!(error instanceof ClosedPipeError)) throw error;
    closing.abort();
  }
}
