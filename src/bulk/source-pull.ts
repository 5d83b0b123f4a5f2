// Takes a bulk run's items from its source, one pull at a time, each past its phase's barrier.
import type { BulkItem } from './item.js';
import { JournalWriteError } from './journal-disk.js';
import type { RunOrder } from './order.js';

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

/** An item taken: `release` once its worker started it or left it (RunOrder.take). */
export type Taken<T> = IteratorResult<BulkItem<T>> & { release?: () => void };

/**
 * The run's source, read by one pull at a time, so workers never race on its iterator. An item
 * pulled waits for its phase (RunOrder.enter) and is in flight from then (RunOrder.take).
 */
export class SourcePull<T> {
  /**
   * The source said it has no more items (its iterator is done): not when it stopped reading
   * because the run is stopping (SourceCut), nor after it failed to read.
   */
  exhausted = false;
  private cut = false;
  /**
   * A failure to read the next item (a listing page that could not be fetched) ends the run
   * once the items in flight are done; it is then the run's error (BulkSummary.unread).
   */
  pullError: { error: unknown } | undefined;
  private readonly iterator: AsyncIterator<BulkItem<T>> | Iterator<BulkItem<T>>;
  private readonly end: IteratorResult<BulkItem<T>> = { done: true, value: undefined };
  private pulling: Promise<Taken<T>> = Promise.resolve({
    done: false,
    value: undefined as never,
  });

  /** `halting`: the run's halt, for a journal that could not note the items taken. */
  constructor(
    items: Iterable<BulkItem<T>> | AsyncIterable<BulkItem<T>>,
    private readonly order: RunOrder,
    private readonly halting: (error: unknown) => void,
  ) {
    this.iterator = (
      Symbol.asyncIterator in items
        ? (items as AsyncIterable<BulkItem<T>>)[Symbol.asyncIterator]()
        : (items as Iterable<BulkItem<T>>)[Symbol.iterator]()
    ) as AsyncIterator<BulkItem<T>> | Iterator<BulkItem<T>>;
  }

  next(): Promise<Taken<T>> {
    this.pulling = this.pulling.then(async (): Promise<Taken<T>> => {
      if (this.exhausted || this.cut || this.pullError) return this.end;
      let step: IteratorResult<BulkItem<T>>;
      try {
        step = await this.iterator.next();
      } catch (error) {
        // The journal could not note the items taken (Journal.plan): none of them was sent.
        if (error instanceof JournalWriteError) this.halting(error);
        else if (error instanceof SourceCut) this.cut = true;
        else this.pullError = { error };
        return this.end;
      }
      if (step.done) {
        this.exhausted = true;
        return step;
      }
      await this.order.enter(step.value.phase);
      // In flight from now for what waits for the run's items to settle (its own barrier passed).
      return { ...step, release: this.order.take() };
    });
    return this.pulling;
  }

  /** Lets a source the run did not read to its end go (its iterator's `return`). */
  async close(): Promise<void> {
    if (!this.exhausted && !this.cut && !this.pullError) await this.iterator.return?.();
  }
}
