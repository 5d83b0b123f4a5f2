/**
 * The entries a run over the queue takes (its window: RunWindow), oldest first, page by page, none
 * twice, never one of its own replays; then those the run it resumes took that left the queue; and
 * the rows of entries that left it (another run, or a lost answer, came first), counted and said.
 */
import type { DlqEntry } from '../../../api/schemas/webhooks.js';
import { serverTime } from '../../../api/time.js';
import type { Journal } from '../../../bulk/journal.js';
import type { Context } from '../../../context.js';
import { SvcError } from '../../../errors.js';
import { itemKey } from '../../../http/item-key.js';
import { counted } from '../../../output/format.js';
import type { LeftQueue, Planned } from './left.js';
import { PAGE, RunWindow } from './run-window.js';

/** The queue's entries as a run takes them, after its window (RunWindow.forRun) is set up. */
export class RunEntries extends RunWindow {
  /** Entries of the snapshot found gone from the queue when this run came to them. */
  #left = 0;
  /** Entries the run it resumes meant to do, found gone from the queue (see planned()). */
  #leftWhileStopped = 0;
  /** Every entry the run took from the listing (entries()): none is taken twice. */
  readonly #handed = new Set<string>();

  /**
   * The snapshot's entries, oldest first, page by page as they are needed. `taken` is told the
   * entries of each page the run takes, before the first of them is handed out.
   *
   * With `settled` (a run that changes the queue), a listing that ends short of the count is
   * checked again (#again): a server whose cursor is an offset into the live queue skips an
   * entry for each one the run took out before it, and the run would end saying it was done.
   * A run stopping meanwhile ends the entries there with settled's SourceCut: cut, not done.
   */
  async *entries(
    signal?: AbortSignal,
    taken?: (ids: string[]) => void,
    settled?: () => Promise<void>,
  ): AsyncGenerator<DlqEntry> {
    if (this.bound === undefined) await this.count(signal);
    const bound = this.bound ?? 0;
    let listed = 0;
    let over = false;
    let page: DlqEntry[] = [];
    // Entries count against the bound once: a page that repeats one (an offset that overlaps the
    // page before) must not end the run an entry short, believing the queue drained.
    const distinct = new Set<string>();
    const pages = this.platform.webhooks.dlq.listAll(
      this.webhook,
      { ...this.query(), limit: PAGE },
      { signal },
      ({ items }) => {
        const limit = this.limitLeft;
        ({ page, stopped: over } = this.#hand(
          items,
          () => listed++ >= bound || (limit !== undefined && this.#handed.size >= limit),
          taken,
          distinct,
        ));
      },
    );
    // The page's first entry hands out what it takes (the page, read as it came); its others, nothing.
    for await (const _ of pages) {
      const next = page;
      page = [];
      yield* next;
      if (over) return;
    }
    if (settled) yield* this.#again(bound, settled, signal, taken);
  }

  /**
   * The entries of a listed page the run takes: up to the first for which `stop` is true (`stopped`),
   * leaving out the run's own replays (`ours`) and entries it took already; `taken` is told them.
   */
  #hand(
    items: DlqEntry[],
    stop: () => boolean,
    taken: ((ids: string[]) => void) | undefined,
    /** The entries this listing showed so far: one shown again is passed over, and `stop` not asked. */
    listed: Set<string>,
  ): { page: DlqEntry[]; stopped: boolean } {
    const page: DlqEntry[] = [];
    let stopped = false;
    const until = this.query().until;
    const untilMs = until === undefined ? undefined : serverTime(until);
    for (const entry of items) {
      // An entry as the repeated-page check knows it (item-key.ts): its id.
      const key = itemKey(entry) ?? entry.id;
      if (listed.has(key)) continue;
      listed.add(key);
      if (stop()) {
        stopped = true;
        break;
      }
      if (this.ours.has(entry.delivery_id) || this.#handed.has(entry.id)) continue;
      if (newer(entry, untilMs, this.recent)) continue;
      this.#handed.add(entry.id);
      page.push(entry);
    }
    if (page.length > 0) taken?.(page.map((entry) => entry.id));
    return { page, stopped };
  }

  /**
   * After the listing ended short of the count (`bound`, at most --limit): once every entry
   * handed out is done (`settled`: nothing in flight moves the queue), the run's part of the queue
   * (dead-lettered before its start's second end) is listed again from its start, and each
   * entry of it the run never took, nor one of its own replays, is taken. Again, until a listing
   * with nothing in flight shows every queued entry its first page counted and none new; when
   * two such listings in a row show fewer (the queue moved under them: another run), the run
   * ends with an error naming how many may be left, and how to go on (the same command resumes).
   */
  async *#again(
    bound: number,
    settled: () => Promise<void>,
    signal?: AbortSignal,
    taken?: (ids: string[]) => void,
  ): AsyncGenerator<DlqEntry> {
    const cap = () => Math.min(bound, this.limitLeft ?? bound);
    const query = { ...this.query(), limit: PAGE };
    let short = 0;
    for (;;) {
      if (this.#handed.size >= cap()) return;
      // Stopping (Ctrl-C, a closed stdout): settled throws SourceCut, nothing more is read, the
      // run is cut (never done) and the resumed run takes the rest.
      await settled();
      let total: number | undefined;
      let seen = 0;
      let fresh = 0;
      let page: DlqEntry[] = [];
      const distinct = new Set<string>();
      const pages = this.platform.webhooks.dlq.listAll(this.webhook, query, { signal }, (p) => {
        // The first page's total: the queued entries of the run's part of the queue as this listing starts.
        total ??= p.total;
        ({ page } = this.#hand(
          p.items,
          () => {
            seen++;
            return this.#handed.size >= cap();
          },
          taken,
          distinct,
        ));
        fresh += page.length;
      });
      for await (const _ of pages) {
        const next = page;
        page = [];
        yield* next;
      }
      if (fresh > 0) {
        short = 0;
        continue;
      }
      if (seen >= (total ?? 0)) return;
      if (++short < 2) continue;
      const left = (total ?? 0) - seen;
      // The run's error (summary.unread): after its counts, with the same command to resume it.
      throw new SvcError(
        'partial',
        `the dead-letter queue's listing left out ${counted(left, 'queued entry', 'queued entries')} of this run twice (its pages moved as entries left it): they may still be queued`,
        { code: 'listing_incomplete' },
      );
    }
  }

  /**
   * The snapshot's entries (entries()), each noted in the journal's plan as the run takes it (not
   * in a dry run, which writes nothing); then, in a resumed run, each entry the run it resumes
   * took and did not finish that this run did not list (it left the queue while the run was
   * stopped: replayed or discarded by another run, or by an attempt of the stopped one whose answer
   * was lost), looked up for what became of it; one still queued after the run's window (outside:
   * a journal from before svc kept the platform's clock) is taken. A journal written before svc
   * kept the plan has none: nothing more. One queued again since is newer than the run (noteLater counts it).
   */
  async *planned(
    journal: Journal,
    record: boolean,
    settled?: () => Promise<void>,
  ): AsyncGenerator<{ queued: DlqEntry } | { left: Planned }> {
    const taken = (ids: string[]) => {
      if (record) journal.plan(ids);
    };
    for await (const entry of this.entries(undefined, taken, settled)) yield { queued: entry };
    for (const id of journal.planned()) {
      if (this.#handed.has(id) || journal.has(id)) continue;
      const outside = this.outside.get(id);
      if (outside) {
        // The run's, though after its window (outside): done now (gone since, its row says so).
        this.#handed.add(id);
        yield { queued: outside };
        continue;
      }
      // As forRun found it (RunWindow.#owed); one queued then is looked up again: it may have left since.
      const left = this.stopped.get(id) ?? (await this.stoppedNow(id));
      if (left) yield { left };
    }
  }

  /** The row of a planned entry (planned()) gone while the run was stopped: skipped, not this run's doing. */
  leftWhileStopped(planned: Planned): Record<string, unknown> {
    if ('error' in planned) throw planned.error;
    this.#leftWhileStopped++;
    return { status: 'skipped', ...planned.gone, while_stopped: true };
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

  /** After the run: how many rows another run (or a lost answer) had taken, and that none was done twice. */
  noteLeft(ctx: Context, done: string): void {
    if (this.#left === 0) return;
    ctx.out.info(
      `${this.#left.toLocaleString('en')} of these had left the queue since this run listed them (replayed, discarded or delivered by another run, or by an attempt of this one whose answer was lost); each is on its row, and none was ${done} twice`,
    );
  }

  /**
   * After a resumed run: how many entries of the run it resumes had left the queue while it was
   * stopped. Never that this run did none of them: the stopped run may have, its answer lost.
   */
  noteLeftWhileStopped(ctx: Context, done: string): void {
    const count = this.#leftWhileStopped;
    if (count === 0) return;
    const [entries, was] = count === 1 ? ['entry', 'was'] : ['entries', 'were'];
    ctx.out.info(
      `${count.toLocaleString('en')} ${entries} the earlier run had listed left the queue before this run (replayed, discarded or delivered by another run, or by an attempt of that run whose answer was lost; or gone): each is on its row, and none ${was} ${done} again`,
    );
  }
}

/**
 * An entry that is not the run's although listed: dead-lettered at or after the listing's `until`
 * (`untilMs`: the run's end, or --until; a server that ignores the filter lists it), or in the
 * seconds a new run listed by id as it started (`recent`) and not among them: after its start.
 */
function newer(
  entry: DlqEntry,
  untilMs: number | undefined,
  recent: { sinceMs: number; ids: Set<string> } | undefined,
): boolean {
  const at = serverTime(entry.dead_lettered_at);
  if (!Number.isFinite(at)) return false;
  if (untilMs !== undefined && at >= untilMs) return true;
  return recent !== undefined && at >= recent.sinceMs && !recent.ids.has(entry.id);
}
