import type { DlqEntry } from '../../../api/schemas/webhooks.js';

/**
 * What the attempts at `entry` as listed share, for their idempotency key (BulkItem.shared). Its
 * state is in it, so an entry that comes back to the queue is a new item. With `run` (the
 * journal's run id: this run's retries and the run resumed from its journal share it) the key is
 * that run's alone: a replay. Another run (another journal, of the same principal too) that
 * listed the entry sends its own key, so the platform never answers it with this run's stored
 * replay, which it would take for its own after a lost answer (an attempt of it that never
 * reached the platform); made as the entry, the replay that comes second is refused (409
 * dlq_entry_not_queued), a skipped row naming the other's replay. Without `run` every run that
 * listed the entry shares the key: a discard, which the platform answers alike whether it
 * discarded the entry then or before, so only the stored answer tells another run's apart.
 */
export function attemptShared(kind: string, entry: DlqEntry, run?: string): string {
  return JSON.stringify([
    kind,
    ...(run === undefined ? [] : [run]),
    entry.webhook_id,
    entry.id,
    entry.replay_count,
    entry.last_replayed_at,
    entry.discarded_at,
  ]);
}
