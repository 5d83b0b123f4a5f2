// What a bulk run counts as it goes (runner.ts), and how it ends is said from (finish.ts).
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
   * was lost) that no run this one resumes marked sent (those are `earlierRun`): the platform had
   * the key from elsewhere (another run sharing the key, a run resumed from a journal an earlier
   * svc wrote without marks, or a server that marks answers so); absent when there were none.
   */
  replayedFirst?: number;
  /**
   * Ok items made by the run this one resumes (marked sent by it, not journaled, and answered from
   * the platform's record at this run's first attempt; their row's `replayed: true`): not this
   * run's doing, said apart from its own count; absent when there were none. The mark is written
   * before the request leaves, so it alone proves nothing was sent; the replay is the evidence:
   * the key derives from the run's id, the item and the attempt number, so the platform's record
   * of it at this run's first attempt is of a request only that run sent (review29c L3). A server
   * that marks answers replayed that are not would make this claim false, as it would every
   * `replayed` svc reports.
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
