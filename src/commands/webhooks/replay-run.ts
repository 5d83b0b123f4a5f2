// Over 300 lines (409): the run's BulkVerb (what each item is, how it is done, followed and
// said, a resumed run's rows included) is closures over one run's state and reads as one; the
// verb's flags and help are replay.ts, what it works on replay-targets.ts.
import type { CallerAuthority } from '../../api/caller-authority.js';
import type { Worker } from '../../bulk/item.js';
import { type BulkVerb, runBulkOperation } from '../../bulk/operation.js';
import { commandLine, svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { InterruptedError, OutputCutError, PartialFailureError, SvcError } from '../../errors.js';
import { counted } from '../../output/format.js';
import { withEnableHint } from '../../platform/errors.js';
import { withConcurrency } from '../../system/command-scope.js';
import { shellWord } from '../../system/shell-words.js';
import type { BulkFlags } from '../bulk-flags.js';
import { changedIn } from '../changed-in.js';
import { callerAuthority, refusedItem, UNCHECKED_HOLDINGS } from './caller.js';
import { deliveryState } from './delivery-state.js';
import { type DlqFilterFlags, refuseUnknownKind, unsubscribed } from './dlq/filters.js';
import { leftText } from './dlq/left.js';
import { QueueSnapshot, withLaterNoted } from './dlq/queue.js';
import {
  DeliveryUnreadError,
  deliveryOutcome,
  type FailedReplay,
  failedReplaysHint,
  followMade,
  followUnfollowed,
  madeBy,
  noneUnfollowed,
  UNFOLLOWED,
  type Unfollowed,
} from './follow.js';
import { Remedies } from './remedies.js';
import { discardedRefusal, lookUpNamed, type NamedTarget, namesEntry, replayNamed } from './replay-named.js';
import { type ReplayRow, ReplayWords, replayColumns } from './replay-rows.js';
import { entries, type Target } from './replay-targets.js';
import { refuseDisabledWebhook } from './shared.js';
import type { WaitFlags } from './wait-flags.js';

export interface ReplayOptions extends BulkFlags, WaitFlags {
  webhook: string;
  /** Delivery ids or dead-letter entry ids (dlq_…); empty with --dlq. */
  ids: string[];
  dlq: boolean;
  /** --since/--until durations count from the run's anchor (QueueSnapshot.forRun). */
  filters: DlqFilterFlags;
  /** The filters as typed: a journal is found again by them, even when --since is relative. */
  filterFlags: Array<string | undefined>;
  limit: number | undefined;
  /** --unlisted-event-type: --event-type is taken as given (refuseUnknownKind). */
  unlistedEventType: boolean;
  /** wait: follow each new delivery; undefined: yes on a terminal. */
}

/** The delivery and event a target holds, as far as they are known: kept on its row (and journal line). */
const about = (t: Target) => ({
  ...(t.delivery_id === undefined ? {} : { delivery_id: t.delivery_id }),
  ...(t.event_type === undefined ? {} : { event_type: t.event_type }),
  ...(t.event_id === undefined ? {} : { event_id: t.event_id }),
});

export function runReplay(ctx: Context, options: ReplayOptions): Promise<void> {
  return withConcurrency(() => replay(ctx, options));
}

async function replay(ctx: Context, options: ReplayOptions): Promise<void> {
  const platform = await ctx.platform();
  const { webhook } = options;
  const hook = await refuseDisabledWebhook(platform, webhook);
  if (options.dlq) {
    await refuseUnknownKind(platform, webhook, options.filters.eventType, options.unlistedEventType, hook);
  }
  /** A dry run's view of what the caller holds (prepare): a replay the platform refuses them fails its row. */
  let authority: CallerAuthority | undefined;
  const refuseUnheld = (eventType: string | undefined) => {
    const refusal = authority?.replay([...(hook?.event_types ?? []), ...(eventType ? [eventType] : [])]);
    if (refusal) throw refusedItem(refusal);
  };
  const wait = options.wait ?? ctx.io.stdoutIsTTY;
  // A failed follow's remedy reads the webhook as it is then: once for the run, not once per row
  // (not `hook`: a stop during the run is what the remedy says).
  const remedies = new Remedies(platform);
  const queue = options.dlq
    ? new QueueSnapshot(platform, webhook, options.filters, options.limit)
    : undefined;
  /** Replays made whose deliveries failed (--wait), for the hint: what is true of them. */
  const failedReplays: FailedReplay[] = [];
  const words = new ReplayWords(wait, options.dryRun, options.waitTimeoutMs);
  /** Counts how a followed replay's delivery went: for the run's words, and the hint when it failed. */
  const followed = (id: string, outcome: Record<string, unknown>, journaled = false) => {
    const cut = outcome.follow as Unfollowed;
    if (cut === 'unknown_status') words.unknownStatuses.add(String(outcome.delivery_status));
    if (UNFOLLOWED.includes(cut)) words.unfollowed[cut]++;
    else if (outcome.status === undefined && !journaled) words.delivered++;
    if (outcome.status === 'failed') {
      const { next_retry_at } = (outcome.error ?? {}) as { next_retry_at?: string };
      failedReplays.push({ id, status: String(outcome.delivery_status), next_retry_at });
    }
  };
  /** Replays the run this one resumes made whose follow was cut, by why, not followed now (--no-wait). */
  const earlierUnfollowed: Record<Unfollowed, number> = noneUnfollowed();
  const earlierOwed = () => Object.values(earlierUnfollowed).reduce((a, b) => a + b, 0);
  let named = new Map<string, NamedTarget>();
  const delivery = async (target: Target) =>
    target.delivery_id ??
    (namesEntry(target) ? (await platform.webhooks.dlq.get(webhook, target.ref)).delivery_id : target.ref);

  /**
   * The row of an entry the run this one resumes took, replayed or gone while it was stopped, with
   * the delivery and event it holds (kept in the journal). With --wait a replay made then (maybe
   * by that run itself, its answer lost) has its delivery followed like the run's own, and one
   * that failed is a failed row; a dry run reads it as it is now (`timeoutMs` undefined), so it
   * says what the run will.
   */
  const stopped = async (data: Target, timeoutMs: number | undefined) => {
    const row: Record<string, unknown> = { ...about(data), ...queue!.leftWhileStopped(data.planned!) };
    const made = madeBy(row);
    if (!wait || made === undefined) return { row };
    // A read that fails (not Ctrl-C) fails the row unjournaled, saying what it is about: owed still.
    const outcome = await followMade(ctx, platform, remedies, webhook, made, timeoutMs).catch(
      (error: unknown) => {
        throw error instanceof DeliveryUnreadError
          ? error.about(leftText(row) ?? `replayed as ${made}`)
          : error;
      },
    );
    return { row: { ...row, ...outcome }, made, outcome };
  };

  /**
   * A journaled row whose replay's delivery had failed an attempt when the earlier run followed
   * it (retrying then, or dead-lettered): read as it is now, with or without --wait (nothing is
   * waited for), and counted by that: delivered since (by the platform's retry, or recovered by
   * a later replay), it is no failure; failing still, it fails its row as it is now (the hint
   * says what is true of it); not found, nothing is said of it. `failed_then` keeps what the
   * earlier run saw. A read that fails fails the row and it stays owed (the journal kept).
   */
  const failedThen = async (done: Record<string, unknown>) => {
    const made = madeBy(done)!;
    const outcome = await followMade(ctx, platform, remedies, webhook, made, undefined);
    if (!options.dryRun) followed(made, outcome, true);
    return {
      status: 'skipped',
      error: undefined,
      failed_then: done.delivery_status ?? 'failed',
      ...outcome,
    };
  };

  const work: Worker<Target> = async ({ data }, call) => {
    if (data.planned) {
      const { row, made, outcome } = await stopped(data, options.waitTimeoutMs);
      if (made !== undefined) followed(made, outcome, true);
      return row;
    }
    const { signal, idempotencyKey } = call;
    const original = await delivery(data);
    let answer: Awaited<ReturnType<NonNullable<typeof queue>['replay']>>;
    try {
      answer = queue
        ? await queue.replay(data.ref, original, call)
        : await replayNamed(platform, commandLine(ctx.settings()), webhook, data, original, {
            signal,
            idempotencyKey,
          });
    } catch (error) {
      // Disabled since the run started.
      throw withEnableHint(error, webhook, platform.svc);
    }
    // Gone from the queue since it was listed or read: another run (or a lost answer) came first.
    if ('left' in answer)
      return {
        delivery_id: original,
        ...(queue ? queue.left(answer.left) : { status: 'skipped', ...answer.left }),
      };
    const { data: made, response } = answer;
    queue?.ours.add(made.id);
    // The stored answer of a request of this item's key, which is this run's alone (a --dlq run's
    // too: attemptShared): its own replay, made by an attempt whose answer was lost or by
    // the run it resumes; followed and counted like any other, `replayed: true`.
    const detail = {
      delivery_id: original,
      new_delivery_id: made.id,
      event_type: made.event_type,
      event_id: made.event_id,
      ...call.replayed(response),
    };
    if (!wait) return detail;
    // Ctrl-C, a read with no answer or --wait-timeout stop only the follow: the replay was made,
    // its outcome unknown (`follow` says why; journaled: the resumed run follows it), never failed;
    // a read refused as every later row would be (connection, role, credential) halts after it.
    const outcome = await deliveryOutcome(
      ctx,
      platform,
      remedies,
      webhook,
      made,
      options.waitTimeoutMs,
      call.halt,
    );
    followed(made.id, outcome);
    return { ...detail, ...outcome };
  };
  const plan: Worker<Target> = async ({ data }) => {
    if (data.planned) return (await stopped(data, undefined)).row;
    if (queue) {
      refuseUnheld(data.event_type);
      return {};
    }
    if (data.entry?.status === 'discarded') {
      throw discardedRefusal(commandLine(ctx.settings()), webhook, data.ref, data.entry, data.delivery_id);
    }
    const found = await platform.webhooks.deliveries.get(webhook, await delivery(data));
    if (deliveryState(found) === 'in_flight') {
      // What the real run would be told (409 delivery_in_progress), with its exit code.
      throw new SvcError(
        'conflict',
        `delivery ${found.id} is still ${found.status}; it can be replayed once it settles`,
        {
          code: 'delivery_in_progress',
          hint: `follow it with: ${svcCommand(ctx.settings(), `webhooks deliveries ${shellWord(webhook)}`)}`,
        },
      );
    }
    refuseUnheld(found.event_type);
    return { delivery_id: found.id, event_type: found.event_type };
  };

  const verb: BulkVerb<Target, ReplayRow> = {
    kind: 'webhooks-replay',
    // Not --wait: following is how the run is shown (implied by a terminal), not which run it is,
    // so the same command typed into a pipe resumes a run cut on a terminal.
    identity: [webhook, options.dlq ? options.filterFlags : options.ids],
    journal: options.journal,
    dryRun: options.dryRun,
    concurrency: options.concurrency,
    words: {
      act: 'replay',
      doing: `replaying ${webhook}`,
      get done() {
        return words.done;
      },
    },
    // Webhooks live in a tenant: the summary names it as every ✓ line of a change does (changed-in.ts).
    // Read at the end: the question's words, or a slug an answer of the run gave (its GET /v1/me),
    // name the tenant (changedIn).
    where: () => changedIn(ctx.settings()),
    // A dry run that could not learn what the caller holds says its counts were not checked against it.
    unchecked: () => (options.dryRun && authority === undefined ? UNCHECKED_HOLDINGS : undefined),
    prepare: async (_run, journal) => {
      if (options.dryRun)
        authority = await callerAuthority(ctx, platform, 'which replays the platform refuses you');
      if (!queue) {
        const earlier = (ref: string) => journal.has(ref);
        const resumed = journal.run.resumed === true;
        named = await lookUpNamed(ctx, platform, webhook, options.ids, options.dryRun, earlier, resumed);
        return options.ids.length;
      }
      return queue.forRun(ctx, journal, () => ctx.clock.now());
    },
    items: (_run, journal, settled) =>
      queue
        ? entries(queue, journal, !options.dryRun, settled)
        : options.ids.map((ref) => ({ key: ref, data: { ref, ...named.get(ref) } })),
    // The entries a resumed --dlq run did have left the queue: each is a journal row all the same.
    ...(queue ? { resumeNote: () => queue.resumeNote() } : {}),
    ...(queue ? { fromJournal: (ref: string) => ({ key: ref, data: { ref, is_entry: true } }) } : {}),
    // A replay the earlier run made and did not follow to its end (owedFollow: cut, or not
    // waited for) is followed now: delivered, or failed (a failed row, exit 7, as without the
    // interruption), or not followed to its end again (its read gets no answer: never a failed
    // row, the replay was made; the journal stays). A dry run reads it as it is, so it says what
    // the run will.
    journaled: async (_item, done) => {
      // A replay the earlier run followed to a failed attempt: how its delivery is now (the
      // platform may have delivered it since, or dead-lettered it), never what was read then.
      if (done.status === 'failed' && madeBy(done) !== undefined) return failedThen(done);
      if (!wait) {
        // Not waiting now: its row says it was not followed then (why), and so does the run's
        // error (exit 7, the journal kept: the same command with --wait follows it); the state
        // its cut follow last read is not said as now.
        const cut = done.follow as Unfollowed;
        if (!UNFOLLOWED.includes(cut) || madeBy(done) === undefined) return undefined;
        earlierUnfollowed[cut]++;
        return { delivery_status: undefined, ...(cut === 'unreadable' ? { follow_error: undefined } : {}) };
      }
      const timeoutMs = options.dryRun ? undefined : options.waitTimeoutMs;
      let outcome: Record<string, unknown> | undefined;
      try {
        outcome = await followUnfollowed(ctx, platform, remedies, webhook, done, timeoutMs);
      } catch (error) {
        // This run's own replay (the one it resumes), its delivery not read now either: made, how
        // it went not known (not failed). One replayed while the run was stopped fails its row, as
        // in `stopped`: it may be another run's.
        if (!(error instanceof DeliveryUnreadError) || options.dryRun || done.while_stopped === true)
          throw error;
        const follow_error = { code: error.code, message: error.message };
        outcome = { delivery_status: undefined, follow: 'unreadable', follow_error };
      }
      if (outcome && !options.dryRun) followed(madeBy(done)!, outcome, true);
      return outcome;
    },
    work,
    plan,
    present: ({ status, plan: planned, key: _key, line: _line, ...result }, { data }) => {
      const { delivery_id, new_delivery_id, event_type, event_id, ...rest } = result as Partial<ReplayRow>;
      const entry = namesEntry(data) ? data.ref : undefined;
      // Done by the earlier run this one resumes: its note was for that run, not this one. Nor
      // is it true of the platform's stored answer (`replayed`): nothing was sent again; what was
      // read before was most likely that very replay, made by an attempt whose answer was lost.
      const earlier = result.reason === 'journal' || result.replayed === true;
      return {
        ...(planned === undefined ? { status } : { plan: planned }),
        delivery_id: delivery_id ?? data.delivery_id ?? (entry ? null : data.ref),
        ...(entry ? { dlq_entry_id: entry } : {}),
        ...(new_delivery_id ? { new_delivery_id } : {}),
        event_type: event_type ?? data.event_type ?? null,
        ...((event_id ?? data.event_id) ? { event_id: event_id ?? data.event_id } : {}),
        ...(earlier ? {} : data.note),
        ...rest,
      };
    },
    columns: replayColumns(webhook, commandLine(ctx.settings())),
    describe: (r) =>
      r.error?.remedy
        ? `${madeBy(r) ?? r.replayed_as} ${r.error.code} (${r.error.remedy})`
        : `${r.delivery_id ?? r.dlq_entry_id}: ${r.error?.message}`,
    retryHint: () =>
      [
        failedReplaysHint(commandLine(ctx.settings()), webhook, failedReplays),
        ...(words.notFollowed > 0 ? [`${notFollowed().message}: ${notFollowed().hint}`] : []),
      ].join('; '),
    single: !options.dlq && options.ids.length === 1,
    // Replays made but not followed to their end (Ctrl-C, no answer, --wait-timeout): the journal
    // stays, so the same command says how they went instead of replaying them again.
    keepJournal: () => words.notFollowed > 0 || earlierOwed() > 0,
    empty: `nothing to replay: no queued dead-letter entry matches${unsubscribed(hook, options.filters.eventType)}`,
  };
  // Replays made with --no-wait: said after the run, also when only its output was cut (141).
  const notFollowedNote = (made: number) => {
    if (wait || options.dryRun || made === 0) return;
    ctx.out.info(
      `their deliveries were not followed: see how they went with \`${svcCommand(ctx.settings(), `webhooks deliveries ${shellWord(webhook)}`)}\`, or pass --wait`,
    );
  };
  const summary = await withLaterNoted(
    ctx,
    queue,
    'replay',
    runBulkOperation(ctx, verb).catch((error: unknown) => {
      if (error instanceof OutputCutError) notFollowedNote(error.done);
      throw error;
    }),
    options.dryRun ? undefined : 'replayed',
  );
  if (summary) notFollowedNote(summary.ok);
  await queue?.noteLater(ctx, 'replay', options.dryRun);
  const cut = words.unfollowed.interrupted;
  if (summary && cut > 0) {
    // Every item was done, but Ctrl-C cut following some: the run was interrupted all the same.
    const [it, was] = cut === 1 ? ['it', 'was'] : ['they', 'were'];
    throw new InterruptedError(`interrupted while following ${counted(cut, 'replay')}`, {
      hint: `${it} ${was} made: run the same command again to see how ${it} went (nothing is replayed twice), or \`${svcCommand(ctx.settings(), `webhooks deliveries ${shellWord(webhook)}`)}\``,
    });
  }
  // Every item was done, but some follows ended with no outcome: --wait's promise was not kept.
  if (summary && words.notFollowed > 0) throw notFollowed();
  if (summary && !options.dryRun && earlierOwed() > 0) throw earlierNotFollowed();

  /** Replays the earlier run made whose follows it owes, not followed by this run (--no-wait): exit 7, the journal kept. */
  function earlierNotFollowed(): PartialFailureError {
    const count = earlierOwed();
    const [replays, were, its, they, them] =
      count === 1
        ? ['replay', 'was', 'its delivery', 'it', 'it']
        : ['replays', 'were', 'their deliveries', 'they', 'them'];
    const said: Record<Unfollowed, string> = {
      interrupted: 'cut by Ctrl-C',
      unreadable: 'could not be read',
      not_settled: 'not settled in time',
      unknown_status: 'a status svc does not know',
    };
    const kinds = UNFOLLOWED.filter((k) => earlierUnfollowed[k] > 0);
    const why =
      kinds.length === 1
        ? said[kinds[0]!]
        : kinds.map((k) => `${earlierUnfollowed[k].toLocaleString('en')} ${said[k]}`).join(', ');
    return new PartialFailureError(
      `${count.toLocaleString('en')} ${replays} the earlier run made ${were} not followed to ${its} (${why}), and this run does not wait: how ${they} went is not known`,
      {
        code: 'not_followed',
        hint: `see how ${they} went with \`${svcCommand(ctx.settings(), `webhooks deliveries ${shellWord(webhook)}`)}\`, or run the same command with --wait to follow ${them} (nothing is replayed twice)`,
      },
    );
  }

  /** Replays made whose follow ended with no outcome (a read with no answer, --wait-timeout): exit 7, never "failed". */
  function notFollowed(): PartialFailureError {
    const count = words.notFollowed;
    const [was, its, them] =
      count === 1 ? ['was', 'its delivery', 'it'] : ['were', 'their deliveries', 'them'];
    return new PartialFailureError(
      `${counted(count, 'replay')} ${was} made, but how ${its} went is not known: ${words.why(false)}`,
      {
        code: 'not_followed',
        hint: `run the same command again to follow ${them} (nothing is replayed twice), or \`${svcCommand(ctx.settings(), `webhooks deliveries ${shellWord(webhook)}`)}\``,
      },
    );
  }
}
