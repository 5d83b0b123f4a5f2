import type { DlqEntry } from '../../../api/schemas/webhooks.js';
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

  #query() {
    return { ...dlqQuery(this.filters), status: 'queued' as const };
  }
}
