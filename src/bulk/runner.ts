import { describeError, SvcError } from '../errors.js';
import { ApiError } from '../http/errors.js';
import type { Progress } from '../output/progress.js';
import type { Journal } from './journal.js';

export interface BulkItem<T> {
  /** Stable identity of the item (its journal key), e.g. a row's idempotency key or a DLQ entry id. */
  key: string;
  /** Line of the input file, when the items come from one. */
  line?: number;
  data: T;
}

export interface BulkResult {
  line?: number;
  key: string;
  status: 'ok' | 'failed' | 'skipped';
  /** Why an item was skipped, e.g. `journal` (done by an earlier run). */
  reason?: string;
  error?: { code: string; message: string; status?: number; request_id?: string };
  [detail: string]: unknown;
}

export interface BulkSummary {
  total: number;
  ok: number;
  failed: number;
  skipped: number;
  /** Ctrl-C stopped the run before every item was tried. */
  interrupted: boolean;
  elapsedMs: number;
}

export interface BulkOptions<T> {
  items: Iterable<BulkItem<T>> | AsyncIterable<BulkItem<T>>;
  concurrency: number;
  /**
   * Does one item; returns details for the result line. Gets a signal that is never aborted by
   * the first Ctrl-C, so requests in flight finish (pass it to the HTTP client).
   */
  work: (item: BulkItem<T>, signal: AbortSignal) => Promise<Record<string, unknown>>;
  /** Called with each result as it happens (in completion order). */
  onResult?: (result: BulkResult) => Promise<void> | void;
  journal?: Journal;
  /** Ctrl-C: no new item starts once it is aborted. */
  interrupt: AbortSignal;
  progress?: Progress;
}

function failure(error: unknown): BulkResult['error'] {
  if (error instanceof ApiError) {
    return {
      code: error.code ?? 'api_error',
      message: error.message,
      status: error.status,
      ...(error.requestId ? { request_id: error.requestId } : {}),
    };
  }
  if (error instanceof SvcError) return { code: error.code ?? error.category, message: error.message };
  return { code: 'unexpected', message: describeError(error) };
}

/**
 * Runs items with bounded concurrency over the caller's keep-alive pool. Items the journal
 * already has are skipped; finished items are journaled as they finish. After Ctrl-C no item
 * starts, those in flight finish, and the summary says `interrupted`.
 */
export async function runBulk<T>(options: BulkOptions<T>): Promise<BulkSummary> {
  const started = Date.now();
  const summary: BulkSummary = { total: 0, ok: 0, failed: 0, skipped: 0, interrupted: false, elapsedMs: 0 };
  const inflight = new AbortController().signal;
  const iterator = (
    Symbol.asyncIterator in options.items
      ? (options.items as AsyncIterable<BulkItem<T>>)[Symbol.asyncIterator]()
      : (options.items as Iterable<BulkItem<T>>)[Symbol.iterator]()
  ) as AsyncIterator<BulkItem<T>> | Iterator<BulkItem<T>>;
  let exhausted = false;
  // One pull at a time, so workers never race on the iterator.
  let pulling: Promise<IteratorResult<BulkItem<T>>> = Promise.resolve({
    done: false,
    value: undefined as never,
  });
  const next = (): Promise<IteratorResult<BulkItem<T>>> => {
    pulling = pulling.then(() => (exhausted ? { done: true, value: undefined } : iterator.next()));
    return pulling;
  };

  const emit = async (result: BulkResult) => {
    summary.total++;
    summary[result.status]++;
    options.progress?.tick(result.status);
    await options.onResult?.(result);
  };

  const worker = async () => {
    for (;;) {
      if (options.interrupt.aborted) {
        summary.interrupted = true;
        return;
      }
      const step = await next();
      if (step.done) {
        exhausted = true;
        return;
      }
      const item = step.value;
      const base = { ...(item.line === undefined ? {} : { line: item.line }), key: item.key };
      if (options.journal?.has(item.key)) {
        await emit({
          ...base,
          status: 'skipped',
          reason: 'journal',
          ...options.journal.get(item.key)?.detail,
        });
        continue;
      }
      let result: BulkResult;
      try {
        const detail = await options.work(item, inflight);
        options.journal?.record(item.key, detail);
        result = { ...base, status: 'ok', ...detail };
      } catch (error) {
        result = { ...base, status: 'failed', error: failure(error) };
      }
      await emit(result);
    }
  };

  const workers = Array.from({ length: Math.max(1, options.concurrency) }, worker);
  await Promise.all(workers);
  if (options.interrupt.aborted && !exhausted) summary.interrupted = true;
  options.progress?.done();
  summary.elapsedMs = Date.now() - started;
  return summary;
}
