// Over 300 lines (406): one worker loop whose every outcome (journaled or not, halting, ordered,
// counted) shares the run's state. What an item and its row are is ./item.ts, the counts
// ./summary.ts, the pull from the source ./source-pull.ts, the judgement of errors ./judge.ts.
import { SvcError } from '../errors.js';
import { deriveIdempotencyKey } from '../http/idempotency.js';
import { changeMade, finishingItem, finishingSent } from '../http/retry.js';
import type { Progress } from '../output/progress.js';
import { AcceptedUnreadError, doneUnread, GoneAfterLostAnswerError } from '../platform/errors.js';
import { linkedSignal } from '../system/linked-signal.js';
import {
  type BulkItem,
  type BulkResult,
  FOUND_AFTER_LOST_ANSWER,
  failedButMade,
  type WorkCall,
  type Worker,
} from './item.js';
import type { Journal } from './journal.js';
import { JournalWriteError } from './journal-disk.js';
import {
  CheckStoppedError,
  definiteRefusal,
  failure,
  haltsTheRun,
  notChecked,
  outcomeUnknown,
  UndoneSinceError,
  UnknownWordsError,
  waitsBeyondCap,
} from './judge.js';
import { RunOrder } from './order.js';
import { SourcePull } from './source-pull.js';
import type { BulkSummary } from './summary.js';

export interface RunOptions<T> {
  items: Iterable<BulkItem<T>> | AsyncIterable<BulkItem<T>>;
  concurrency: number;
  work: Worker<T>;
  /** Called with each result and its item as it happens (in completion order). */
  onResult?: (result: BulkResult, item: BulkItem<T>, error: unknown) => Promise<void> | void;
  /** Items it has are skipped; finished ones are recorded (not in a dry run). */
  journal?: Journal | undefined;
  /** Nothing is recorded: the journal only tells what an earlier run did. */
  dryRun?: boolean;
  /** The run's id, for idempotency keys. */
  runId: string;
  /** Ctrl-C or a closed stdout: no new item starts once it is aborted. */
  stop: AbortSignal;
  /** The items' requests' signal (WorkCall.signal): finishingSent(stop) unless given. */
  requests?: AbortSignal;
  /**
   * Awaited right before a worker starts an item it took: the results so far are written
   * (ResultStream.ready), so a closed stdout aborts `stop` before anything new starts (the item
   * is then left for the resumed run).
   */
  beforeStart?: () => Promise<void> | undefined;
  /** The run's refusal once its journal's lock is no longer its own (lock.ts lockLost); checked before each item. */
  lockLost?: () => unknown;
  progress?: Progress;
  now: () => number;
  /** See BulkVerb.journaled: an earlier run's item as it is now (a dry run's only reads). */
  journaled?: Journaled<T> | undefined;
  /** See BulkVerb.halts: an item's error that shows no later item can succeed, as the run's error. */
  halts?: ((error: unknown, item: BulkItem<T>) => unknown) | undefined;
  /**
   * What the journal notes of an item right before its first request is sent (Journal.markSent:
   * its start on the platform's clock, say), so a resumed run knows it was in flight; undefined:
   * no mark (a verb whose resumed items need none). Not in a dry run.
   */
  markSent?: ((item: BulkItem<T>) => Record<string, unknown>) | undefined;
  /** The run's order, when its source waits on it (RunOrder.settled); a new one otherwise. */
  order?: RunOrder | undefined;
}

/**
 * What an item an earlier run finished is now, from its journaled details: details that replace
 * theirs on its row (`status: 'failed'` with an error counts it failed), or undefined for none.
 */
export type Journaled<T> = (
  item: BulkItem<T>,
  detail: Record<string, unknown>,
) => Promise<Record<string, unknown> | undefined>;

/**
 * Runs items with bounded concurrency over the caller's keep-alive pool. Items the journal has
 * are skipped; finished items are journaled as they finish. After a stop no item starts, those
 * in flight finish the requests they have on the wire but wait for nothing more (a retry, a read
 * again: WorkCall.signal), and the summary says `stopped`.
 */
export async function runItems<T>(options: RunOptions<T>): Promise<BulkSummary> {
  const started = options.now();
  const summary: BulkSummary = {
    total: 0,
    ok: 0,
    failed: 0,
    skipped: 0,
    unknown: 0,
    unsettled: 0,
    refused: 0,
    blocked: 0,
    stopped: false,
    elapsedMs: 0,
  };
  // A stop ends the waits of the items in flight, not their requests on the wire (WorkCall.signal).
  const made = options.requests === undefined ? finishingSent(options.stop) : undefined;
  const requests = options.requests ?? made!.signal;
  // Aborted by the first item that shows no later one can succeed (see haltsTheRun).
  const halt = new AbortController();
  // Linked, not AbortSignal.any, and unlinked at the run's end: nothing left on options.stop.
  const stopping = linkedSignal([options.stop, halt.signal]);
  const stop = stopping.signal;
  const halting = (error: unknown) => {
    if (halt.signal.aborted) return;
    summary.halted = error;
    halt.abort();
  };
  const order = options.order ?? new RunOrder();
  const source = new SourcePull(options.items, order, halting);
  // Items taken from the source but left unstarted after a stop (they waited at a phase barrier
  // meanwhile): the run is cut though another worker's pull found the source's end.
  let left = false;
  const { journal } = options;
  const recording = options.dryRun ? undefined : journal;
  /**
   * Journals an item's end. A journal that cannot be written (a full disk) halts the run: nothing
   * new starts. An item the platform made stays made: its row is ok, `reason: not_journaled`
   * (returned, for its row), and the re-run finds it done on the platform.
   */
  const journaling = (write: () => void, made: boolean): Record<string, unknown> => {
    try {
      write();
      return {};
    } catch (error) {
      if (!(error instanceof JournalWriteError)) throw error;
      halting(error);
      if (!made) return {};
      summary.unjournaled = (summary.unjournaled ?? 0) + 1;
      return { reason: 'not_journaled' };
    }
  };

  /** Notes the item in flight (RunOptions.markSent); the journal's error when it cannot. */
  const markSending = (item: BulkItem<T>): JournalWriteError | undefined => {
    if (recording === undefined || options.markSent === undefined) return undefined;
    try {
      recording.markSent(item.key, options.markSent(item));
      return undefined;
    } catch (error) {
      if (!(error instanceof JournalWriteError)) throw error;
      halting(error);
      return error;
    }
  };

  const worker = async () => {
    for (;;) {
      if (stop.aborted) return;
      const step = await source.next();
      if (step.done) return;
      const item = step.value;
      const release = step.release ?? (() => {});
      // Right before it starts (after any wait for the item: a page of a listing, a barrier), the
      // results so far are written, so a closed stdout is learnt now, not a batch later.
      try {
        await options.beforeStart?.();
      } catch (error) {
        release();
        throw error;
      }
      // The run's journal lock no longer its own (taken over while it was stopped): no item starts.
      const lost = options.lockLost?.();
      if (lost !== undefined) {
        release();
        halting(lost);
        left = true;
        return;
      }
      // A barrier may have been waited for since the stop: the item is left for the resumed run.
      if (stop.aborted) {
        release();
        left = true;
        return;
      }
      let done!: () => void;
      order.start(item.key, item.needed, new Promise<void>((resolve) => (done = resolve)));
      release();
      const base = { ...(item.line === undefined ? {} : { line: item.line }), key: item.key };
      let result: BulkResult;
      let thrown: unknown;
      const failedDependency = journal?.has(item.key) ? undefined : await order.failedDependency(item.after);
      // Noted in flight before its request goes (markSent); a journal that cannot take the note
      // halts the run, and the item is not sent.
      const unmarked =
        journal?.has(item.key) || failedDependency !== undefined ? undefined : markSending(item);
      if (journal?.has(item.key)) {
        const detail = journal.get(item.key) ?? {};
        // Nothing is sent for it again; only how it is doing now is read (never recorded).
        let now: Record<string, unknown> | undefined;
        try {
          now = await options.journaled?.(item, detail);
        } catch (error) {
          // How it is doing could not be read: no success, and still owed (the journal is kept,
          // so the next run reads it again); a dry run's could not be checked.
          thrown = error;
          if (waitsBeyondCap(error) !== undefined) halting(error);
          const unchecked = options.dryRun && notChecked(error);
          if (!unchecked) summary.unsettled++;
          const said = failure(error);
          now = unchecked
            ? { status: 'unknown', error: { ...said, message: `could not be checked: ${said.message}` } }
            : { status: 'failed', error: said };
        }
        result = { ...base, status: 'skipped', reason: 'journal', ...detail, ...now };
      } else if (failedDependency !== undefined) {
        // Not attempted and not journaled: the resumed run tries it again.
        summary.blocked++;
        summary.unsettled++;
        result = {
          ...base,
          status: 'failed',
          error: {
            code: 'dependency_failed',
            message: `not attempted: ${failedDependency} failed`,
            depends_on: failedDependency,
          },
        };
      } else if (unmarked !== undefined) {
        // Not sent, as a stop before its first request: the resumed run tries it.
        thrown = unmarked;
        left = true;
        summary.stoppedRows = (summary.stoppedRows ?? 0) + 1;
        result = { ...base, status: 'failed', error: failure(unmarked) };
      } else {
        const attempt = journal?.attempts(item.key) ?? 0;
        let firstReplayed = false;
        let haltAfter: { error: unknown } | undefined;
        // The item's own: a stop before its next request knows whether a change of it was made.
        const own = finishingItem(requests);
        const { signal } = own;
        const call: WorkCall = {
          signal,
          idempotencyKey: deriveIdempotencyKey(item.shared ?? options.runId, item.key, String(attempt)),
          keyFor: (shared: string) => deriveIdempotencyKey(shared, item.key, String(attempt)),
          replayed: (response) => {
            if (!response.replayed) return {};
            firstReplayed = !response.afterLostAnswer;
            return { replayed: true };
          },
          resumed: journal?.run.resumed === true,
          sentEarlier: journal?.sentEarlier(item.key),
          halt: (error) => {
            haltAfter ??= { error };
          },
        };
        try {
          // A request of the same key still running on the server (a killed run's) is waited for by
          // the HTTP client itself (src/http/client.ts), as for every command.
          const detail = await options.work(item, call);
          // Made by this run, unless the worker says it was done already or failed after all.
          const made = detail.status === undefined || detail.status === 'ok';
          // Made by the run this one resumes: it marked the item sent and did not journal its end
          // (a full disk after the change, a kill, a lost answer), and this run's first attempt is
          // answered from the platform's record of that request (same key). Done, so ok (it settles
          // that run's unknown outcome), but not this run's doing: counted apart (earlierRun), never
          // in this run's own count, which the cut run's not_journaled row already made once
          // (session 28's leftover: `4 granted`, then `✓ 7 granted` of 10 rows). The mark is written
          // before the request leaves, so it alone does not show that run sent anything (killed in
          // between, it made nothing); the replay does: the key is that run's (run id, item, attempt),
          // so a record of it at this run's first attempt is of that run's request (review29c L3).
          const byEarlierRun =
            made &&
            detail.replayed === true &&
            firstReplayed &&
            call.resumed &&
            call.sentEarlier !== undefined;
          const unjournaled = journaling(() => recording?.record(item.key, detail), made);
          if (byEarlierRun) summary.earlierRun = (summary.earlierRun ?? 0) + 1;
          else if (detail.replayed === true) {
            summary.replayed = (summary.replayed ?? 0) + 1;
            if (firstReplayed) summary.replayedFirst = (summary.replayedFirst ?? 0) + 1;
          }
          if (detail.reason === FOUND_AFTER_LOST_ANSWER) summary.gone = (summary.gone ?? 0) + 1;
          result = { ...base, status: 'ok', ...detail, ...unjournaled };
          // Made and journaled; only what followed it showed no later item can succeed.
          if (haltAfter !== undefined && !halt.signal.aborted) {
            summary.haltedAfterMade = true;
            halting(haltAfter.error);
          }
        } catch (error) {
          if (error instanceof GoneAfterLostAnswerError) {
            // Done, most likely by this item's own attempt whose answer was lost: never "not found".
            const detail = { reason: 'gone_after_lost_answer', detail: error.message };
            const unjournaled = journaling(() => recording?.record(item.key, detail), true);
            summary.gone = (summary.gone ?? 0) + 1;
            result = { ...base, status: 'ok', ...detail, ...unjournaled };
          } else if (doneUnread(error)) {
            // Accepted with an answer svc does not read (a 204 to a DELETE, a 200 `{}`): done, never "failed".
            const reason = error.bodyless ? 'answered_without_body' : 'answered_without_record';
            const detail = { reason, status_code: error.status };
            const unjournaled = journaling(() => recording?.record(item.key, detail), true);
            result = { ...base, status: 'ok', ...detail, ...unjournaled };
          } else if (options.dryRun && notChecked(error)) {
            // Not a prediction that it fails: the check could not be made (finishDryRun: exit 1).
            thrown = error;
            if (error instanceof UnknownWordsError) summary.unknownWords = (summary.unknownWords ?? 0) + 1;
            // A rate limit longer than svc waits: no later check would be answered either.
            if (waitsBeyondCap(error) !== undefined) halting(error);
            const said = failure(error);
            result = {
              ...base,
              status: 'unknown',
              error: { ...said, message: `could not be checked: ${said.message}` },
            };
          } else if (outcomeUnknown(error)) {
            // Not journaled: the resumed run sends the same key and is answered from the record
            // (an accepted answer svc cannot read, as it was: counted apart, finishRun's hint).
            thrown = error;
            if (error instanceof AcceptedUnreadError)
              summary.acceptedUnread = (summary.acceptedUnread ?? 0) + 1;
            // Made, its check stopped before it was sent: the run ends stopped, its resume reads it.
            // So does one whose outcome the stop made unknown (a retry it did not send): the run
            // was interrupted, exit 130, whichever verb's step (review28d M3: apply exited 7).
            if (
              error instanceof CheckStoppedError ||
              (stop.aborted && error instanceof SvcError && error.category === 'interrupted')
            )
              left = true;
            result = { ...base, status: 'unknown', error: failure(error) };
          } else if (stop.aborted && error instanceof SvcError && error.category === 'interrupted') {
            // Stopped before its next request (nothing new is sent after a stop, src/http/client.ts):
            // its row says what was and was not sent; the run ends stopped, and its resume tries it.
            // After a change of its own the platform answered (or may have made), the row is made
            // or may be: its outcome unknown, never a failure (review22a F3); else it is failed,
            // counted apart (stoppedRows: "stopped before their next request was sent").
            thrown = error;
            left = true;
            const changed = changeMade(signal);
            if (changed === undefined) {
              summary.stoppedRows = (summary.stoppedRows ?? 0) + 1;
              result = { ...base, status: 'failed', error: failure(error) };
            } else {
              const said = failure(error);
              const made =
                changed === 'answered'
                  ? 'the platform answered its change (HTTP 2xx)'
                  : 'its change may have been made (an answer was lost, or an earlier attempt still ran)';
              result = {
                ...base,
                status: 'unknown',
                error: {
                  ...said,
                  message: `${made}, but the run stopped before its next request: ${said.message}`,
                },
              };
            }
          } else {
            thrown = error;
            if (definiteRefusal(error)) {
              summary.refused++;
              if (error instanceof UndoneSinceError) summary.undoneSince = (summary.undoneSince ?? 0) + 1;
              // Unrecorded, the next attempt sends the same key and is answered the same refusal.
              journaling(() => recording?.recordFailure(item.key), false);
            }
            const halts = haltsTheRun(error) ? error : options.halts?.(error, item);
            if (halts !== undefined && summary.haltedAfterMade) {
              // A failed row's halt says more than a made one's: the run ends with it.
              summary.halted = halts;
              delete summary.haltedAfterMade;
            }
            if (halts !== undefined) halting(halts);
            summary.unsettled++;
            result = { ...base, status: 'failed', error: failure(error) };
          }
        } finally {
          // Its signal no longer hangs on the run's (a million rows in a run: review23b L1).
          own.end();
        }
      }
      summary.total++;
      summary[result.status]++;
      if (result.status === 'failed' && failedButMade(result))
        summary.failedMade = (summary.failedMade ?? 0) + 1;
      // An item whose outcome is unknown is not known done: what needs it waits for the resume.
      order.finish(item.key, result.status === 'ok' || result.status === 'skipped');
      done();
      options.progress?.tick(result.status);
      await options.onResult?.(result, item, thrown);
    }
  };

  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  } finally {
    // The run's signals no longer hang on the command's (one per run on Node 20 otherwise).
    stopping.end();
    made?.end();
  }
  // Cut short: an item not started (still in the source, or taken and left, or the source stopped
  // reading: SourceCut), counted by finishRun.
  if (stop.aborted && (!source.exhausted || left)) summary.stopped = true;
  await source.close();
  options.progress?.done();
  summary.elapsedMs = options.now() - started;
  if (source.pullError) summary.unread = source.pullError.error;
  return summary;
}
