import { DLQ_PAGE } from '../../api/constants.js';
import type { DlqEntry, WebhookDelivery } from '../../api/schemas/webhooks.js';
import type { WorkCall } from '../../bulk/item.js';
import { type CommandLine, commandLine } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { lookupMayFail, SvcError, UsageError } from '../../errors.js';
import { deriveIdempotencyKey } from '../../http/idempotency.js';
import type { WithResponse } from '../../platform/api-promise.js';
import { DlqEntryNotQueuedError } from '../../platform/errors.js';
import type { Platform } from '../../platform/index.js';
import { shellWord } from '../../system/shell-words.js';
import { deliveryState, deliveryWord } from './delivery-state.js';
import { refusesEntryField } from './dlq/entry-replay.js';
import { type LeftQueue, whereNow } from './dlq/left.js';

/**
 * Said of a named delivery or entry whose event was delivered or replayed before, or whose status
 * is a word svc does not know (deliveryState: it may have been delivered): it is sent again.
 */
export type ReplayNote =
  | { note: 'already_delivered'; delivered_by?: string }
  | { note: 'already_replayed'; replayed_as?: string }
  | { note: 'unknown_status'; status_word: string };

export interface NamedTarget {
  /** The delivery a dlq_… entry names (the ref itself for a delivery id), when known. */
  delivery_id?: string;
  note?: ReplayNote;
  /** A dlq_… ref's entry as read: a discarded one is refused, one replayed or delivered is sent again. */
  entry?: Pick<DlqEntry, 'status' | 'discarded_at'>;
  /**
   * A dlv_… ref's dead-letter entry as read: the delivery is replayed as that entry (so a `replay
   * --dlq` or discard of it by another run and this replay cannot both happen), whatever its status,
   * so every attempt of the item sends the same request under its key: a retry after a lost answer
   * (which finds the entry replayed, by that very attempt) is answered from the platform's record.
   */
  delivery_entry?: Pick<DlqEntry, 'id' | 'status'>;
  /**
   * The ref names a dead-letter entry, as the server answered (lookUpNamed asks the queue of an id
   * of another shape than dlv_/dlq_: another server's ids; attack18b 8), or an entry of the queue.
   */
  is_entry?: boolean;
}

/** Whether a named ref is a dead-letter entry: as the server said, else by its dlq_ prefix. */
export const namesEntry = (target: NamedTarget & { ref: string }): boolean =>
  target.is_entry ?? target.ref.startsWith('dlq_');

/**
 * A discarded entry named by its own id: it left the queue once already (discarded), so it is
 * not replayed (409 dlq_entry_not_queued, exit 6), in the dry run and the real run alike. Its
 * delivery, named by its own id, is replayed whatever its entry says.
 */
export function discardedRefusal(
  line: CommandLine,
  webhook: string,
  ref: string,
  entry: { discarded_at?: string | null | undefined },
  delivery: string | undefined,
): SvcError {
  const at = entry.discarded_at ? ` at ${entry.discarded_at}` : '';
  return new SvcError(
    'conflict',
    `dead-letter entry ${ref} was discarded${at}: an entry leaves the queue once, so it is not replayed`,
    {
      code: 'dlq_entry_not_queued',
      hint: delivery
        ? `to send its event anyway, replay its delivery by id: ${line(`webhooks replay ${shellWord(webhook)} ${shellWord(delivery)}`)}`
        : 'to send its event anyway, replay its delivery by id',
    },
  );
}

/**
 * Replays a named delivery, and a named entry as that entry (dlq_entry_id, one request a rerun
 * sends again alike, so the same key is answered from the platform's record), so it leaves the
 * queue once; so is a named delivery whose entry was found (delivery_entry), whatever its status:
 * the first request of an item is always the same one, so its retry after a lost answer, which
 * reads the entry replayed by that very attempt, is answered from the record (one delivery), never
 * refused as a key reused with another body. A discard or another run that came first makes it
 * 409 dlq_entry_not_queued: a named entry discarded is refused (discardedRefusal); an entry queued
 * when read left the queue since, and the answer says what became of it (`left`: the row is
 * skipped, never acted on twice). An entry read as replayed, recovered or discarded already
 * (warned of, noted on its row) is replayed as asked, as its delivery. A server that refuses the
 * field gets a plain replay. Those plain replays have keys of their own.
 */
export async function replayNamed(
  platform: Platform,
  line: CommandLine,
  webhook: string,
  target: NamedTarget & { ref: string },
  delivery: string,
  call: Pick<WorkCall, 'signal' | 'idempotencyKey'>,
): Promise<WithResponse<WebhookDelivery> | { left: LeftQueue }> {
  const { signal, idempotencyKey } = call;
  if (target.entry?.status === 'discarded')
    throw discardedRefusal(line, webhook, target.ref, target.entry, delivery);
  const plain = (key: string) =>
    platform.webhooks.deliveries.replay(webhook, delivery, { signal, idempotencyKey: key }).withResponse();
  const named = namesEntry(target);
  const entry = named ? target.ref : target.delivery_entry?.id;
  if (entry === undefined) return plain(idempotencyKey);
  try {
    return await platform.webhooks.deliveries
      .replay(webhook, delivery, { signal, idempotencyKey }, entry)
      .withResponse();
  } catch (error) {
    if (refusesEntryField(error)) return plain(deriveIdempotencyKey(idempotencyKey, 'without dlq_entry_id'));
    if (!(error instanceof DlqEntryNotQueuedError)) throw error;
    if (named && error.entry?.status === 'discarded')
      throw discardedRefusal(line, webhook, target.ref, error.entry, delivery);
    const read = named ? target.entry : target.delivery_entry;
    const leftBefore = read !== undefined && read.status !== 'queued';
    if (leftBefore) return plain(deriveIdempotencyKey(idempotencyKey, 'as its delivery'));
    // Queued when read, gone since: another run (or a discard) came first.
    const { gone } = await whereNow(error, () => platform.webhooks.dlq.get(webhook, entry, { signal }));
    return { left: gone };
  }
}

/** What a delivery or its entry says of the event having been delivered or replayed; undefined: nothing. */
function noteOf(
  delivery: { id: string; status: string; recovered_by?: string | null } | undefined,
  entry:
    | { status: string; recovered_by?: string | null; last_replay_delivery_id?: string | null }
    | undefined,
): ReplayNote | undefined {
  const by = (id: string | null | undefined) => (id ? { delivered_by: id } : {});
  const word = delivery && deliveryWord(delivery);
  if (word === 'delivered') return { note: 'already_delivered', ...by(delivery!.id) };
  if (word === 'recovered') return { note: 'already_delivered', ...by(delivery!.recovered_by) };
  if (entry?.status === 'recovered') return { note: 'already_delivered', ...by(entry.recovered_by) };
  if (entry?.status === 'replayed') {
    const as = entry.last_replay_delivery_id;
    return { note: 'already_replayed', ...(as ? { replayed_as: as } : {}) };
  }
  // Last: what its entry says (recovered, replayed) is known; the status word is not.
  if (delivery && deliveryState(delivery) === 'unknown')
    return { note: 'unknown_status', status_word: delivery.status };
  return undefined;
}

/** A row's note in words, for the detail column. */
export function noteText(note: ReplayNote): string {
  if (note.note === 'unknown_status')
    return `status ${JSON.stringify(note.status_word)} not known to svc (it may have been delivered); sent again`;
  return note.note === 'already_delivered'
    ? `already delivered${note.delivered_by ? ` by ${note.delivered_by}` : ''}; sent again`
    : `already replayed${note.replayed_as ? ` as ${note.replayed_as}` : ''}; sent again`;
}

/** A delivery that may be dead-lettered: failed, or a status svc does not know. */
const mayBeFailed = (d: { status: string }) => ['failed', 'unknown'].includes(deliveryState(d));

/**
 * Reads the named deliveries and entries before anything is replayed (a handful of ids): a
 * delivery named twice, once by its dead-letter entry, is refused like a repeated id (the event
 * would be sent twice); an event already delivered or replayed is replayed (that is allowed) but
 * said so, once, on stderr (not for one the earlier run of a resumed run did: it is not sent
 * again). What the server does not say (an id it does not know, a field it
 * leaves out) is left to the replay itself.
 */
export async function lookUpNamed(
  ctx: Context,
  platform: Platform,
  webhook: string,
  refs: string[],
  dryRun: boolean,
  /** Done by the earlier run a resumed run resumes: nothing is sent for it now, so nothing to warn of. */
  earlier: (ref: string) => boolean = () => false,
  /**
   * A resumed run: what was read of a ref not done may be its earlier attempt's own replay (its
   * answer lost), which the platform answers with now, sending nothing: the warning says so.
   */
  resumed = false,
): Promise<Map<string, NamedTarget>> {
  const known = new Map<string, NamedTarget>();
  let byDelivery: Promise<Map<string, DlqEntry>> | undefined;
  const found = await Promise.all(
    refs.map(async (ref) => {
      // A dlq_ id is an entry; an id of another shape is one if the queue knows it (else a delivery).
      const shaped = /^(dlv|dlq)_/.test(ref);
      let unknown = 0;
      const read = <T>(promise: Promise<T>) =>
        promise.catch((error: unknown) => {
          if (error instanceof SvcError && error.category === 'not_found') unknown++;
          return undefined;
        });
      let entry: DlqEntry | undefined =
        ref.startsWith('dlq_') || !shaped ? await read(platform.webhooks.dlq.get(webhook, ref)) : undefined;
      const isEntry = ref.startsWith('dlq_') || entry !== undefined;
      const id = isEntry ? entry?.delivery_id : ref;
      const delivery = id ? await read(platform.webhooks.deliveries.get(webhook, id)) : undefined;
      // Of another shape, and neither the queue nor the deliveries know it: a slip (an event id),
      // refused before anything is replayed, as the ids svc knows the shape of once were.
      if (!shaped && unknown === 2) throw unknownRef(commandLine(ctx.settings()), webhook, ref);
      // A failed delivery named by its own id: its dead-letter entry may be queued or have been
      // replayed already (recovered: by a replay that delivered it, maybe this run's own attempt
      // whose answer was lost); it is replayed as that entry all the same (replayNamed).
      // So may one whose status svc does not know (another server's `errored`).
      if (!entry && delivery && (deliveryWord(delivery) === 'recovered' || mayBeFailed(delivery))) {
        byDelivery ??= entriesByDelivery(platform, webhook, ctx.signal);
        entry = (await byDelivery).get(delivery.id);
      }
      const own = isEntry && entry ? { status: entry.status, discarded_at: entry.discarded_at } : undefined;
      const its = !isEntry && entry ? { id: entry.id, status: entry.status } : undefined;
      return { ref, id, isEntry, note: earlier(ref) ? undefined : noteOf(delivery, entry), own, its };
    }),
  );
  const named = new Map<string, string>();
  for (const { ref, id, isEntry, note, own, its } of found) {
    const other = id === undefined ? undefined : named.get(id);
    if (id !== undefined && other !== undefined) {
      const [delivery, entry] = isEntry ? [other, ref] : [ref, other];
      throw new UsageError(
        `${delivery} and ${entry} name the same delivery (${entry} is its dead-letter entry); give one of them`,
      );
    }
    if (id !== undefined) named.set(id, ref);
    known.set(ref, {
      is_entry: isEntry,
      ...(id === undefined ? {} : { delivery_id: id }),
      ...(note ? { note } : {}),
      ...(own ? { entry: own } : {}),
      ...(its ? { delivery_entry: its } : {}),
    });
  }
  const noted = found.filter((f) => f.note !== undefined);
  if (noted.length > 0 && !ctx.out.isMachine) {
    const sends = `${resumed ? 'unless by an earlier attempt of this run whose answer was lost (the platform then answers with that replay), ' : ''}${dryRun ? 'replaying would send' : 'replaying sends'}`;
    if (noted.length === 1) {
      const { ref, note } = noted[0]!;
      const what =
        note!.note === 'unknown_status'
          ? `has a status svc does not know (${JSON.stringify(note!.status_word)}), so it may have been delivered`
          : note!.note === 'already_delivered'
            ? `was already delivered${note!.delivered_by ? ` (by ${note!.delivered_by})` : ''}`
            : `was already replayed${note!.replayed_as ? ` (as ${note!.replayed_as})` : ''}`;
      ctx.out.warn(`${ref} ${what}: ${sends} its event again`);
    } else {
      const named = noted.slice(0, 3).map((f) => f.ref);
      const unknown = noted.some((f) => f.note?.note === 'unknown_status');
      const more = noted.length > 3 ? `, and ${noted.length - 3} more` : '';
      ctx.out.warn(
        `${noted.length} of these were already delivered or replayed${unknown ? ', or have a status svc does not know' : ''} (${named.join(', ')}${more}): ${sends} their events again`,
      );
    }
  }
  return known;
}

/** An id of another shape than dlv_/dlq_ that the server knows neither as an entry nor as a delivery: exit 5. */
function unknownRef(line: CommandLine, webhook: string, ref: string): SvcError {
  const w = shellWord(webhook);
  return new SvcError(
    'not_found',
    `${ref} is neither a delivery nor a dead-letter entry of webhook ${webhook} (the server knows no such id); nothing was replayed`,
    {
      code: 'not_found',
      hint: `\`${line(`webhooks deliveries ${w}`)}\` and \`${line(`webhooks dlq ls ${w}`)}\` list them`,
    },
  );
}

/**
 * The webhook's dead-letter entries by delivery: the API looks an entry up by its own id only,
 * so a delivery named by its id finds its entry here (queued: it is replayed as that entry;
 * replayed or recovered: that is said). Without an answer, it is replayed as the delivery and
 * nothing is said.
 */
async function entriesByDelivery(
  platform: Platform,
  webhook: string,
  signal: AbortSignal,
): Promise<Map<string, DlqEntry>> {
  const byDelivery = new Map<string, DlqEntry>();
  try {
    for await (const entry of platform.webhooks.dlq.listAll(
      webhook,
      { status: 'all', limit: DLQ_PAGE.max },
      { signal },
    )) {
      byDelivery.set(entry.delivery_id, entry);
    }
  } catch (error) {
    if (!lookupMayFail(error)) throw error;
  }
  return byDelivery;
}
