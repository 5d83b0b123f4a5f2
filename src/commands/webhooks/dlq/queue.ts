// Over 300 lines on purpose: the queue as one run sees it (its bound, a resumed run's window and
// the newer entries it leaves, replays as entries, what left the queue) is one object's state.
import { existsSync } from 'node:fs';
import type { DlqEntry, WebhookDelivery } from '../../../api/schemas/webhooks.js';
import { isoSeconds, serverTime } from '../../../api/time.js';
import type { Journal } from '../../../bulk/journal.js';
import type { WorkCall } from '../../../bulk/runner.js';
import type { Context } from '../../../context.js';
import { describeError, OutputCutError, PartialFailureError, SvcError } from '../../../errors.js';
import { BadRequestError, UnprocessableEntityError } from '../../../http/errors.js';
import { deriveIdempotencyKey } from '../../../http/idempotency.js';
import { itemKey } from '../../../http/item-key.js';
import { counted } from '../../../output/format.js';
import type { WithResponse } from '../../../platform/api-promise.js';
import { CLOCK_SKEW_MS, platformTime } from '../../../platform/clock.js';
import { DlqEntryNotFoundError, DlqEntryNotQueuedError } from '../../../platform/errors.js';
import type { Platform } from '../../../platform/index.js';
import { journalAnchor, learnPlatformClock } from '../../platform-clock.js';
import { durationsGiven, timesAt } from '../../time-flags.js';
import { type DlqFilterFlags, type DlqFilters, dlqQuery } from './filters.js';
import type { LeftQueue, Planned } from './left.js';

/** Entries are read from the API in pages of this size; --limit counts entries, not pages. */
const PAGE = 200;
/** Entries a resumed run looks up at once (#owed). */
const LOOKUPS = 8;
/** Without the platform's clock (no Date header), a new run lists by id the entries of this many ms before its start's second (#recent). */
const RECENT_MS = 2000;

/**
 * The platform's start of a run whose journal an earlier svc wrote (no platform_started_at): its
 * anchor when that is a minute or more from its start, as svc took the platform's clock then;
 * undefined when the two were under a minute apart (the anchor is this machine's then).
 */
function platformAnchor(journal: Journal): number | undefined {
  const anchorMs = journal.anchor(() => journal.run.startedAtMs);
  return Math.abs(anchorMs - journal.run.startedAtMs) >= CLOCK_SKEW_MS ? anchorMs : undefined;
}

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
export class QueueSnapshot {
  #bound: number | undefined;
  readonly ours = new Set<string>();
  /** Entries of the snapshot found gone from the queue when this run came to them. */
  #left = 0;
  /** Entries the run it resumes meant to do, found gone from the queue (see planned()). */
  #leftWhileStopped = 0;
  /** A resumed run: each entry the run it resumes took and did not finish, as forRun found it (#owed). */
  readonly #stopped = new Map<string, Planned | undefined>();
  /**
   * A resumed run: entries the run it resumes took (its plan) that are still queued but dead-lettered
   * at or after the window's end (a journal from before svc kept the platform's clock, whose window
   * is on this machine's clock): the run's all the same, since its first run listed them in its window.
   */
  readonly #outside = new Map<string, DlqEntry>();
  /** The server takes dlq_entry_id on a replay (until it refuses the field). */
  #asEntry = true;
  /** Entries the run it resumes did: they count against --limit. */
  #taken = 0;
  /**
   * When the run started (ISO, and ms on the platform's clock; a resumed run's, its first start):
   * noteLater counts what is newer. `unsure`: a resumed run whose journal, written before svc kept
   * the platform's clock (Journal.platformStart), has its start on this machine's clock; `machineMs`:
   * that start, when the window starts earlier (#olderStart).
   */
  #later: { started: string; startMs: number; unsure: boolean; machineMs?: number } | undefined;
  /** The run's journal file: kept after the run (noteLater), the same command resumes it first. */
  #journalPath: string | undefined;
  /** A resumed run with `unsure` (#later): the queued entries of the minute after its start, which it may have counted. */
  #unsureQueued = 0;
  /**
   * The run's entries were dead-lettered before this (ISO, exclusive): the end of its start's
   * second, once forRun knows it. Every listing of the run's entries stops there (#query), a new
   * run's as a resumed one's: an entry dead-lettered after the run started (another run's replay
   * that failed again, a live failure) is a new run's, never this one's.
   */
  #runEnd: string | undefined;
  /** Every entry the run took from the listing (entries()): none is taken twice. */
  readonly #handed = new Set<string>();
  /**
   * A new run: the queued entries dead-lettered from `sinceMs` (the second it starts in, on the
   * platform's clock), by id, listed as it starts. The API's times are whole seconds, so the
   * run's `until` (#runEnd) takes in its start's whole second: an entry of those seconds the run
   * did not list then was dead-lettered after it started (another run's replay that failed again
   * at once), and is a new run's.
   */
  #recent: { sinceMs: number; ids: Set<string> } | undefined;
  /** The filters with --since/--until as instants, once forRun has counted them from the run's anchor. */
  #resolved: DlqFilters | undefined;

  constructor(
    private readonly platform: Platform,
    private readonly webhook: string,
    private readonly flags: DlqFilterFlags,
    /** --limit: at most this many entries are handed out. */
    private readonly limit: number | undefined,
  ) {}

  /** How many queued entries match now (the snapshot's bound); at most --limit. */
  async count(signal?: AbortSignal): Promise<number> {
    const total = await this.platform.webhooks.dlq.count(this.webhook, this.#query(), { signal });
    this.#bound = total;
    return this.#limit === undefined ? total : Math.max(0, Math.min(total, this.#limit));
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
    this.#journalPath = journal.path;
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
      this.#later = { started: isoSeconds(startMs), startMs, unsure: false };
      return count;
    }
    // The deliveries the earlier run's replays made: an entry of one is never this run's.
    for (const done of journal.finished()) {
      if (typeof done.new_delivery_id === 'string') this.ours.add(done.new_delivery_id);
    }
    // The window its first start fixed on the platform's clock (Journal.platformStart), never this
    // machine's clock. A journal written before svc kept it: the earliest its start could have been
    // on the platform's clock (#olderStart), and the entries of the minute after that it may have
    // counted are said (resumeNote, noteLater).
    // An older svc's anchor a minute or more from its start is the platform's start (it took the
    // platform's clock then): known as well as a kept one, said so, nothing hedged (review17 F7).
    const kept = journal.knownPlatformStart() ?? platformAnchor(journal);
    const older = kept === undefined ? await this.#olderStart(journal) : undefined;
    const startMs = kept ?? older!.startMs;
    // Dead-lettered in the second the run started in: part of it (the API's times are whole seconds).
    this.#runEnd = isoSeconds(startMs + 1000);
    this.#taken = journal.earlier().length;
    // The queue's count and what the stopped run owes, from one read (#owed); first, since it adds
    // to `ours` the replays made of the entries the stopped run took.
    const owed = await this.#owed(journal);
    // The run's own replays that failed again in that second are in the window, but not the run's:
    // the listing skips them (ours), and noteLater counts them with the newer entries, a new run's.
    const own = await this.#ownInSecond(startMs);
    // Named on the platform's clock, the one the entries it counts are timed on (`dlq ls --since`).
    this.#later = {
      started: isoSeconds(startMs),
      startMs,
      unsure: kept === undefined,
      ...(older && older.machineMs !== startMs ? { machineMs: older.machineMs } : {}),
    };
    if (older) {
      // Up to a minute after its anchor on this machine's clock (the two were under a minute apart).
      const endMs = older.machineMs + 1000 + CLOCK_SKEW_MS;
      const minute = this.#between(startMs + 1000, endMs);
      const inMinute = [...this.#outside.values()].filter(
        (entry) => serverTime(entry.dead_lettered_at) < endMs,
      ).length;
      this.#unsureQueued = minute
        ? (await this.platform.webhooks.dlq.count(this.webhook, minute)) - inMinute
        : 0;
    }
    const left = (this.#bound ?? 0) - own;
    const limit = this.#limit;
    return (limit === undefined ? left : Math.max(0, Math.min(left, limit))) + owed;
  }

  /**
   * A resumed run whose journal an earlier svc wrote (no platform_started_at) with its anchor on
   * this machine's clock (platformAnchor: none on the platform's): the earliest its start could
   * have been on the platform's clock, so that it never takes an entry dead-lettered after it
   * started, whichever way this machine's clock was off: the earlier of it and it converted by how
   * far the platform's clock is off this machine's now (the Date header of an answer; a minute
   * without one). Entries after that, up to the minute after the anchor, it may have counted: said.
   */
  async #olderStart(journal: Journal): Promise<{ startMs: number; machineMs: number }> {
    const anchorMs = journal.anchor(() => journal.run.startedAtMs);
    await learnPlatformClock(this.platform);
    const offset = this.platform.serverClockOffsetMs ?? -CLOCK_SKEW_MS;
    const behind = Math.max(-CLOCK_SKEW_MS, Math.min(0, offset));
    return { startMs: Math.floor((anchorMs + behind) / 1000) * 1000, machineMs: anchorMs };
  }

  /**
   * Counts the queue (`bound`) and how many rows a resumed run owes for entries the run it resumes
   * took (its plan) and did not finish that are no longer queued, as of one read of the queue's
   * head: another run draining the queue meanwhile cannot make an entry count in both (queued
   * when counted, gone when looked up) or in neither. The stopped run took the oldest entries, so
   * those still queued are on that page (its total is the count); each one not on it is looked up
   * as it is now (#stoppedNow, the rule planned() gives their rows by) and kept for planned(). A
   * replay made of one while the run was stopped (by another run, or by that run, its answer lost)
   * is the run's own from now on (`ours`): its delivery dead-lettered again in the second the run
   * started is not taken again. One that leaves the queue after the read is in `bound` (planned()
   * looks it up again, for its row). (A plan of more than a page can have a queued entry past it,
   * looked up: one that leaves between the two reads counts twice; a run plans a page at a time.)
   */
  async #owed(journal: Journal): Promise<number> {
    const undone = [...journal.planned()].filter((id) => !journal.has(id));
    const head = await this.platform.webhooks.dlq.list(this.webhook, {
      ...this.#query(),
      limit: undone.length === 0 ? 1 : PAGE,
    });
    // A server without `total`: the queue counted by a listing of its own (its head may have moved
    // between the two reads; the run's re-reads (#again) take what the bound left).
    this.#bound = head.total ?? (await this.platform.webhooks.dlq.count(this.webhook, this.#query()));
    const queued = new Set(head.items.map((entry) => entry.id));
    const missing = undone.filter((id) => !queued.has(id));
    const endMs = this.#runEnd === undefined ? undefined : serverTime(this.#runEnd);
    for (let i = 0; i < missing.length; i += LOOKUPS) {
      const now = await Promise.all(missing.slice(i, i + LOOKUPS).map((id) => this.#lookUp(id)));
      for (const [j, found] of now.entries()) {
        const id = missing[i + j]!;
        if (!('status' in found)) this.#stopped.set(id, found);
        else if (endMs !== undefined && serverTime(found.dead_lettered_at) >= endMs)
          this.#outside.set(id, found);
        else this.#stopped.set(id, undefined);
      }
    }
    let owed = this.#outside.size;
    for (const left of this.#stopped.values()) {
      if (left === undefined) continue;
      owed++;
      const as = 'gone' in left && 'replayed_as' in left.gone ? left.gone.replayed_as : undefined;
      if (as !== undefined) this.ours.add(as);
    }
    return owed;
  }

  /** A planned entry as it is now: gone from the queue (what became of it), its look-up's error, or undefined while queued. */
  async #stoppedNow(id: string): Promise<Planned | undefined> {
    const found = await this.#lookUp(id);
    return 'status' in found ? undefined : found;
  }

  /** A planned entry as it is now: gone (#stoppedNow), or the entry while it is queued. */
  async #lookUp(id: string): Promise<Planned | DlqEntry> {
    let entry: DlqEntry;
    try {
      entry = await this.platform.webhooks.dlq.get(this.webhook, id);
    } catch (error) {
      return error instanceof DlqEntryNotFoundError ? { id, gone: { reason: 'not_found' } } : { id, error };
    }
    const gone = QueueSnapshot.gone(entry);
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
  #between(fromMs: number, toMs: number | undefined) {
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

  /** A new run, as it starts: the queued entries of the seconds before, by id (#recent). */
  async #listRecent(machineNow: () => number): Promise<void> {
    // The platform's time from a Date header (whole seconds) is never later than its clock: its
    // second is the run's start's, or one before. This machine's may be off either way.
    const offset = this.platform.serverClockOffsetMs;
    const sinceMs =
      Math.floor((machineNow() + (offset ?? 0)) / 1000) * 1000 - (offset === undefined ? RECENT_MS : 0);
    const ids = new Set<string>();
    const query = this.#between(sinceMs, undefined);
    if (query) {
      for await (const entry of this.platform.webhooks.dlq.listAll(this.webhook, { ...query, limit: PAGE })) {
        ids.add(entry.id);
      }
    }
    this.#recent = { sinceMs, ids };
  }

  /** Queued entries of a delivery this run (or the run it resumes) made, dead-lettered in the second it started. */
  async #ownInSecond(startMs: number): Promise<number> {
    const second = this.#between(startMs, startMs + 1000);
    if (this.ours.size === 0 || !second) return 0;
    let own = 0;
    for await (const entry of this.platform.webhooks.dlq.listAll(this.webhook, { ...second, limit: PAGE })) {
      if (this.ours.has(entry.delivery_id)) own++;
    }
    return own;
  }

  /**
   * A resumed run whose journal, written before svc kept the platform's clock, has queued entries
   * dead-lettered in the minute after its start (by this machine's clock then): some may be ones
   * its first run counted. What its first line says of them (never a bare "0 to do").
   */
  resumeNote(): string | undefined {
    const count = this.#unsureQueued;
    if (count === 0) return undefined;
    const [entries, they] = count === 1 ? ['entry', 'it is'] : ['entries', 'they are'];
    return `${count.toLocaleString('en')} queued ${entries} dead-lettered in the minute after it started may be ones it counted, but its journal, from an earlier svc, kept its start on this machine's clock only: not part of this run, ${they} left queued (said again at its end)`;
  }

  /**
   * After a run, new or resumed (ended, or ended with failures; not a new run's dry run, which
   * changes nothing): the entries dead-lettered since it started are not part of it, but a new
   * run's. Counted now, when it is said: among them are its own replays that failed and came back
   * to the queue while it ran (the run it resumes' too). A resumed run's journal written before
   * svc kept the platform's clock (`unsure`): they may include entries its first run counted.
   */
  async noteLater(ctx: Context, act: string, dryRun = false): Promise<void> {
    if (!this.#later) return;
    const { started, startMs, unsure, machineMs } = this.#later;
    if (dryRun && !unsure && this.#recent !== undefined) return;
    // A run whose journal is kept (outcomes unknown, replays not followed) is what the same command
    // resumes: that resumed run does not take them either.
    const kept = !dryRun && this.#journalPath !== undefined && existsSync(this.#journalPath);
    const again = kept
      ? `the same command resumes this run first (its journal is kept), then run it again to ${act} them (a new run)`
      : `run the same command again to ${act} them (a new run)`;
    let count: number;
    let own: number;
    try {
      const since = this.#between(startMs + 1000, undefined);
      const newer = since ? await this.#newerSince(since) : { count: 0, own: 0 };
      const inSecond = await this.#newInSecond(startMs);
      count = newer.count + inSecond.count;
      own = newer.own + inSecond.own;
    } catch (error) {
      ctx.out.info(
        `entries dead-lettered since the run started (${started}), if any, are not part of it (counting them failed: ${describeError(error)}): ${again}`,
      );
      return;
    }
    if (count === 0) return;
    const [entries, are] = count === 1 ? ['entry', 'is'] : ['entries', 'are'];
    if (unsure) {
      ctx.out.info(
        `${count.toLocaleString('en')} ${entries} dead-lettered since the run started (${machineMs === undefined ? `${started}, on this machine's clock:` : `${isoSeconds(machineMs)} on this machine's clock; counted from ${started}, the earliest it could have been on the platform's:`} its journal, from an earlier svc, did not keep the platform's) ${are} still queued, not part of it, and some may be ones it counted: ${again}`,
      );
      return;
    }
    ctx.out.info(
      `${count.toLocaleString('en')} ${entries} dead-lettered since the run started (${started}) ${are} not part of it${ownWords(own, count)}: ${again}`,
    );
  }

  /**
   * The entries dead-lettered in `since`, and how many of them are this run's own replays (ours),
   * listed only when it made some (else the server's count: one request).
   */
  async #newerSince(
    since: NonNullable<Parameters<Platform['webhooks']['dlq']['listAll']>[1]>,
  ): Promise<{ count: number; own: number }> {
    if (this.ours.size === 0)
      return { count: await this.platform.webhooks.dlq.count(this.webhook, since), own: 0 };
    const seen = new Set<string>();
    let own = 0;
    for await (const entry of this.platform.webhooks.dlq.listAll(this.webhook, { ...since, limit: PAGE })) {
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      if (this.ours.has(entry.delivery_id)) own++;
    }
    return { count: seen.size, own };
  }

  /**
   * The queued entries of the run's start second that are newer than it, and how many of them are
   * its own replays: a new run's, those it did not list by id as it started (#recent: of the
   * seconds before too), its own among them told as #newerSince tells them (else the words said of
   * its replays that came back depended on whether the second had turned by then); a resumed
   * run's, its own replays (#ownInSecond; it cannot tell others of that second).
   */
  async #newInSecond(startMs: number): Promise<{ count: number; own: number }> {
    const recent = this.#recent;
    if (recent === undefined) {
      const own = await this.#ownInSecond(startMs);
      return { count: own, own };
    }
    const seconds = this.#between(recent.sinceMs, startMs + 1000);
    if (!seconds) return { count: 0, own: 0 };
    let count = 0;
    let own = 0;
    for await (const entry of this.platform.webhooks.dlq.listAll(this.webhook, { ...seconds, limit: PAGE })) {
      if (recent.ids.has(entry.id)) continue;
      count++;
      if (this.ours.has(entry.delivery_id)) own++;
    }
    return { count, own };
  }

  /** --limit less what the run this one resumes did. */
  get #limit(): number | undefined {
    return this.limit === undefined ? undefined : this.limit - this.#taken;
  }

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
    if (this.#bound === undefined) await this.count(signal);
    const bound = this.#bound ?? 0;
    let listed = 0;
    let over = false;
    let page: DlqEntry[] = [];
    // Entries count against the bound once: a page that repeats one (an offset that overlaps the
    // page before) must not end the run an entry short, believing the queue drained.
    const distinct = new Set<string>();
    const pages = this.platform.webhooks.dlq.listAll(
      this.webhook,
      { ...this.#query(), limit: PAGE },
      { signal },
      ({ items }) => {
        const limit = this.#limit;
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
    const until = this.#query().until;
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
      if (newer(entry, untilMs, this.#recent)) continue;
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
    const cap = () => Math.min(bound, this.#limit ?? bound);
    const query = { ...this.#query(), limit: PAGE };
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
   * was lost), looked up for what became of it; one still queued after the run's window (#outside:
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
      const outside = this.#outside.get(id);
      if (outside) {
        // The run's, though after its window (#outside): done now (gone since, its row says so).
        this.#handed.add(id);
        yield { queued: outside };
        continue;
      }
      // As forRun found it (#owed); one queued then is looked up again: it may have left since.
      const left = this.#stopped.get(id) ?? (await this.#stoppedNow(id));
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
  static shared(kind: string, entry: DlqEntry, run?: string): string {
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

  /** The listing of the run's entries: the filters, and dead-lettered before the run's end once it is known (#runEnd). */
  #query() {
    const query = { ...dlqQuery(this.#filters), status: 'queued' as const };
    const end = this.#runEnd;
    if (end !== undefined && (query.until === undefined || serverTime(query.until) > serverTime(end))) {
      query.until = end;
    }
    return query;
  }
}

/**
 * A bulk run over a queue, then what it owes the user about the queue. With `done` (not a dry
 * run), the rows of entries that had left the queue are counted (noteLeftWhileStopped, noteLeft),
 * whether the run ended well or with failed items; a run ended with failed items (or one whose
 * output only was cut after every item was done: 141) also names, for
 * a resumed queue run, the entries newer than it (noteLater) before that error is said (a run
 * that ends well names them itself, after its own lines).
 */
export async function withLaterNoted<T>(
  ctx: Context,
  queue: QueueSnapshot | undefined,
  act: string,
  run: Promise<T>,
  done?: string,
): Promise<T> {
  const noteLeft = () => {
    if (done === undefined) return;
    queue?.noteLeftWhileStopped(ctx, done);
    queue?.noteLeft(ctx, done);
  };
  let result: T;
  try {
    result = await run;
  } catch (error) {
    // Failed items, or only the output cut after every item was done (141): the run's end all the same.
    if (error instanceof PartialFailureError || error instanceof OutputCutError) {
      noteLeft();
      await queue?.noteLater(ctx, act, done === undefined);
    }
    throw error;
  }
  if (result) noteLeft();
  return result;
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

/** A validation refusal of the dlq_entry_id field itself: a server without it (not one that says the entry is gone). */
export function refusesEntryField(error: unknown): boolean {
  return (
    (error instanceof BadRequestError || error instanceof UnprocessableEntityError) &&
    JSON.stringify([error.message, error.details ?? null]).includes('dlq_entry_id')
  );
}

/**
 * What of the entries dead-lettered since a run started are replays of its entries (its own, or,
 * for a resumed run, made of the entries it took), which failed again and came back to the queue
 * (attack27b F4: they were only "not part of it", beside the failure line's "retrying", read
 * before they came back).
 */
function ownWords(own: number, count: number): string {
  if (own === 0) return '';
  const back = 'which failed again and came back to the queue after svc last read them';
  if (own === count)
    return count === 1
      ? ` (it is a replay of this run's entries, ${back})`
      : ` (they are replays of this run's entries, ${back})`;
  return ` (${own.toLocaleString('en')} of them ${own === 1 ? 'is a replay' : 'are replays'} of this run's entries, ${back})`;
}
