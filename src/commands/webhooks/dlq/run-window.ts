// Over 300 lines on purpose (313): which queued entries one run is (its bound, a resumed run's
// window, what the run it resumes left owed) is one object's state, set up as the run starts; the
// entries it takes (run-entries.ts) and what it says after (queue.ts) read it.
import type { DlqEntry } from '../../../api/schemas/webhooks.js';
import { isoSeconds, serverTime } from '../../../api/time.js';
import type { Journal } from '../../../bulk/journal.js';
import type { Context } from '../../../context.js';
import { CLOCK_SKEW_MS, platformTime } from '../../../platform/clock.js';
import { DlqEntryNotFoundError } from '../../../platform/errors.js';
import type { Platform } from '../../../platform/index.js';
import { journalAnchor } from '../../platform-clock.js';
import { durationsGiven, timesAt } from '../../time-flags.js';
import { type DlqFilterFlags, type DlqFilters, dlqQuery } from './filters.js';
import { type Planned, whyGone } from './left.js';
import { olderStart, platformAnchor } from './older-journal.js';

/** Entries are read from the API in pages of this size; --limit counts entries, not pages. */
export const PAGE = 200;
/** Entries a resumed run looks up at once (#owed). */
const LOOKUPS = 8;
/** Without the platform's clock (no Date header), a new run lists by id the entries of this many ms before its start's second (recent). */
const RECENT_MS = 2000;

/**
 * The queued entries a bulk run works on: the queue as it was when the run started. A run that
 * replays entries to a target that still fails puts new entries at the end of the queue (their
 * deliveries fail again); read naively, the listing would reach them and the run never end. So
 * a run takes at most as many entries as the queue held when it started (`bound`, the first
 * page's total; the queue is ordered oldest first, so those come first), and skips entries whose
 * delivery it created itself (`ours`, new delivery ids of this run and of the run it resumes).
 *
 * A run is the entries dead-lettered before it started: its start on the platform's clock is kept
 * in its journal (the anchor), so the run resumed takes what is left of those (at most --limit
 * less what it did), never a newer entry, and counts the newer ones to say they are a new run's.
 * A --since/--until duration counts back from that anchor too: the run resumed (and its dry run)
 * takes the instants its first run took, not a window moved on by the time it resumes.
 */
export class RunWindow {
  protected bound: number | undefined;
  readonly ours = new Set<string>();
  /** A resumed run: each entry the run it resumes took and did not finish, as forRun found it (#owed). */
  protected readonly stopped = new Map<string, Planned | undefined>();
  /**
   * A resumed run: entries the run it resumes took (its plan) that are still queued but dead-lettered
   * at or after the window's end (a journal from before svc kept the platform's clock, whose window
   * is on this machine's clock): the run's all the same, since its first run listed them in its window.
   */
  protected readonly outside = new Map<string, DlqEntry>();
  /** Entries the run it resumes did: they count against --limit. */
  #taken = 0;
  /**
   * When the run started (ISO, and ms on the platform's clock; a resumed run's, its first start):
   * noteLater counts what is newer. `unsure`: a resumed run whose journal, written before svc kept
   * the platform's clock (Journal.platformStart), has its start on this machine's clock; `machineMs`:
   * that start, when the window starts earlier (olderStart, older-journal.ts).
   */
  protected later: { started: string; startMs: number; unsure: boolean; machineMs?: number } | undefined;
  /** The run's journal file: kept after the run (noteLater), the same command resumes it first. */
  protected journalPath: string | undefined;
  /** A resumed run with `unsure` (later): the queued entries of the minute after its start, which it may have counted. */
  protected unsureQueued = 0;
  /**
   * The run's entries were dead-lettered before this (ISO, exclusive): the end of its start's
   * second, once forRun knows it. Every listing of the run's entries stops there (query), a new
   * run's as a resumed one's: an entry dead-lettered after the run started (another run's replay
   * that failed again, a live failure) is a new run's, never this one's.
   */
  #runEnd: string | undefined;
  /**
   * A new run: the queued entries dead-lettered from `sinceMs` (the second it starts in, on the
   * platform's clock), by id, listed as it starts. The API's times are whole seconds, so the
   * run's `until` (#runEnd) takes in its start's whole second: an entry of those seconds the run
   * did not list then was dead-lettered after it started (another run's replay that failed again
   * at once), and is a new run's.
   */
  protected recent: { sinceMs: number; ids: Set<string> } | undefined;
  /** The filters with --since/--until as instants, once forRun has counted them from the run's anchor. */
  #resolved: DlqFilters | undefined;

  constructor(
    protected readonly platform: Platform,
    protected readonly webhook: string,
    private readonly flags: DlqFilterFlags,
    /** --limit: at most this many entries are handed out. */
    private readonly limit: number | undefined,
  ) {}

  /** How many queued entries match now (the snapshot's bound); at most --limit. */
  async count(signal?: AbortSignal): Promise<number> {
    const total = await this.platform.webhooks.dlq.count(this.webhook, this.query(), { signal });
    this.bound = total;
    return this.limitLeft === undefined ? total : Math.max(0, Math.min(total, this.limitLeft));
  }

  /**
   * The entries left to do in the run `journal` is of, counted. A new run's are the queue as it is
   * now, and its start on the platform's clock goes in the journal's first line; a resumed run's
   * are those still queued that were dead-lettered before its first start (to the second), at
   * most --limit less what it did, never one of a delivery its replays made (ours); the newer ones
   * are counted for noteLater. --since/--until durations count back from the run's anchor.
   */
  async forRun(ctx: Context, journal: Journal, machineNow: () => number): Promise<number> {
    await this.#resolve(ctx, journal);
    this.journalPath = journal.path;
    if (!journal.run.resumed) {
      await this.#listRecent(machineNow);
      const count = await this.count();
      // After the count: every entry it counted was dead-lettered by then. (One dead-lettered
      // during the count of a run whose durations took the anchor before it is counted by
      // noteLater, not lost.)
      const anchorMs = journal.anchor(() => platformTime(this.platform, machineNow()));
      // Dead-lettered in the second the run started in: part of it (the API's times are whole
      // seconds). That second on the platform's clock, the one entries are timed on, as the count's
      // answer gave it (its Date header), however few seconds it is off this machine's: a clock a
      // second ahead must not leave out what was just counted, nor one behind take what is newer.
      // Kept in the journal (platform_started_at): the run resumed takes exactly this window.
      const offset = this.platform.serverClockOffsetMs;
      const startMs = journal.platformStart(() => (offset === undefined ? anchorMs : machineNow() + offset));
      this.#runEnd = isoSeconds(startMs + 1000);
      this.later = { started: isoSeconds(startMs), startMs, unsure: false };
      return count;
    }
    // The deliveries the earlier run's replays made: an entry of one is never this run's.
    for (const done of journal.finished()) {
      if (typeof done.new_delivery_id === 'string') this.ours.add(done.new_delivery_id);
    }
    // The window its first start fixed on the platform's clock (Journal.platformStart), never this
    // machine's clock. A journal written before svc kept it: the earliest its start could have been
    // on the platform's clock (olderStart, older-journal.ts), and the entries of the minute after
    // that it may have counted are said (resumeNote, noteLater).
    // An older svc's anchor a minute or more from its start is the platform's start (it took the
    // platform's clock then): known as well as a kept one, said so, nothing hedged (review17 F7).
    const kept = journal.knownPlatformStart() ?? platformAnchor(journal);
    const older = kept === undefined ? await olderStart(this.platform, journal) : undefined;
    const startMs = kept ?? older!.startMs;
    // Dead-lettered in the second the run started in: part of it (the API's times are whole seconds).
    this.#runEnd = isoSeconds(startMs + 1000);
    this.#taken = journal.earlier().length;
    // The queue's count and what the stopped run owes, from one read (#owed); first, since it adds
    // to `ours` the replays made of the entries the stopped run took.
    const owed = await this.#owed(journal);
    // The run's own replays that failed again in that second are in the window, but not the run's:
    // the listing skips them (ours), and noteLater counts them with the newer entries, a new run's.
    const own = await this.ownInSecond(startMs);
    // Named on the platform's clock, the one the entries it counts are timed on (`dlq ls --since`).
    this.later = {
      started: isoSeconds(startMs),
      startMs,
      unsure: kept === undefined,
      ...(older && older.machineMs !== startMs ? { machineMs: older.machineMs } : {}),
    };
    if (older) {
      // Up to a minute after its anchor on this machine's clock (the two were under a minute apart).
      const endMs = older.machineMs + 1000 + CLOCK_SKEW_MS;
      const minute = this.between(startMs + 1000, endMs);
      const inMinute = [...this.outside.values()].filter(
        (entry) => serverTime(entry.dead_lettered_at) < endMs,
      ).length;
      this.unsureQueued = minute
        ? (await this.platform.webhooks.dlq.count(this.webhook, minute)) - inMinute
        : 0;
    }
    const left = (this.bound ?? 0) - own;
    const limit = this.limitLeft;
    return (limit === undefined ? left : Math.max(0, Math.min(left, limit))) + owed;
  }

  /**
   * Counts the queue (`bound`) and how many rows a resumed run owes for entries the run it resumes
   * took (its plan) and did not finish that are no longer queued, as of one read of the queue's
   * head: another run draining the queue meanwhile cannot make an entry count in both (queued
   * when counted, gone when looked up) or in neither. The stopped run took the oldest entries, so
   * those still queued are on that page (its total is the count); each one not on it is looked up
   * as it is now (stoppedNow, the rule planned() gives their rows by) and kept for planned(). A
   * replay made of one while the run was stopped (by another run, or by that run, its answer lost)
   * is the run's own from now on (`ours`): its delivery dead-lettered again in the second the run
   * started is not taken again. One that leaves the queue after the read is in `bound` (planned()
   * looks it up again, for its row). (A plan of more than a page can have a queued entry past it,
   * looked up: one that leaves between the two reads counts twice; a run plans a page at a time.)
   */
  async #owed(journal: Journal): Promise<number> {
    const undone = [...journal.planned()].filter((id) => !journal.has(id));
    const head = await this.platform.webhooks.dlq.list(this.webhook, {
      ...this.query(),
      limit: undone.length === 0 ? 1 : PAGE,
    });
    // A server without `total`: the queue counted by a listing of its own (its head may have moved
    // between the two reads; the run's re-reads (RunEntries.#again) take what the bound left).
    this.bound = head.total ?? (await this.platform.webhooks.dlq.count(this.webhook, this.query()));
    const queued = new Set(head.items.map((entry) => entry.id));
    const missing = undone.filter((id) => !queued.has(id));
    const endMs = this.#runEnd === undefined ? undefined : serverTime(this.#runEnd);
    for (let i = 0; i < missing.length; i += LOOKUPS) {
      const now = await Promise.all(missing.slice(i, i + LOOKUPS).map((id) => this.#lookUp(id)));
      for (const [j, found] of now.entries()) {
        const id = missing[i + j]!;
        if (!('status' in found)) this.stopped.set(id, found);
        else if (endMs !== undefined && serverTime(found.dead_lettered_at) >= endMs)
          this.outside.set(id, found);
        else this.stopped.set(id, undefined);
      }
    }
    let owed = this.outside.size;
    for (const left of this.stopped.values()) {
      if (left === undefined) continue;
      owed++;
      const as = 'gone' in left && 'replayed_as' in left.gone ? left.gone.replayed_as : undefined;
      if (as !== undefined) this.ours.add(as);
    }
    return owed;
  }

  /** A planned entry as it is now: gone from the queue (what became of it), its look-up's error, or undefined while queued. */
  protected async stoppedNow(id: string): Promise<Planned | undefined> {
    const found = await this.#lookUp(id);
    return 'status' in found ? undefined : found;
  }

  /** A planned entry as it is now: gone (stoppedNow), or the entry while it is queued. */
  async #lookUp(id: string): Promise<Planned | DlqEntry> {
    let entry: DlqEntry;
    try {
      entry = await this.platform.webhooks.dlq.get(this.webhook, id);
    } catch (error) {
      return error instanceof DlqEntryNotFoundError ? { id, gone: { reason: 'not_found' } } : { id, error };
    }
    const gone = whyGone(entry);
    return gone ? { id, entry, gone } : entry;
  }

  /**
   * --since/--until as instants: durations count back from the run's anchor (journalAnchor: on the
   * platform's clock, the one entries are dead-lettered on; a resumed run's from its first start),
   * and the instants are said, so a dry run shows what the run would take.
   */
  async #resolve(ctx: Context, journal: Journal): Promise<void> {
    const durations = durationsGiven(this.flags);
    const anchorMs =
      durations === undefined ? undefined : await journalAnchor(ctx, this.platform, journal, durations);
    // Without a duration only instants are given: the time they would count from is not used.
    const times = timesAt(this.flags, anchorMs ?? 0);
    this.#resolved = { ...this.flags, ...times };
    if (anchorMs === undefined) return;
    const said = (['since', 'until'] as const).flatMap((flag) => {
      const spec = this.flags[flag];
      return spec && 'agoMs' in spec ? [`--${flag} ${spec.text} is ${times[flag]}`] : [];
    });
    ctx.out.info(`${said.join(' and ')}, counted from the run's start (${isoSeconds(anchorMs)})`);
  }

  get #filters(): DlqFilters {
    if (!this.#resolved) throw new Error('QueueSnapshot: forRun() resolves the filters first');
    return this.#resolved;
  }

  /** The query of the queued entries that match the filters and were dead-lettered from `fromMs` (before `toMs`); undefined: none can. */
  protected between(fromMs: number, toMs: number | undefined) {
    const { since, until } = this.#filters;
    const from = since !== undefined && serverTime(since) > fromMs ? since : isoSeconds(fromMs);
    const to =
      toMs !== undefined && (until === undefined || serverTime(until) > toMs) ? isoSeconds(toMs) : until;
    if (to !== undefined && serverTime(to) <= serverTime(from)) return undefined;
    return {
      ...dlqQuery(this.#filters),
      status: 'queued' as const,
      since: from,
      ...(to ? { until: to } : {}),
    };
  }

  /** A new run, as it starts: the queued entries of the seconds before, by id (recent). */
  async #listRecent(machineNow: () => number): Promise<void> {
    // The platform's time from a Date header (whole seconds) is never later than its clock: its
    // second is the run's start's, or one before. This machine's may be off either way.
    const offset = this.platform.serverClockOffsetMs;
    const sinceMs =
      Math.floor((machineNow() + (offset ?? 0)) / 1000) * 1000 - (offset === undefined ? RECENT_MS : 0);
    const ids = new Set<string>();
    const query = this.between(sinceMs, undefined);
    if (query) {
      for await (const entry of this.platform.webhooks.dlq.listAll(this.webhook, { ...query, limit: PAGE })) {
        ids.add(entry.id);
      }
    }
    this.recent = { sinceMs, ids };
  }

  /** Queued entries of a delivery this run (or the run it resumes) made, dead-lettered in the second it started. */
  protected async ownInSecond(startMs: number): Promise<number> {
    const second = this.between(startMs, startMs + 1000);
    if (this.ours.size === 0 || !second) return 0;
    let own = 0;
    for await (const entry of this.platform.webhooks.dlq.listAll(this.webhook, { ...second, limit: PAGE })) {
      if (this.ours.has(entry.delivery_id)) own++;
    }
    return own;
  }

  /** --limit less what the run this one resumes did. */
  protected get limitLeft(): number | undefined {
    return this.limit === undefined ? undefined : this.limit - this.#taken;
  }

  /** The listing of the run's entries: the filters, and dead-lettered before the run's end once it is known (#runEnd). */
  protected query() {
    const query = { ...dlqQuery(this.#filters), status: 'queued' as const };
    const end = this.#runEnd;
    if (end !== undefined && (query.until === undefined || serverTime(query.until) > serverTime(end))) {
      query.until = end;
    }
    return query;
  }
}
