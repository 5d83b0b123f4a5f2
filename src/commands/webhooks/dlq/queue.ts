import type { DlqEntry, WebhookDelivery } from '../../../api/schemas/webhooks.js';
import type { WorkCall } from '../../../bulk/runner.js';
import type { Context } from '../../../context.js';
import { BadRequestError, UnprocessableEntityError } from '../../../http/errors.js';
import { deriveIdempotencyKey } from '../../../http/idempotency.js';
import type { WithResponse } from '../../../platform/api-promise.js';
import { DlqEntryNotQueuedError } from '../../../platform/errors.js';
import type { Platform } from '../../../platform/index.js';
import { type DlqFilters, dlqQuery } from './filters.js';

/** Entries are read from the API in pages of this size; --limit counts entries, not pages. */
const PAGE = 200;

/**
 * The queued entries a bulk run works on: the queue as it was when the run started. A run that
 * replays entries to a target that still fails puts new entries at the end of the queue (their
 * deliveries fail again); read naively, the listing would reach them and the run never end. So
 * a run takes at most as many entries as the queue held when it started (`bound`, the first
 * page's total; the queue is ordered oldest first, so those come first), and skips entries whose
 * delivery it created itself (`ours`, new delivery ids of this run and of the run it resumes).
 */
export class QueueSnapshot {
  #bound: number | undefined;
  readonly ours = new Set<string>();
  /** Entries of the snapshot found gone from the queue when this run came to them. */
  #left = 0;
  /** The server takes dlq_entry_id on a replay (until it refuses the field). */
  #asEntry = true;

  constructor(
    private readonly platform: Platform,
    private readonly webhook: string,
    private readonly filters: DlqFilters,
    /** --limit: at most this many entries are handed out. */
    private readonly limit: number | undefined,
  ) {}

  /** How many queued entries match now (the snapshot's bound); at most --limit. */
  async count(signal?: AbortSignal): Promise<number> {
    const page = await this.platform.webhooks.dlq.list(
      this.webhook,
      { ...this.#query(), limit: 1 },
      { signal },
    );
    this.#bound = page.total;
    return this.limit === undefined ? page.total : Math.min(page.total, this.limit);
  }

  /** The snapshot's entries, oldest first, page by page as they are needed. */
  async *entries(signal?: AbortSignal): AsyncGenerator<DlqEntry> {
    if (this.#bound === undefined) await this.count(signal);
    const bound = this.#bound ?? 0;
    let listed = 0;
    let handed = 0;
    const pages = this.platform.webhooks.dlq.listAll(
      this.webhook,
      { ...this.#query(), limit: PAGE },
      { signal },
    );
    for await (const entry of pages) {
      if (listed++ >= bound || (this.limit !== undefined && handed >= this.limit)) return;
      if (this.ours.has(entry.delivery_id)) continue;
      handed++;
      yield entry;
    }
  }

  /**
   * What every run working on `entry` as listed shares, for its idempotency key (BulkItem.shared):
   * two runs (two admins, two journals) that listed the same queued entry send the same key, so
   * the platform acts once and answers the later run with the earlier answer (replayed). Its
   * state is in it, so an entry that comes back to the queue is a new item.
   */
  static shared(kind: string, entry: DlqEntry): string {
    return JSON.stringify([
      kind,
      entry.webhook_id,
      entry.id,
      entry.replay_count,
      entry.last_replayed_at,
      entry.discarded_at,
    ]);
  }

  /**
   * The row of an entry that left the queue after this run listed it (another run replayed,
   * discarded or delivered it; or an attempt of this run whose answer was lost did): skipped,
   * saying what happened to it. `how` is the entry as it is now, or the answer the platform gave
   * an earlier request of the same key (`replayed_as` / `discarded_at` of that answer).
   */
  left(how: LeftQueue): Record<string, unknown> {
    this.#left++;
    return { status: 'skipped', ...how };
  }

  /**
   * Replays an entry's delivery as that entry (dlq_entry_id): only while it is queued, so a replay
   * or discard by another run that came first is not repeated (409 dlq_entry_not_queued), and the
   * answer says what happened to the entry instead. A server that refuses the field (a 400 or 422
   * naming it) gets plain replays from then on, with a key of their own; the shared key still
   * makes same-principal runs act once there.
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
      const { gone } = await QueueSnapshot.whereNow(error, () =>
        this.platform.webhooks.dlq.get(this.webhook, entry, { signal: call.signal }),
      );
      return { left: gone };
    }
  }

  /**
   * The entry a refusal of a replay or discard was about (409 dlq_entry_not_queued: it left the
   * queue first), as the refusal carries it or as it is now, with what happened to it; anything
   * else, or an entry that is queued after all, is thrown again.
   */
  static async whereNow(
    error: unknown,
    lookUp: () => Promise<DlqEntry>,
  ): Promise<{ entry: DlqEntry; gone: LeftQueue }> {
    if (!(error instanceof DlqEntryNotQueuedError)) throw error;
    const entry = error.entry ?? (await lookUp());
    const gone = QueueSnapshot.gone(entry);
    if (!gone) throw error;
    return { entry, gone };
  }

  /** The entry's state as a reason; undefined while it is still queued. */
  static gone(entry: DlqEntry): LeftQueue | undefined {
    if (entry.status === 'replayed') {
      return {
        reason: 'already_replayed',
        ...(entry.last_replay_delivery_id ? { replayed_as: entry.last_replay_delivery_id } : {}),
      };
    }
    if (entry.status === 'discarded')
      return { reason: 'already_discarded', discarded_at: entry.discarded_at };
    if (entry.status === 'recovered') {
      return {
        reason: 'already_delivered',
        ...(entry.recovered_by ? { delivered_by: entry.recovered_by } : {}),
      };
    }
    return undefined;
  }

  /** After the run: how many rows another run (or a lost answer) had taken, and that none was done twice. */
  noteLeft(ctx: Context, done: string): void {
    if (this.#left === 0) return;
    ctx.out.info(
      `${this.#left.toLocaleString('en')} of these had left the queue since this run listed them (replayed, discarded or delivered by another run, or by an attempt of this one whose answer was lost); each is on its row, and none was ${done} twice`,
    );
  }

  #query() {
    return { ...dlqQuery(this.filters), status: 'queued' as const };
  }
}

/** A validation refusal of the dlq_entry_id field itself: a server without it (not one that says the entry is gone). */
export function refusesEntryField(error: unknown): boolean {
  return (
    (error instanceof BadRequestError || error instanceof UnprocessableEntityError) &&
    JSON.stringify([error.message, error.details ?? null]).includes('dlq_entry_id')
  );
}

/** What happened to an entry that left the queue, as a row says it. */
export type LeftQueue =
  | { reason: 'already_replayed'; replayed_as?: string }
  | { reason: 'already_discarded'; discarded_at?: string | null }
  | { reason: 'already_delivered'; delivered_by?: string };

/** A row's reason in words, for the detail column; undefined for reasons that are not about the queue. */
export function leftText(row: {
  reason?: string;
  replayed_as?: string;
  discarded_at?: string | null;
  delivered_by?: string;
}): string | undefined {
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
