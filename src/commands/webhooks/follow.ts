// Just over 300 lines: following a replay's delivery (--wait) and what each way it ends says, for
// the single replay and a bulk run's rows alike; split, the two would word the same ends twice.
import type { WebhookDelivery } from '../../api/schemas/webhooks.js';
import { haltsTheRun, waitsBeyondCap } from '../../bulk/judge.js';
import { type CommandLine, svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { describeError, SvcError } from '../../errors.js';
import type { Platform } from '../../platform/index.js';
import { shellWord } from '../../system/shell-words.js';
import { deliveryState, deliveryWord, unknownStatusText } from './delivery-state.js';
import type { Remedies } from './remedies.js';

const POLL_MS = 250;

/**
 * An attempt has finished: delivered, failed for good, or failed once and waiting for a retry; a
 * status svc does not know, once an attempt was made (waiting longer would not tell more).
 */
const settled = (d: WebhookDelivery) => {
  const state = deliveryState(d);
  return state === 'delivered' || state === 'failed' || d.attempt_count > 0;
};

/**
 * The delivery a row's replay made, which --wait follows: the run's own (`new_delivery_id`), or
 * that of an entry replayed while the run was stopped (`replayed_as` of a `while_stopped` row).
 */
export function madeBy(row: {
  new_delivery_id?: unknown;
  replayed_as?: unknown;
  while_stopped?: unknown;
}): string | undefined {
  const made = row.new_delivery_id ?? (row.while_stopped === true ? row.replayed_as : undefined);
  return typeof made === 'string' ? made : undefined;
}

/**
 * Why --wait did not follow a replay's delivery to its end; its outcome is not known, which is no
 * failure (the replay was made, as a --no-wait row's is): Ctrl-C cut the wait or a read
 * (`interrupted`), a read got no answer that says (`unreadable`: a 5xx, no answer), or no attempt
 * finished within --wait-timeout (`not_settled`), or its status is one svc does not know
 * (`unknown_status`). Journaled so, the resumed run follows it.
 */
export type Unfollowed = 'interrupted' | 'unreadable' | 'not_settled' | 'unknown_status';
export const UNFOLLOWED: readonly Unfollowed[] = [
  'interrupted',
  'unreadable',
  'not_settled',
  'unknown_status',
];
/** None of each (a count per Unfollowed). */
export const noneUnfollowed = (): Record<Unfollowed, number> => ({
  interrupted: 0,
  unreadable: 0,
  not_settled: 0,
  unknown_status: 0,
});

/**
 * Follows a new delivery until its first attempt has an outcome, `timeoutMs` at most (Ctrl-C
 * stops waiting), and says how it ended (deliveryState): nothing for a delivery (for a recovered
 * one, `delivered_by`: the delivery that delivered its event), `status: 'failed'` with the cause
 * and its remedy (the reference's failure-cause table) for one that failed, and `follow` (why its
 * outcome is not known: Unfollowed, with `follow_error` saying it but for Ctrl-C) for one not
 * followed to its end: never a failure, the replay was made.
 * `timeoutMs` undefined reads it as it is, waiting for nothing (a dry run): one in flight is so.
 * A read whose error halts the run (haltsTheRun) is `follow: unreadable` too, and `halt` is told
 * (WorkCall.halt): the run stops after this row, which stays made.
 */
export async function deliveryOutcome(
  ctx: Context,
  platform: Platform,
  remedies: Remedies,
  webhook: string,
  delivery: WebhookDelivery,
  timeoutMs: number | undefined,
  halt: (error: unknown) => void,
): Promise<Record<string, unknown>> {
  try {
    return await follow(ctx, platform, remedies, webhook, delivery, timeoutMs);
  } catch (error) {
    if (!(error instanceof DeliveryUnreadError)) throw error;
    // The replay stays made whatever its read met; a read no later item would get past either
    // (refused connection, role or credential gone) stops the run after this row (review24e H1).
    if (haltsTheRun(error.cause)) halt(error.cause);
    return {
      delivery_status: error.lastSeen ?? delivery.status,
      follow: 'unreadable',
      follow_error: { code: error.code, message: error.message },
    };
  }
}

/** deliveryOutcome, but a read that fails (not Ctrl-C) throws DeliveryUnreadError. */
async function follow(
  ctx: Context,
  platform: Platform,
  remedies: Remedies,
  webhook: string,
  delivery: WebhookDelivery,
  timeoutMs: number | undefined,
): Promise<Record<string, unknown>> {
  const until = ctx.clock.now() + (timeoutMs ?? 0);
  let current = delivery;
  while (!settled(current) && ctx.clock.now() < until && !ctx.signal.aborted) {
    try {
      await ctx.clock.sleep(POLL_MS, ctx.signal);
      current = await platform.webhooks.deliveries.get(webhook, current.id);
    } catch (error) {
      // Ctrl-C cut the wait or the read (InterruptedError): the outcome is not known.
      if (ctx.signal.aborted) break;
      throw unread(ctx, webhook, current.id, error, current.status);
    }
  }
  const status = { delivery_status: current.status };
  if (deliveryState(current) === 'delivered') {
    return current.recovered_by ? { ...status, delivered_by: current.recovered_by } : status;
  }
  if (!settled(current) && ctx.signal.aborted) return { ...status, follow: 'interrupted' };
  if (!settled(current) && timeoutMs === undefined) return status;
  if (deliveryState(current) === 'unknown') {
    // Not a failure, nor a delivery: said as it came, and how to look (never "check the target").
    return {
      ...status,
      follow: 'unknown_status',
      follow_error: { code: 'unknown_status', message: unknownStatusText(current) },
    };
  }
  if (!settled(current)) {
    // Pending, or in its first attempt: not failed, and not known to be over.
    return {
      ...status,
      follow: 'not_settled',
      follow_error: {
        code: 'not_settled',
        message: `no attempt finished within ${Math.round((timeoutMs ?? 0) / 1000)} s`,
      },
    };
  }
  const cause = current.last_error_code;
  return {
    ...status,
    status: 'failed',
    error: {
      code: cause ?? 'delivery_failed',
      message: current.last_error ?? `the target answered ${current.last_status_code ?? 'nothing'}`,
      remedy: cause ? await remedies.now(webhook, cause, current.last_error) : 'check the target',
      ...(current.last_status_code === null ? {} : { http_status: current.last_status_code }),
      ...(current.next_retry_at ? { next_retry_at: current.next_retry_at } : {}),
    },
  };
}

/** A replay that was made and whose delivery failed, as --wait last saw it. */
export interface FailedReplay {
  id: string;
  /** delivery_status: pending or retrying (the platform goes on), failed (dead-lettered). */
  status: string;
  next_retry_at?: string | undefined;
}

/** Ids a hint lists in full; more are counted. */
const LISTED = 5;

/**
 * What to do about replays whose deliveries failed, true for their state: the platform retries
 * those still in flight by itself (nothing to run again: a --dlq run would not find them, they
 * are not in the queue), and those dead-lettered again are replayed by their own ids (a --dlq
 * rerun could miss them: their new entries are newer than --until, or past --limit).
 */
export function failedReplaysHint(line: CommandLine, webhook: string, failed: FailedReplay[]): string {
  const parts: string[] = [];
  const going = failed.filter((f) => deliveryState(f) !== 'failed');
  if (going.length > 0) {
    const next = going
      .map((f) => f.next_retry_at)
      .filter((at): at is string => typeof at === 'string')
      .sort()[0];
    const [is, them] = going.length === 1 ? ['is', 'it'] : ['are', 'them'];
    const state = going.every((f) => deliveryWord(f) === 'retrying') ? 'retrying' : 'still in flight';
    parts.push(
      `${going.length} ${is} ${state}: the platform retries ${them} by itself${next ? ` (next attempt at ${next})` : ''}; ` +
        `follow ${them} with \`${line(`webhooks deliveries ${shellWord(webhook)} --status in_flight`)}\``,
    );
  }
  const dead = failed.filter((f) => deliveryState(f) === 'failed');
  if (dead.length > 0) {
    const more = dead.length - LISTED;
    const [is, those] = dead.length === 1 ? ['is', 'it'] : ['are', 'exactly those'];
    parts.push(
      `${dead.length} ${is} dead-lettered: once the target is fixed, replay ${those} with ` +
        `\`${line(
          `webhooks replay ${shellWord(webhook)} ${dead
            .slice(0, LISTED)
            .map((f) => shellWord(f.id))
            .join(' ')}`,
        )}\`${more > 0 ? ` (and ${more} more: the new delivery of each failed row)` : ''}`,
    );
  }
  return `the replays were made and their deliveries failed: ${parts.length > 0 ? parts.join('; ') : 'fix the target, then replay them'}`;
}

/**
 * Of a journaled row whose replay made a delivery: why its delivery is owed a follow by a run
 * that waits, or undefined when it was followed to its end. Its follow was cut (Unfollowed), or
 * the run that made it did not wait (`not_waited`: no follow, no status read), --wait being no
 * part of the run (a piped run resumed on a terminal).
 */
export function owedFollow(done: Record<string, unknown>): Unfollowed | 'not_waited' | undefined {
  if (madeBy(done) === undefined) return undefined;
  if (UNFOLLOWED.includes(done.follow as Unfollowed)) return done.follow as Unfollowed;
  return done.follow === undefined && done.delivery_status === undefined ? 'not_waited' : undefined;
}

/**
 * Follows the delivery of a replay an earlier run made and did not follow to its end (owedFollow:
 * Ctrl-C cut it, its read got no answer, --wait-timeout passed, or that run did not wait, then
 * said `follow: not_waited`) now, as deliveryOutcome does (`follow: interrupted` again if Ctrl-C
 * cuts this follow too), so the resumed run's row says how it went and counts it (a dry run's,
 * `timeoutMs` undefined, reads it as it is). A read that fails throws DeliveryUnreadError.
 * Any other row gives nothing to add. A row of an entry replayed while the run was stopped names
 * its delivery `replayed_as` (madeBy); followed now, it is as if never cut: that replay was not
 * the run's, only its follow.
 */
export async function followUnfollowed(
  ctx: Context,
  platform: Platform,
  remedies: Remedies,
  webhook: string,
  done: Record<string, unknown>,
  timeoutMs: number | undefined,
): Promise<Record<string, unknown> | undefined> {
  const owed = owedFollow(done);
  if (owed === undefined) return undefined;
  const outcome = await followMade(ctx, platform, remedies, webhook, madeBy(done)!, timeoutMs);
  if (done.while_stopped === true) return { follow: undefined, ...outcome };
  return owed === 'not_waited' ? { follow: owed, ...outcome } : outcome;
}

/**
 * A delivery a follow could not read (a 5xx, no answer; not Ctrl-C): how it went is not known, so
 * its row is no success. Thrown, so the bulk run fails the row without journaling it: it stays
 * owed, and the next run of the same command follows it again (exit 7 meanwhile).
 */
export class DeliveryUnreadError extends SvcError {
  constructor(
    message: string,
    cause: unknown,
    /** The delivery's status as last read before the read that failed, when one was. */
    readonly lastSeen?: string,
  ) {
    super('failure', message, { code: 'delivery_unread', cause });
  }

  /** The same error, its message led by what the row is about. */
  about(what: string): DeliveryUnreadError {
    return new DeliveryUnreadError(`${what}; ${this.message}`, this.cause, this.lastSeen);
  }
}

/** The DeliveryUnreadError of delivery `id`, whose read failed with `error`: what to do, in words. */
function unread(ctx: Context, webhook: string, id: string, error: unknown, lastSeen?: string) {
  const look = svcCommand(ctx.settings(), `webhooks deliveries get ${shellWord(webhook)} ${shellWord(id)}`);
  return new DeliveryUnreadError(
    `its delivery ${id} could not be read (${describeError(error)}), so how it went is not known: see with \`${look}\`, or run the same command again to follow it`,
    error,
    lastSeen,
  );
}

/**
 * The read's error is the run's, as it is (it halts the run: no row of it is said failed by it, for
 * none of these reads makes a change): the credential is gone, rejected or someone else's, or the
 * rate limit asks for a longer wait than svc makes. Not a refused connection nor a refused role
 * (haltsTheRun's others): the replay followed may be this run's own, made; they are an unread
 * delivery, whose caller decides (review24e H1).
 */
function credentialGone(error: unknown): boolean {
  return (error instanceof SvcError && error.category === 'auth') || waitsBeyondCap(error) !== undefined;
}

/**
 * Follows a delivery a replay made, read by its id, as deliveryOutcome does (`timeoutMs`
 * undefined: as it is now): a resumed run's journaled row, or an entry the run it resumes took
 * that was replayed while it was stopped (by another run, or by that run, its answer lost: svc
 * cannot tell). Ctrl-C cutting the read is `follow: interrupted` (never swallowed: the row stays
 * owed); a read that fails otherwise throws DeliveryUnreadError (the row stays owed too), but for
 * a credential that is gone (its error, which halts the run). A delivery not found says nothing
 * of how it went (`delivery_status: undefined`).
 */
export async function followMade(
  ctx: Context,
  platform: Platform,
  remedies: Remedies,
  webhook: string,
  id: string,
  timeoutMs: number | undefined,
): Promise<Record<string, unknown>> {
  try {
    const found = await platform.webhooks.deliveries.get(webhook, id);
    return await follow(ctx, platform, remedies, webhook, found, timeoutMs);
  } catch (error) {
    // Ctrl-C cut the read (InterruptedError): not followed, the row stays owed.
    if (ctx.signal.aborted) return { delivery_status: undefined, follow: 'interrupted' };
    if (error instanceof SvcError && error.category === 'not_found') return { delivery_status: undefined };
    const cause = error instanceof DeliveryUnreadError ? error.cause : error;
    if (credentialGone(cause)) throw cause;
    if (error instanceof DeliveryUnreadError) throw error;
    throw unread(ctx, webhook, id, error);
  }
}
