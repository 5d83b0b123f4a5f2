import { DomainError } from './errors.js';
import { type DataReader, dlqView } from './webhook-views.js';
import type { DlqRecord } from './webhooks.js';

/**
 * An entry leaves the dead-letter queue once: by a replay made as that entry (a --dlq run names
 * it, `dlq_entry_id`) or by a discard, whichever comes first. The second is refused with 409
 * dlq_entry_not_queued, carrying the entry as it is (details[0].entry), so nobody is told
 * "discarded" of an event that was sent, nor sends an event someone was told was discarded.
 * Checked and changed in one synchronous step of the handler, so the two cannot interleave.
 * Discarding an entry discarded already stays idempotent. A delivery named by its own id is
 * still replayed whatever its entry says: that is the operator's explicit choice. `reads`: whether
 * the caller reads the event's data, for the entry's errors (shownError).
 */
export function refuseUnlessQueued(entry: DlqRecord, act: 'replay' | 'discard', reads: DataReader): void {
  if (entry.status === 'queued' || (act === 'discard' && entry.status === 'discarded')) return;
  const not = act === 'replay' ? 'replayed' : 'discarded';
  const message =
    entry.status === 'replayed'
      ? `dead-letter entry ${entry.id} was replayed already${entry.last_replay_delivery_id ? ` (as ${entry.last_replay_delivery_id})` : ''}; it is not ${act === 'replay' ? 'replayed again' : 'discarded'}`
      : entry.status === 'recovered'
        ? `dead-letter entry ${entry.id} was recovered: its event was delivered by ${entry.recovered_by}; it is not ${not}`
        : `dead-letter entry ${entry.id} was discarded; it is not replayed (replay its delivery ${entry.delivery.id} by id to send it anyway)`;
  throw new DomainError('dlq_entry_not_queued', message, [
    { field: 'status', message: `is ${entry.status}, not queued`, entry: dlqView(entry, reads) },
  ]);
}
