/**
 * An entry that left the dead-letter queue, as a row of `replay --dlq` or `dlq discard --all` says
 * it: what became of it (LeftQueue, whyGone, whereNow), an entry a stopped run had taken (Planned),
 * and their words.
 */
import type { DlqEntry } from '../../../api/schemas/webhooks.js';
import { DlqEntryNotQueuedError } from '../../../platform/errors.js';

/** What a row of `replay --dlq` or `dlq discard` says of an entry: the delivery and event it holds. */
export const entryFields = (entry: DlqEntry) => ({
  delivery_id: entry.delivery_id,
  event_type: entry.event_type,
  event_id: entry.event_id,
});

/** What happened to an entry that left the queue, as a row says it. */
export type LeftQueue =
  | { reason: 'already_replayed'; replayed_as?: string }
  | { reason: 'already_discarded'; discarded_at?: string | null }
  | { reason: 'already_delivered'; delivered_by?: string };

/**
 * The entry a refusal of a replay or discard was about (409 dlq_entry_not_queued: it left the
 * queue first), as the refusal carries it or as it is now, with what happened to it; anything
 * else, or an entry that is queued after all, is thrown again.
 */
export async function whereNow(
  error: unknown,
  lookUp: () => Promise<DlqEntry>,
): Promise<{ entry: DlqEntry; gone: LeftQueue }> {
  if (!(error instanceof DlqEntryNotQueuedError)) throw error;
  const entry = error.entry ?? (await lookUp());
  const gone = whyGone(entry);
  if (!gone) throw error;
  return { entry, gone };
}

/** The entry's state as a reason; undefined while it is still queued. */
export function whyGone(entry: DlqEntry): LeftQueue | undefined {
  if (entry.status === 'replayed') {
    return {
      reason: 'already_replayed',
      ...(entry.last_replay_delivery_id ? { replayed_as: entry.last_replay_delivery_id } : {}),
    };
  }
  if (entry.status === 'discarded') return { reason: 'already_discarded', discarded_at: entry.discarded_at };
  if (entry.status === 'recovered') {
    return {
      reason: 'already_delivered',
      ...(entry.recovered_by ? { delivered_by: entry.recovered_by } : {}),
    };
  }
  return undefined;
}

/** An entry the run a resumed run resumes took, gone from the queue (or its look-up's error). */
export type Planned = { id: string; entry?: DlqEntry } & (
  | { gone: LeftQueue | { reason: 'not_found' } }
  | { error: unknown }
);

/**
 * A row's reason in words, for the detail column; undefined for reasons that are not about the
 * queue. `act` is the run's (what an attempt of the stopped run whose answer was lost may have done).
 */
export function leftText(
  row: {
    reason?: string;
    replayed_as?: string;
    discarded_at?: string | null;
    delivered_by?: string;
    while_stopped?: boolean;
  },
  act: 'replay' | 'discard' = 'replay',
): string | undefined {
  if (row.while_stopped) return stoppedText(row, act);
  switch (row.reason) {
    case 'already_replayed':
      return `already replayed${row.replayed_as ? ` as ${row.replayed_as}` : ''}, by another run or an earlier attempt`;
    case 'already_discarded':
      return 'already discarded, by another run or an earlier attempt';
    case 'already_delivered':
      return `its event was delivered${row.delivered_by ? ` by ${row.delivered_by}` : ''}`;
    default:
      return undefined;
  }
}

/**
 * A planned entry gone while the run was stopped (QueueSnapshot.planned), in words: what the run
 * does (`act`) may be the stopped run's own attempt whose answer was lost; anything else is never
 * this run's doing.
 */
function stoppedText(
  row: {
    reason?: string;
    replayed_as?: string;
    discarded_at?: string | null;
    delivered_by?: string;
  },
  act: 'replay' | 'discard',
): string | undefined {
  const lost = 'by an attempt of that run whose answer was lost';
  const what = {
    already_replayed: `replayed${row.replayed_as ? ` as ${row.replayed_as}` : ''}, ${act === 'replay' ? `by another run or ${lost}` : 'not by this run'}`,
    already_discarded: `discarded${row.discarded_at ? ` at ${row.discarded_at}` : ''}, ${act === 'discard' ? `${lost}, or by another run` : 'not by this run'}`,
    already_delivered: `its event was delivered${row.delivered_by ? ` by ${row.delivered_by}` : ''}`,
    not_found: 'no such entry any more',
  }[row.reason ?? ''];
  return what && `left the queue before this run: ${what}`;
}
