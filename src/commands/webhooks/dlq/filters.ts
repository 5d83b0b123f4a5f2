import { Option } from 'commander';
import { DLQ_STATUS_FILTERS, EVENT_KIND, EVENT_TYPES } from '../../../api/constants.js';
import type { DlqListQuery } from '../../../api/schemas/webhooks.js';
import { UsageError } from '../../../errors.js';
import { quoted } from '../../../output/format.js';
import { choiceFlag, type TimeFlags, timeFlags } from '../../kit.js';
import { flagWords } from '../../listing.js';

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

/** --event-type: any event kind (kinds are open-ended); the known ones are only suggestions. */
export function eventKindFlag(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  const kind = String(raw).trim();
  if (!EVENT_KIND.test(kind) || kind.length > 100) {
    throw new UsageError(
      `--event-type takes an event kind such as exception.sla.breached (lowercase words joined by dots), got ${quoted(kind)}`,
    );
  }
  return kind;
}

export function parseDlqFilters(flags: Record<string, unknown>): DlqFilterFlags {
  return {
    status: choiceFlag('--status', flags.status, DLQ_STATUS_FILTERS),
    eventType: eventKindFlag(flags.eventType),
    ...timeFlags(flags),
  };
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
      `${prefix}only this event kind (any kind; e.g. ${EVENT_TYPES.slice(0, 2).join(', ')})`,
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
