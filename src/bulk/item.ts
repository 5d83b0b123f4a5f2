// One item of a bulk run: what it is, what its worker is given and returns, and the row it ends as.
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

/**
 * `worker`, telling `sent` before each item it is given (its request may go): what a run reads
 * back afterwards is read only when something was sent (review29d M2).
 */
export function sending<T>(worker: Worker<T>, sent: (item: BulkItem<T>) => void): Worker<T> {
  return (item, call) => {
    sent(item);
    return worker(item, call);
  };
}
