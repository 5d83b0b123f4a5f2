/** What a replay run works on: a named delivery or entry, or an entry of the queue (as bulk items). */

import type { BulkItem } from '../../bulk/item.js';
import type { Journal } from '../../bulk/journal.js';
import { attemptShared } from './dlq/attempt-shared.js';
import { entryFields, type Planned } from './dlq/left.js';
import type { QueueSnapshot } from './dlq/queue.js';
import type { NamedTarget } from './replay-named.js';

/** What to replay: a named delivery or entry (with what was read of it), or an entry of the queue. */
export interface Target extends NamedTarget {
  ref: string;
  event_type?: string;
  event_id?: string;
  /** An entry the run this one resumes took, gone from the queue while it was stopped. */
  planned?: Planned;
}

/** The queue's entries, then those the run this one resumes took that left it (QueueSnapshot.planned). */
export async function* entries(
  queue: QueueSnapshot,
  journal: Journal,
  record: boolean,
  settled: () => Promise<void>,
): AsyncGenerator<BulkItem<Target>> {
  for await (const next of queue.planned(journal, record, record ? settled : undefined)) {
    if ('left' in next) {
      const { id, entry } = next.left;
      yield {
        key: id,
        data: { ref: id, is_entry: true, planned: next.left, ...(entry && entryFields(entry)) },
      };
      continue;
    }
    const e = next.queued;
    yield {
      key: e.id,
      data: { ref: e.id, is_entry: true, ...entryFields(e) },
      // This run's own key (its retries and its resumes share it), never another run's.
      shared: attemptShared('replay', e, journal.run.runId),
    };
  }
}
