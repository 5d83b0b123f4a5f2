import { DLQ_STATUS_FILTERS, EVENT_TYPES, type EventType } from '../../../api/constants.js';
import { type DurationUnit, isoSeconds, UNIT_MS } from '../../../api/time.js';
import { UsageError } from '../../../errors.js';
import { choiceFlag } from '../../kit.js';

/** The filters of a dead-letter queue listing, shared by `dlq ls` and `replay --dlq`. */
export interface DlqFilters {
  status: (typeof DLQ_STATUS_FILTERS)[number] | undefined;
  eventType: EventType | undefined;
  since: string | undefined;
  until: string | undefined;
}

/** --since/--until: an ISO 8601 time (or a date), or a duration back from now such as 2h or 7d. */
export function timeFlag(flag: string, raw: unknown, nowMs: number): string | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  const ago = /^(\d+)(s|m|h|d)$/.exec(text);
  if (ago) {
    return isoSeconds(nowMs - Number(ago[1]) * UNIT_MS[ago[2] as DurationUnit]);
  }
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new UsageError(
      `${flag} takes an ISO 8601 time (2026-01-15T09:30:00Z) or a duration back from now (30m, 2h, 7d), got ${JSON.stringify(text)}`,
    );
  }
  return isoSeconds(ms);
}

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

export function dlqQuery(filters: DlqFilters) {
  return {
    status: filters.status,
    event_type: filters.eventType,
    since: filters.since,
    until: filters.until,
  };
}
