/**
 * The queue as one run sees it (QueueSnapshot): its window (run-window.ts), the entries it takes
 * (run-entries.ts), its replays as entries (entry-replay.ts), and what it says of the queue after:
 * what a resumed run may have counted, and the entries newer than it (a new run's).
 */
import { existsSync } from 'node:fs';
import type { WebhookDelivery } from '../../../api/schemas/webhooks.js';
import { isoSeconds } from '../../../api/time.js';
import type { WorkCall } from '../../../bulk/item.js';
import type { Context } from '../../../context.js';
import { describeError, OutputCutError, PartialFailureError } from '../../../errors.js';
import type { WithResponse } from '../../../platform/api-promise.js';
import type { Platform } from '../../../platform/index.js';
import { EntryReplays } from './entry-replay.js';
import type { LeftQueue } from './left.js';
import { RunEntries } from './run-entries.js';
import { PAGE } from './run-window.js';

/**
 * The queued entries a bulk run works on (RunWindow: the queue as it was when the run started),
 * handed out (RunEntries), replayed as entries, and what the run owes the user about the queue after.
 */
export class QueueSnapshot extends RunEntries {
  /** The run's replays as entries (EntryReplays): a server that refuses dlq_entry_id is learnt once. */
  readonly #replays = new EntryReplays(this.platform, this.webhook);

  /**
   * A resumed run whose journal, written before svc kept the platform's clock, has queued entries
   * dead-lettered in the minute after its start (by this machine's clock then): some may be ones
   * its first run counted. What its first line says of them (never a bare "0 to do").
   */
  resumeNote(): string | undefined {
    const count = this.unsureQueued;
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
    if (!this.later) return;
    const { started, startMs, unsure, machineMs } = this.later;
    if (dryRun && !unsure && this.recent !== undefined) return;
    // A run whose journal is kept (outcomes unknown, replays not followed) is what the same command
    // resumes: that resumed run does not take them either.
    const kept = !dryRun && this.journalPath !== undefined && existsSync(this.journalPath);
    const again = kept
      ? `the same command resumes this run first (its journal is kept), then run it again to ${act} them (a new run)`
      : `run the same command again to ${act} them (a new run)`;
    let count: number;
    let own: number;
    try {
      const since = this.between(startMs + 1000, undefined);
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
   * its own replays: a new run's, those it did not list by id as it started (recent: of the
   * seconds before too), its own among them told as #newerSince tells them (else the words said of
   * its replays that came back depended on whether the second had turned by then); a resumed
   * run's, its own replays (ownInSecond; it cannot tell others of that second).
   */
  async #newInSecond(startMs: number): Promise<{ count: number; own: number }> {
    const recent = this.recent;
    if (recent === undefined) {
      const own = await this.ownInSecond(startMs);
      return { count: own, own };
    }
    const seconds = this.between(recent.sinceMs, startMs + 1000);
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

  /**
   * Replays an entry's delivery as that entry (dlq_entry_id): only while it is queued, so a replay
   * or discard by another run that came first is not repeated (409 dlq_entry_not_queued), and the
   * answer says what happened to the entry instead. A server that refuses the field (a 400 or 422
   * naming it) gets plain replays from then on, with a key of their own (still this run's alone:
   * two runs at once may each replay an entry there, each saying so truthfully).
   */
  replay(
    entry: string,
    delivery: string,
    call: WorkCall,
  ): Promise<WithResponse<WebhookDelivery> | { left: LeftQueue }> {
    return this.#replays.replay(entry, delivery, call);
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
