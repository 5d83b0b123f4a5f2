import { Option } from 'commander';
import { DLQ_STATUS_FILTERS, EVENT_KIND, EVENT_TYPES } from '../../../api/constants.js';
import type { DlqListQuery, Webhook } from '../../../api/schemas/webhooks.js';
import { closest } from '../../../api/suggest.js';
import { optionalLookup, UsageError } from '../../../errors.js';
import { quoted } from '../../../output/format.js';
import type { Platform } from '../../../platform/index.js';
import { onlyWith } from '../../bulk-flags.js';
import { choiceFlag, intFlag } from '../../kit.js';
import { flagWords, LIMIT_MAX } from '../../listing.js';
import { type TimeFlags, timeFlags } from '../../time-flags.js';

/**
 * Which dead-letter entries a command looks at (`dlq ls`, `replay --dlq` and `dlq discard --all`),
 * as given: a --since/--until duration counts back from the platform's clock, the one entries are
 * dead-lettered on, learnt when the command runs (a bulk run's kept in its journal).
 */
export interface DlqFilterFlags extends TimeFlags {
  status: (typeof DLQ_STATUS_FILTERS)[number] | undefined;
  eventType: string | undefined;
}

/** The filters with --since/--until as instants: what the API is sent. */
export interface DlqFilters extends Omit<DlqFilterFlags, 'since' | 'until'> {
  since: string | undefined;
  until: string | undefined;
}

/**
 * --event-type: any event kind (kinds are open-ended), but not a near miss of a known one unless
 * asked: a one-letter typo on the dead-letter queue read as "Nothing to replay", exit 0. A kind
 * within a typo's reach of one svc lists (EVENT_TYPES) and not itself one is refused before
 * anything is read, naming the way out — --unlisted-event-type takes it as given (a kind newer
 * than svc: review16 R7); one svc does not know at all (ledger.entry.posted) passes.
 */
export function eventKindFlag(raw: unknown, asGiven = false): string | undefined {
  if (raw === undefined) return undefined;
  const kind = String(raw).trim();
  if (!EVENT_KIND.test(kind) || kind.length > 100) {
    throw new UsageError(
      `--event-type takes an event kind such as exception.sla.breached (lowercase words joined by dots), got ${quoted(kind)}`,
    );
  }
  const meant = asGiven ? undefined : nearMissKind(kind);
  if (meant !== undefined) {
    throw new UsageError(`--event-type ${kind} is not an event kind svc knows (did you mean ${meant}?)`, {
      hint: `if the platform sends ${kind} (kinds are open-ended), add --unlisted-event-type to filter by it as given`,
    });
  }
  return kind;
}

/** The kind of EVENT_TYPES a kind is a typo of (within a typo's reach, not one itself), if any. */
function nearMissKind(kind: string): string | undefined {
  return (EVENT_TYPES as readonly string[]).includes(kind) ? undefined : closest(kind, EVENT_TYPES);
}

/** The sandbox's trigger: it emits only the kinds svc lists, so a near miss is a usage error naming it. */
export function refuseNearMissKind(kind: string): void {
  const meant = nearMissKind(kind);
  if (meant !== undefined) {
    throw new UsageError(`${kind} is not an event kind the platform sends (did you mean ${meant}?)`);
  }
}

/**
 * --event-type of a kind svc does not list (EVENT_TYPES, the kinds the reference's platform and the
 * sandbox send) on the dead-letter queue (attack26a F5): `nope.event` matched nothing, and "Nothing
 * to replay", exit 0, hid a typo in a nightly job. Refused, exit 2, naming the kinds — unless the
 * webhook subscribes to it (a platform newer than svc sends kinds svc does not list, and a webhook
 * can only be subscribed to a kind its platform has: create and update refuse the others), or it
 * is taken as given (--unlisted-event-type: a newer kind the webhook no longer subscribes to, whose
 * entries are still queued). `hook` is the webhook if the command has read it; else it is read
 * here, only for such a kind. A read that fails leaves the kinds svc lists to decide.
 */
export async function refuseUnknownKind(
  platform: Platform,
  webhook: string,
  kind: string | undefined,
  asGiven: boolean,
  hook?: Webhook,
): Promise<void> {
  if (kind === undefined || asGiven || (EVENT_TYPES as readonly string[]).includes(kind)) return;
  const read = hook ?? (await optionalLookup(platform.webhooks.get(webhook)));
  const subscribed: readonly string[] = read?.event_types ?? [];
  if (subscribed.includes(kind)) return;
  const kinds = [...new Set<string>([...EVENT_TYPES, ...subscribed])];
  throw new UsageError(`--event-type ${quoted(kind)} must be one of ${kinds.join(', ')}`, {
    hint: `if the platform sends ${kind} (a kind newer than svc), add --unlisted-event-type to filter by it as given`,
  });
}

export function parseDlqFilters(flags: Record<string, unknown>): DlqFilterFlags {
  if (flags.eventType === undefined) onlyWith(flags, ['unlistedEventType'], '--event-type');
  return {
    status: choiceFlag('--status', flags.status, DLQ_STATUS_FILTERS),
    eventType: eventKindFlag(flags.eventType, flags.unlistedEventType === true),
    ...timeFlags(flags),
  };
}

/**
 * What a run over the dead-letter queue (`replay --dlq`, `dlq discard --all`) is given: its filters
 * (no --status: a run takes queued entries), the flags as typed (a journal is found again by them,
 * even when --since is relative) and --limit.
 */
export function dlqRunScope(flags: Record<string, unknown>): {
  filters: DlqFilterFlags;
  filterFlags: Array<string | undefined>;
  limit: number | undefined;
  /** --unlisted-event-type: --event-type is taken as given (refuseUnknownKind). */
  unlistedEventType: boolean;
} {
  const text = (v: unknown) => (v === undefined ? undefined : String(v));
  return {
    filters: parseDlqFilters({ ...flags, status: undefined }),
    filterFlags: [flags.eventType, flags.since, flags.until, flags.limit].map(text),
    limit: intFlag('--limit', flags.limit, 1, LIMIT_MAX),
    unlistedEventType: flags.unlistedEventType === true,
  };
}

/** Ids named on the command line are each acted on once: one given twice is refused, named. */
export function refuseRepeatedIds(ids: string[], what: string): void {
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new UsageError(`${twice} is given twice; give each ${what} once`);
}

export function dlqQuery(filters: DlqFilters): DlqListQuery {
  const query: DlqListQuery = {};
  if (filters.status) query.status = filters.status;
  if (filters.eventType) query.event_type = filters.eventType as DlqListQuery['event_type'];
  if (filters.since) query.since = filters.since;
  if (filters.until) query.until = filters.until;
  return query;
}

/**
 * The filters as flags, for a "continue with --cursor" hint: a cursor is bound to its filters, so
 * times are the instants they resolved to (not `2h`, which moves).
 */
export function filterArgs(filters: DlqFilters): string {
  return flagWords([
    ['--status', filters.status],
    ['--event-type', filters.eventType],
    ['--since', filters.since],
    ['--until', filters.until],
  ]);
}

/** --event-type, --since and --until, worded the same wherever entries are chosen. */
export function filterOptions(prefix = ''): Option[] {
  return [
    new Option(
      '--event-type <type>',
      `${prefix}only this event kind (one svc knows, e.g. ${EVENT_TYPES.slice(0, 2).join(', ')}, or one the webhook subscribes to)`,
    ),
    new Option(
      '--unlisted-event-type',
      `${prefix}take --event-type as given, though svc does not list it (a kind newer than svc)`,
    ),
    new Option(
      '--since <time>',
      `${prefix}dead-lettered at or after: ISO 8601 with a zone, a date (00:00Z), or 30m, 2h, 7d ago on the platform's clock`,
    ),
    new Option(
      '--until <time>',
      `${prefix}dead-lettered before: ISO 8601 with a zone, a date (00:00Z), or a duration ago`,
    ),
  ];
}

/**
 * For a "Nothing to …" line: ` (W does not subscribe to K; it subscribes to …)` when the webhook
 * as read does not take --event-type's kind (webhook.test aside: a test goes to every webhook),
 * else nothing. Entries of a kind it no longer takes may still be queued, so this only explains.
 */
export function unsubscribed(hook: Webhook | undefined, kind: string | undefined): string {
  if (hook === undefined || kind === undefined || kind === 'webhook.test') return '';
  if (hook.event_types.includes(kind as Webhook['event_types'][number])) return '';
  return ` (${hook.id} does not subscribe to ${kind}; it subscribes to ${hook.event_types.join(', ')})`;
}

/**
 * `unsubscribed` for a command that has not read the webhook (`dlq ls`, `dlq discard --all`): the
 * webhook is read only when --event-type names a kind, once nothing matched; a read that fails
 * (optionalLookup) leaves the note out, since it only explains an empty result.
 */
export async function unsubscribedNote(
  platform: Platform,
  webhook: string,
  kind: string | undefined,
): Promise<string> {
  if (kind === undefined || kind === 'webhook.test') return '';
  return unsubscribed(await optionalLookup(platform.webhooks.get(webhook)), kind);
}
