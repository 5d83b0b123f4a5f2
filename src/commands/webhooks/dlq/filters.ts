import { Option } from 'commander';
import { DLQ_STATUS_FILTERS, EVENT_TYPES } from '../../../api/constants.js';
import type { DlqListQuery } from '../../../api/schemas/webhooks.js';
import { UsageError } from '../../../errors.js';
import { choiceFlag, timeFlag } from '../../kit.js';

/** Which dead-letter entries a command looks at: `dlq ls`, `replay --dlq` and `dlq discard --all`. */
export interface DlqFilters {
  status: (typeof DLQ_STATUS_FILTERS)[number] | undefined;
  eventType: string | undefined;
  since: string | undefined;
  until: string | undefined;
}

export { timeFlag };

export function parseDlqFilters(flags: Record<string, unknown>, nowMs: number): DlqFilters {
  const filters: DlqFilters = {
    status: choiceFlag('--status', flags.status, DLQ_STATUS_FILTERS),
    eventType: choiceFlag('--event-type', flags.eventType, EVENT_TYPES),
    since: timeFlag('--since', flags.since, nowMs),
    until: timeFlag('--until', flags.until, nowMs),
  };
  if (filters.since && filters.until && Date.parse(filters.since) >= Date.parse(filters.until)) {
    throw new UsageError(`--since (${filters.since}) must be before --until (${filters.until})`);
  }
  return filters;
}

export function dlqQuery(filters: DlqFilters): DlqListQuery {
  const query: DlqListQuery = {};
  if (filters.status) query.status = filters.status;
  if (filters.eventType) query.event_type = filters.eventType as DlqListQuery['event_type'];
  if (filters.since) query.since = filters.since;
  if (filters.until) query.until = filters.until;
  return query;
}

/** --event-type, --since and --until, worded the same wherever entries are chosen. */
export function filterOptions(prefix = ''): Option[] {
  return [
    new Option('--event-type <type>', `${prefix}only this event kind`).choices(EVENT_TYPES),
    new Option('--since <time>', `${prefix}dead-lettered at or after: ISO 8601, or 30m, 2h, 7d ago`),
    new Option('--until <time>', `${prefix}dead-lettered before: ISO 8601, or a duration ago`),
  ];
}

/** --limit: at most N entries in total, wherever it is used; pages are an internal matter. */
export const LIMIT_MAX = 10_000_000;
