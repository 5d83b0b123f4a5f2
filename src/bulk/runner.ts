// Over 300 lines: one worker loop whose every outcome (journaled or not, halting, ordered, counted)
// shares the run's state; the judgement of errors lives in ./judge.ts.
import { SvcError } from '../errors.js';
import { deriveIdempotencyKey } from '../http/idempotency.js';
import { changeMade, finishingItem, finishingSent } from '../http/retry.js';
import type { Progress } from '../output/progress.js';
import { AcceptedUnreadError, doneUnread, GoneAfterLostAnswerError } from '../platform/errors.js';
import { linkedSignal } from '../system/linked-signal.js';
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

export interface BulkItem<T> {
  /** Identity of the item within its run (its journal key): a file's line, a queue entry's id. */
  key: string;
  /** Line of the input file, when the items come from one. */
  line?: number;
  data: T;
  /**
   * Keys of earlier items this one needs (./order.ts): it waits for them, and fails without being
   * attempted (`dependency_failed`) when one of them failed.
   */
  after?: readonly string[];
  /** Later items name this one in `after`: its outcome is kept for them. */
  needed?: boolean;
  /** Items run phase by phase (non-decreasing): a later phase starts once the earlier ones have finished. */
  phase?: number;
  /**
   * What every run doing this item shares (a queue entry and its state as listed): its idempotency
   * key derives from this instead of the run's id, so two runs at once over the same item send
   * the same key and the platform does it once (the later run gets the earlier answer, replayed).
   */
  shared?: string;
}

/**
 * `unknown`: the item's change may have reached the platform but every answer to it was lost; the
 * platform may have made it. It is not journaled: the resumed run sends it again with the same
 * key and learns its outcome.
 */
export type BulkStatus = 'ok' | 'failed' | 'skipped' | 'unknown';

/**
 * A worker's reason for an item it found done by a retry after the answer to its first attempt was
 * lost (a grant the retry was told exists, and nothing shows it is another's: foundAfterLostAnswer,
 * src/platform/found-after-lost.ts): most likely this run's own doing, counted with the run's
 * gone_after_lost_answer items, never "skipped".
 */
export const FOUND_AFTER_LOST_ANSWER = 'found_after_lost_answer';

export interface BulkResult {
  line?: number;
  key: string;
  status: BulkStatus;
  /** Why an item was skipped, e.g. `journal` (done by an earlier run of the same operation). */
  reason?: string;
  error?: { code: string; message: string; status?: number; request_id?: string; [more: string]: unknown };
  [detail: string]: unknown;
}

export interface BulkSummary {
  total: number;
  ok: number;
  failed: number;
  skipped: number;
  /**
   * Items whose change may have been made, every answer to it lost (status `unknown`); in a dry
   * run, items the server did not answer the check of (judge.ts notChecked).
   */
  unknown: number;
  /**
   * Of `unknown`, those the server accepted (2xx) in an answer svc cannot read (AcceptedUnreadError):
   * the same command sends them again with the same key, which a server that stores its answers
   * answers the same; absent when there were none.
   */
  acceptedUnread?: number;
  /**
   * In a dry run, of `unknown`, the checks the server answered in words svc does not know
   * (UnknownWordsError): asked again, answered the same; absent when there were none.
   */
  unknownWords?: number;
  /** Failed items whose change may still be owed: the journal is kept so the same command resumes. */
  unsettled: number;
  /** Failed items the server refused with a definite answer (a 4xx): their next attempt gets a new key. */
  refused: number;
  /**
   * Of `refused`, the items answered from the platform's record whose change is not so now
   * (UndoneSinceError, `changed_since`): nothing in the file is wrong, the same command makes them
   * anew (finishRun's hint); absent when there were none.
   */
  undoneSince?: number;
  /** Failed items that were not attempted because an item they need failed (counted in `failed`). */
  blocked: number;
  /**
   * Failed items a stop left before their next request, no change of theirs answered or lost
   * (counted in `failed`; the resume tries them again); absent when there were none.
   */
  stoppedRows?: number;
  /**
   * Ok items known only from a retry that found the change made after the answer to an earlier
   * attempt was lost (reason gone_after_lost_answer, or a worker's FOUND_AFTER_LOST_ANSWER);
   * absent when there were none.
   */
  gone?: number;
  /**
   * Ok items this run did that the platform answered from its record of an earlier attempt (the
   * item's `replayed: true`), not counting journal skips; absent when there were none.
   */
  replayed?: number;
  /**
   * Of `replayed`, those answered so at the first attempt this run made of them (no answer of it
   * was lost): the platform had the key from elsewhere (the run this one resumes, another run
   * sharing the key, or a server that marks answers so); absent when there were none.
   */
  replayedFirst?: number;
  /**
   * Ok items made by the run this one resumes (marked sent by it, not journaled, and answered from
   * the platform's record at this run's first attempt; their row's `replayed: true`): not this
   * run's doing, said apart from its own count; absent when there were none.
   */
  earlierRun?: number;
  /**
   * Ok items made on the platform after the journal could not be written (their row's reason
   * `not_journaled`): the run halted with that error; absent when there were none.
   */
  unjournaled?: number;
  /**
   * Failed items whose row says their change was made or may have been (failedButMade): not
   * "nothing done" (finish.ts failedItems); absent when there were none.
   */
  failedMade?: number;
  /** A stop (Ctrl-C, a closed stdout, a halt) ended the run before every item was tried. */
  stopped: boolean;
  /**
   * The error that stopped the run because no later item could succeed: the credential is gone,
   * rejected, or now someone else's (an AuthError, exit 3), the journal cannot be written (a
   * JournalWriteError: a full disk, exit 1), or the verb's own reason (RunOptions.halts, with its
   * exit code and hint). No item started after it.
   */
  halted?: unknown;
  /**
   * `halted` came from an item whose change was made (WorkCall.halt), not from a failed one: when
   * every item had started by then it stopped nothing, and the run ends as if not halted.
   */
  haltedAfterMade?: true;
  /**
   * The error that stopped reading items (a listing page that could not be fetched): the items
   * read before it were done, the others not started; the run ends with it (finishRun).
   */
  unread?: unknown;
  elapsedMs: number;
}

/**
 * Whether a failed row says its change was made or may have been (review27a F5), by what the row
 * carries: what its change made (`new_delivery_id`: a replay made whose delivery failed or is
 * retrying), or an earlier attempt's answer lost before the refusal (`error.lost_answer`: it may
 * have acted). (apply's creations whose secret was not saved say so through its madeThoughFailed:
 * an `id` on a row of another verb names what it was asked to change.)
 */
export function failedButMade(row: BulkResult): boolean {
  if (typeof row.new_delivery_id === 'string') return true;
  // A worker's failed row whose change was made, not as planned (steps.ts updateRole).
  if (row.error?.made === true) return true;
  return row.error?.lost_answer !== undefined;
}

/**
 * A source's end that is not the end of its items: it stopped reading because the run is stopping
 * (BulkVerb.items' `settled`, src/bulk/operation.ts, throws it). The run is cut, as when a stop
 * finds items still in the source: what was not started is counted, the journal kept, and the
 * same command resumes; never a run that ended with every item done.
 */
export class SourceCut extends Error {
  constructor() {
    super('the run is stopping: its source reads nothing more');
    this.name = 'SourceCut';
  }
}

/** What a worker is given for one item. */
export interface WorkCall {
  /**
   * For the HTTP client (and the worker's own waits): at a stop, a request on the wire finishes
   * but one waiting to be sent again is not, and a wait ends (src/http/retry.ts finishingSent).
   */
  signal: AbortSignal;
  /**
   * The item's idempotency key: one attempt of one logical operation. It derives from the run's
   * id (kept in the journal) and the item, so a resumed run sends the same key and a new run a
   * new one (or from what every run shares, BulkItem.shared); an attempt the server refused
   * outright gets a new key next time.
   */
  idempotencyKey: string;
  /**
   * The key this attempt would send were the item's `shared` this (BulkItem.shared): for an item
   * whose shared state is known only once the worker has read it (a named dead-letter entry, as
   * it is when looked at), so every run that saw it alike sends one key.
   */
  keyFor(shared: string): string;
  /**
   * The row's mark for an answer the platform gave from its record of an earlier request of the
   * key (`Idempotent-Replayed`): `{ replayed: true }`, or nothing. The run counts it, apart when
   * no answer of this item was lost (`afterLostAnswer` false): then the earlier request is not an
   * attempt of this run's (BulkSummary.replayedFirst).
   */
  replayed(response: { replayed: boolean; afterLostAnswer: boolean }): { replayed?: true };
  /**
   * The run resumes an earlier one (its journal's): a stored answer may be that run's, and tell of
   * a change made then that is not so now (UndoneSinceError, storedBy in ./judge.ts).
   */
  resumed: boolean;
  /**
   * The mark an earlier run of this journal wrote before it sent this item's request (RunOptions.
   * markSent, Journal.sentEarlier), when that run ended without the item's own line (killed, or
   * stopped before its answer): its request may have made the change. Undefined otherwise.
   */
  sentEarlier?: Record<string, unknown> | undefined;
  /**
   * The item's change was made, but what followed it (a read of what it made) met an error that
   * no later item can get past (haltsTheRun: the platform refuses the connection, the caller's
   * role or credential is gone): the row stands as the worker returns it (made, never failed:
   * review24e H1), and no item starts after it (BulkSummary.haltedAfterMade).
   */
  halt(error: unknown): void;
}

/**
 * Does one item and returns details for its result line. It may return `status: 'skipped'` or
 * `status: 'failed'` (with `error`) for an item that was handled but did not end as asked (the
 * API's own answer that it was already done, a replayed delivery that failed again): such items
 * are done as far as the journal goes. A thrown error fails the item.
 */
export type Worker<T> = (item: BulkItem<T>, call: WorkCall) => Promise<Record<string, unknown>>;

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
  const iterator = (
    Symbol.asyncIterator in options.items
      ? (options.items as AsyncIterable<BulkItem<T>>)[Symbol.asyncIterator]()
      : (options.items as Iterable<BulkItem<T>>)[Symbol.iterator]()
  ) as AsyncIterator<BulkItem<T>> | Iterator<BulkItem<T>>;
  // The source said it has no more items (its iterator is done): not when it stopped reading
  // because the run is stopping (SourceCut), nor after it failed to read.
  let exhausted = false;
  let cut = false;
  // Items taken from the source but left unstarted after a stop (they waited at a phase barrier
  // meanwhile): the run is cut though another worker's pull found the source's end.
  let left = false;
  // A failure to read the next item (a listing page that could not be fetched) ends the run
  // once the items in flight are done; it is then the run's error (summary.unread).
  let pullError: { error: unknown } | undefined;
  const end: IteratorResult<BulkItem<T>> = { done: true, value: undefined };
  // An item taken: `release` once its worker started it or left it (RunOrder.take).
  type Taken = IteratorResult<BulkItem<T>> & { release?: () => void };
  // One pull at a time, so workers never race on the iterator.
  let pulling: Promise<Taken> = Promise.resolve({
    done: false,
    value: undefined as never,
  });
  const order = options.order ?? new RunOrder();
  const next = (): Promise<Taken> => {
    pulling = pulling.then(async (): Promise<Taken> => {
      if (exhausted || cut || pullError) return end;
      let step: IteratorResult<BulkItem<T>>;
      try {
        step = await iterator.next();
      } catch (error) {
        // The journal could not note the items taken (Journal.plan): none of them was sent.
        if (error instanceof JournalWriteError) halting(error);
        else if (error instanceof SourceCut) cut = true;
        else pullError = { error };
        return end;
      }
      if (step.done) {
        exhausted = true;
        return step;
      }
      await order.enter(step.value.phase);
      // In flight from now for what waits for the run's items to settle (its own barrier passed).
      return { ...step, release: order.take() };
    });
    return pulling;
  };
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
      const step = await next();
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
          // (session 28's leftover: `4 granted`, then `✓ 7 granted` of 10 rows).
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
  if (stop.aborted && (!exhausted || left)) summary.stopped = true;
  if (!exhausted && !cut && !pullError) await iterator.return?.();
  options.progress?.done();
  summary.elapsedMs = options.now() - started;
  if (pullError) summary.unread = pullError.error;
  return summary;
}
