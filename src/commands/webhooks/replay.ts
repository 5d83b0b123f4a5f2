// Over 300 lines: the verb's parsing, its BulkVerb (what each item is, how it is done, followed
// and said, a resumed run's rows included) and its help read as one; named ids (replay-named.ts),
// rows (replay-rows.ts), following (follow.ts) and the queue (dlq/queue.ts, dlq/left.ts) live apart.

import { Command, Option } from 'commander';
import type { CallerAuthority } from '../../api/holds.js';
import type { Journal } from '../../bulk/journal.js';
import { type BulkVerb, runBulkOperation } from '../../bulk/operation.js';
import type { BulkItem, Worker } from '../../bulk/runner.js';
import { commandLine, svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { InterruptedError, OutputCutError, PartialFailureError, SvcError, UsageError } from '../../errors.js';
import { path } from '../../http/path.js';
import { counted } from '../../output/format.js';
import { withEnableHint } from '../../platform/errors.js';
import { withConcurrency } from '../../system/command-scope.js';
import { shellWord } from '../../system/shell-words.js';
import { type BulkFlags, onlyWith, parseBulkFlags, withBulkFlags } from '../bulk-flags.js';
import { changedIn } from '../changed-in.js';
import { examples, type MakeContext, nonEmpty, refuseJoinedValues } from '../kit.js';
import { type WithOptionalWebhook, withWebhook } from '../pick.js';
import { callerAuthority, refusedItem, UNCHECKED_HOLDINGS } from './caller.js';
import { deliveryState } from './delivery-state.js';
import {
  type DlqFilterFlags,
  dlqRunScope,
  filterOptions,
  refuseRepeatedIds,
  refuseUnknownKind,
  unsubscribed,
} from './dlq/filters.js';
import { entryFields, leftText, type Planned } from './dlq/left.js';
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
import { refuseDisabledWebhook, webhookArg } from './shared.js';
import { looksLikeSeconds, parseWaitFlags, type WaitFlags, waitOptions } from './wait-flags.js';

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

const TIMEOUT = { max: 3600, dflt: 60 };

export function parseReplay(
  webhook: unknown,
  ids: unknown[],
  flags: Record<string, unknown>,
): WithOptionalWebhook<ReplayOptions> {
  const dlq = flags.dlq === true;
  const named = ids.map((d) => nonEmpty('DELIVERY', d));
  // `--dlq --wait 5`: the old seconds form, not a delivery id given with --dlq (review16 R9).
  if (dlq && flags.wait === true && named.length === 1 && looksLikeSeconds(named[0]!)) {
    throw new UsageError(`--wait takes no value (${named[0]})`, {
      hint: `to follow each replayed delivery for at most ${named[0]} s, pass --wait --wait-timeout ${named[0]}`,
    });
  }
  if (dlq && named.length > 0) {
    throw new UsageError('give delivery ids or --dlq, not both', {
      hint: 'svc webhooks replay WEBHOOK DELIVERY... replays those; --dlq replays the dead-letter queue',
    });
  }
  if (!dlq && named.length === 0) {
    // Nothing named, not even the webhook: both halves at once (attack25a F8).
    throw new UsageError(
      webhook === undefined
        ? 'name a webhook and the deliveries to replay (WEBHOOK DELIVERY...), or a webhook and --dlq (WEBHOOK --dlq) to replay its dead-letter queue'
        : 'name the deliveries to replay, or pass --dlq to replay the dead-letter queue',
    );
  }
  if (!dlq) onlyWith(flags, ['eventType', 'unlistedEventType', 'since', 'until', 'limit'], '--dlq');
  const waitFlags = parseWaitFlags(flags, TIMEOUT);
  // Every id is checked before the webhook is looked up (which may 404) and before anything is
  // replayed: `DLV --wait 5` once replayed DLV, then failed on "delivery 5".
  for (const id of named) {
    // An id holds no comma: `dlq_a,dlq_b` is two ids, sent as one it was "not found" (attack27a F7).
    refuseJoinedValues(
      'DELIVERY',
      id,
      id.split(',').filter((part) => part.trim() !== ''),
      true,
    );
    // The one id check first (a credential pasted as an id, `.`), then the shape of these ids.
    path`/deliveries/${id}`;
    // Any other id is the server's to judge (another server's ids have another shape: attack18b
    // 8); a number is --wait's old value, not an id.
    if (looksLikeSeconds(id)) {
      throw new UsageError(`${id} is not a delivery id (dlv_…) or a dead-letter entry id (dlq_…)`, {
        hint: `--wait takes no value: to follow each delivery for at most ${id} s, pass --wait --wait-timeout ${id}`,
      });
    }
  }
  refuseRepeatedIds(named, 'delivery or entry');
  return {
    webhook: webhookArg(webhook),
    ids: named,
    dlq,
    ...dlqRunScope(flags),
    ...waitFlags,
    ...parseBulkFlags(flags),
  };
}

/** What to replay: a named delivery or entry (with what was read of it), or an entry of the queue. */
interface Target extends NamedTarget {
  ref: string;
  event_type?: string;
  event_id?: string;
  /** An entry the run this one resumes took, gone from the queue while it was stopped. */
  planned?: Planned;
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
    // too: QueueSnapshot.shared): its own replay, made by an attempt whose answer was lost or by
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

/** The queue's entries, then those the run this one resumes took that left it (QueueSnapshot.planned). */
async function* entries(
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
      shared: QueueSnapshot.shared('replay', e, journal.run.runId),
    };
  }
}

export function replayCommand(make: MakeContext): Command {
  const command = new Command('replay')
    .summary('Replay deliveries, or the whole dead-letter queue')
    .description(
      'Replay named deliveries (dlv_… ids, or the dlq_… ids `svc webhooks dlq` lists; an id of another\n' +
        'shape is what the server says: an entry its queue knows, else a delivery, else refused, exit 5,\n' +
        'before anything is replayed), or with --dlq every\n' +
        'queued entry of the dead-letter queue (oldest first, filtered by --event-type, --since, --until, at\n' +
        'most --limit in total). Each replay is a new delivery of the same payload, byte for byte, with its\n' +
        'attempt counter reset and a fresh signature timestamp; results are one row (one JSON object) per\n' +
        'delivery, in every mode an array with --json.\n\n' +
        '--wait follows each new delivery until its first attempt ends (at most --wait-timeout seconds) and\n' +
        'exits 7 when any failed, naming the cause and its remedy. It is the default on a terminal, where a\n' +
        'person needs to know the target took the events, not that replays were queued; scripts get results\n' +
        'at once unless they pass --wait (--no-wait turns it off on a terminal). A replay whose follow\n' +
        'Ctrl-C cuts was made: its row is ok with follow "interrupted" (exit 130), and the resumed run\n' +
        'follows its delivery to its end (one that failed is a failed row, exit 7), or, not waiting, says\n' +
        'it was not followed (no status as now, exit 7, the journal kept): --wait is not part of the\n' +
        'run, so the same command resumes it on a terminal or in a pipe alike. So is one whose delivery\n' +
        'cannot be read (follow "unreadable") or has no attempt finished by --wait-timeout (follow\n' +
        '"not_settled"), or whose status is a word svc does not know (follow "unknown_status": another\n' +
        "server's `succeeded`, said as it came, never as failed): its row is ok with its new delivery, exit\n" +
        '7, and the same command follows it\n' +
        '(its read still failing, it stays unreadable, exit 7, never failed). A resumed run that waits\n' +
        'follows the replays of an earlier run that did not (follow "not_waited"). A row the earlier run\n' +
        'followed to a failed attempt is read again as it is now (failed_then says what it was):\n' +
        'delivered since, it is no failure. A replay whose\n' +
        "answer was lost and whose retry got the platform's stored answer is this run's own, followed,\n" +
        'with no note: nothing was sent again.\n\n' +
        'A --dlq run works on the queue as it was when it started: at most the number of entries it held\n' +
        'then, never an entry of a delivery the run created itself, so replays that fail again and return\n' +
        'to the queue cannot keep a run going. A listing that ends short of that count (a server whose cursor\n' +
        'shifts as entries leave the queue) is read again from the start once nothing is in flight, and the\n' +
        "run's entries still queued are replayed; entries it still cannot list end the run with exit 7.\n" +
        'Runs use --concurrency parallel requests and keep a journal:\n' +
        'the same command after a failure, Ctrl-C (exit 130) or a closed stdout (exit 141) resumes the run,\n' +
        'with the same idempotency keys, and nothing is replayed twice (a row the earlier run did is a\n' +
        'skipped row, reason journal, "done in an earlier run"; with --dlq every entry it did, and each\n' +
        'entry it had taken that left the queue before the resumed run is a skipped row saying what became\n' +
        'of it, while_stopped; with --wait one replayed then, maybe by the earlier run itself, has its\n' +
        'delivery followed: failed, it is a failed row, exit 7; recovered since, by a later replay, it is\n' +
        'delivered; one whose delivery cannot be read, a 503, is a failed row saying so, delivery_unread,\n' +
        'exit 7, and stays owed: the same command follows it again; the entry its delivery put back in\n' +
        'the queue is never replayed by the run: that event was replayed once already). A --dlq\n' +
        "run is the entries dead-lettered before it started (to the second): newer ones, another run's\n" +
        "replays that failed again among them, are a new run's, counted when the run ends (new or resumed) and\n" +
        'taken by the same command after it. Nor by two runs at once (two admins,\n' +
        'one admin in two terminals, or a `dlq discard --all` beside it): each entry is replayed as that\n' +
        "entry, only while it is queued, with a key that is the run's own (its retries and its resumes\n" +
        'send it again, another run never does); an entry another run replayed or discarded first is a\n' +
        'skipped row saying so (already_replayed, already_discarded). --dry-run lists what would be\n' +
        'replayed; whether they are delivered is known only when they are sent (with --wait, a replay\n' +
        'made already, by the earlier run or since, is read as it is: failed, it would fail).\n\n' +
        'Named ids are read first: a delivery and its own dead-letter entry together are refused (exit 2),\n' +
        'and an event already delivered or replayed, or a delivery whose status svc does not know (it may\n' +
        'have been delivered: note unknown_status), is replayed again with a warning and a note on its row.\n' +
        'A queued entry named by its dlq_ id, or a delivery named by its dlv_ id whose entry is queued, is\n' +
        'replayed as that entry: one another run replays first is a skipped row (already_replayed). A\n' +
        'dlv_ id with an entry is always sent as it, so the same command after a lost answer sends the\n' +
        "same request and gets the platform's stored answer (one delivery). A\n" +
        'discarded entry is refused (exit 6, the dry run too): an entry leaves the queue once. Its\n' +
        'delivery, named by its dlv_ id, still replays.\n\n' +
        "A replay takes the permission that reads the data of the webhook's kinds (exception.read,\n" +
        'reconciliation.read), held now: a just-in-time grant will do (choosing the URL is what takes it\n' +
        'without an end date). --dry-run plays each row against what you hold (the permissions svc me --json\n' +
        "shows): a replay the platform would refuse you is planned fail with a refusal like the real run's\n" +
        "(the same code; the words of a missing webhook.manage are svc's), as the real run ends. When svc\n" +
        'cannot learn what you hold (a server that does not say, and no role.read), the dry run warns, plans\n' +
        'each row as if you may, and its counts say they were not checked against it.\n\n' +
        'A disabled webhook receives no events, replays included: the run (a --dry-run too) is refused\n' +
        'before anything is replayed (exit 6), with the command that enables it. A webhook the platform\n' +
        'stopped says why (its disabled_reason): enabling it takes someone who holds the read permissions\n' +
        'of its kinds without an end date, and makes them its owner. Deliveries whose retries the stop\n' +
        'cancelled (cause webhook_stopped) are in the dead-letter queue: --dlq replays them once enabled.',
    )
    .argument('[webhook]', 'webhook id')
    .argument(
      '[delivery...]',
      "delivery ids (dlv_…) or dead-letter entry ids (dlq_…) to replay (or ids of the server's own shape)",
    )
    .addOption(new Option('--dlq', 'replay the queued entries of the dead-letter queue'));
  for (const option of filterOptions('with --dlq: ')) command.addOption(option);
  command.addOption(new Option('--limit <n>', 'with --dlq: replay at most N entries in total'));
  for (const option of waitOptions(
    'follow each new delivery until its first attempt ends',
    'default on a terminal',
    TIMEOUT,
  ))
    command.addOption(option);
  return withBulkFlags(command, undefined, 'list what would be replayed, change nothing')
    .addHelpText(
      'after',
      examples(
        ['svc webhooks replay wh_123 dlv_abc dlq_def', 'replay a delivery and a dead-letter entry'],
        ['svc webhooks replay wh_123 --dlq --dry-run', 'what would be replayed'],
        [
          'svc webhooks replay wh_123 --dlq --since 2h --event-type exception.sla.breached --wait --ndjson',
          'replay recent SLA breaches; one result per line, with how each delivery went',
        ],
        ['svc webhooks replay wh_123 --dlq --concurrency 16', 'replay the whole queue; rerun to resume'],
      ),
    )
    .action(
      async (webhook: string | undefined, ids: string[], flags: Record<string, unknown>, cmd: Command) => {
        const ctx = await make(cmd);
        const parsed = parseReplay(webhook, ids, flags);
        await runReplay(ctx, await withWebhook(ctx, parsed));
      },
    );
}
