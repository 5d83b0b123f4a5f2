/**
 * A queued entry's delivery replayed as that entry (dlq_entry_id), and a server that refuses the
 * field: from then on the run's replays are plain ones (QueueSnapshot.replay, replay-named.ts).
 */
import type { WebhookDelivery } from '../../../api/schemas/webhooks.js';
import type { WorkCall } from '../../../bulk/item.js';
import { BadRequestError, UnprocessableEntityError } from '../../../http/errors.js';
import { deriveIdempotencyKey } from '../../../http/idempotency.js';
import type { WithResponse } from '../../../platform/api-promise.js';
import type { Platform } from '../../../platform/index.js';
import { type LeftQueue, whereNow } from './left.js';

/** A run's replays of queued entries: one server's answer to dlq_entry_id holds for the whole run. */
export class EntryReplays {
  /** The server takes dlq_entry_id on a replay (until it refuses the field). */
  #asEntry = true;

  constructor(
    private readonly platform: Platform,
    private readonly webhook: string,
  ) {}

  /**
   * Replays an entry's delivery as that entry (dlq_entry_id): only while it is queued, so a replay
   * or discard by another run that came first is not repeated (409 dlq_entry_not_queued), and the
   * answer says what happened to the entry instead. A server that refuses the field (a 400 or 422
   * naming it) gets plain replays from then on, with a key of their own (still this run's alone:
   * two runs at once may each replay an entry there, each saying so truthfully).
   */
  async replay(
    entry: string,
    delivery: string,
    call: WorkCall,
  ): Promise<WithResponse<WebhookDelivery> | { left: LeftQueue }> {
    const asEntry = this.#asEntry;
    try {
      return await this.platform.webhooks.deliveries
        .replay(
          this.webhook,
          delivery,
          {
            signal: call.signal,
            idempotencyKey: asEntry
              ? call.idempotencyKey
              : deriveIdempotencyKey(call.idempotencyKey, 'without dlq_entry_id'),
          },
          asEntry ? entry : undefined,
        )
        .withResponse();
    } catch (error) {
      if (asEntry && refusesEntryField(error)) {
        this.#asEntry = false;
        return this.replay(entry, delivery, call);
      }
      const { gone } = await whereNow(error, () =>
        this.platform.webhooks.dlq.get(this.webhook, entry, { signal: call.signal }),
      );
      return { left: gone };
    }
  }
}

/** A validation refusal of the dlq_entry_id field itself: a server without it (not one that says the entry is gone). */
export function refusesEntryField(error: unknown): boolean {
  return (
    (error instanceof BadRequestError || error instanceof UnprocessableEntityError) &&
    JSON.stringify([error.message, error.details ?? null]).includes('dlq_entry_id')
  );
}
