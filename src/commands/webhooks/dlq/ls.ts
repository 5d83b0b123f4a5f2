import { Command, Option } from 'commander';
import { DLQ_PAGE, DLQ_STATUS_FILTERS, EVENT_TYPES } from '../../../api/constants.js';
import type { DlqEntry, DlqList } from '../../../api/schemas/webhooks.js';
import { type DurationUnit, isoSeconds, UNIT_MS } from '../../../api/time.js';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { path } from '../../../http/path.js';
import { choiceFlag, examples, intFlag, type MakeContext, nonEmpty } from '../../kit.js';
import { type WithOptionalWebhook, withWebhook } from '../../pick.js';
import { DLQ_COLUMNS, webhookArg } from '../shared.js';

export interface DlqFilters {
  status: (typeof DLQ_STATUS_FILTERS)[number] | undefined;
  eventType: string | undefined;
  since: string | undefined;
  until: string | undefined;
}

export interface DlqOptions extends DlqFilters {
  webhook: string;
  limit: number | undefined;
  cursor: string | undefined;
  all: boolean;
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

export function parseDlq(
  webhook: unknown,
  flags: Record<string, unknown>,
  nowMs: number,
): WithOptionalWebhook<DlqOptions> {
  return {
    webhook: webhookArg(webhook),
    ...parseDlqFilters(flags, nowMs),
    limit: intFlag('--limit', flags.limit, DLQ_PAGE.min, DLQ_PAGE.max),
    cursor: flags.cursor === undefined ? undefined : nonEmpty('--cursor', flags.cursor),
    all: flags.all === true,
  };
}

export async function runDlq(ctx: Context, options: DlqOptions): Promise<void> {
  const api = await ctx.api();
  const route = path`/v1/webhooks/${options.webhook}/dlq`;
  const query = { ...dlqQuery(options), limit: options.limit, cursor: options.cursor };
  const empty = 'The dead-letter queue is empty.';
  if (options.all) {
    await ctx.out.list(api.paginate<DlqEntry>(route, query), DLQ_COLUMNS, { empty });
    return;
  }
  const { data } = await api.get<DlqList>(route, query);
  await ctx.out.list(data.items, DLQ_COLUMNS, { empty });
  if (!ctx.out.isMachine && data.next_cursor) {
    ctx.out.info(
      `${data.items.length} of ${data.total.toLocaleString('en')} entries; more with --cursor ${data.next_cursor} (or --all)`,
    );
  }
}

export function dlqCommand(make: MakeContext): Command {
  return new Command('dlq')
    .summary('The dead-letter queue of a webhook')
    .description(
      'Deliveries that failed permanently (every attempt used), oldest first. Entries are queued until\n' +
        'someone acts: `svc webhooks replay WEBHOOK --dlq` replays them (the entry becomes "replayed"), and\n' +
        'DELETE /v1/webhooks/WEBHOOK/dlq/ENTRY discards one (`svc api DELETE …`).',
    )
    .argument('[webhook]', 'webhook id')
    .addOption(
      new Option('--limit <n>', `page size, ${DLQ_PAGE.min}-${DLQ_PAGE.max} (default ${DLQ_PAGE.default})`),
    )
    .addOption(new Option('--cursor <cursor>', 'continue after a previous page'))
    .addOption(new Option('--all', 'fetch every page, streaming rows as they arrive'))
    .addOption(
      new Option('--status <status>', 'entries in this state (default queued)').choices(DLQ_STATUS_FILTERS),
    )
    .addOption(new Option('--event-type <type>', 'only this event kind').choices(EVENT_TYPES))
    .addOption(new Option('--since <time>', 'dead-lettered at or after: ISO 8601, or 30m, 2h, 7d ago'))
    .addOption(new Option('--until <time>', 'dead-lettered before: ISO 8601, or a duration ago'))
    .addHelpText(
      'after',
      examples(
        ['svc webhooks dlq wh_123', 'the oldest queued entries'],
        ['svc webhooks dlq wh_123 --all --ndjson | jq -r .delivery_id', 'every queued entry'],
        ['svc webhooks dlq wh_123 --since 2h --event-type exception.sla.breached', 'recent SLA breaches'],
      ),
    )
    .action(async (webhook: string | undefined, flags: Record<string, unknown>, cmd: Command) => {
      const ctx = await make(cmd);
      await runDlq(
        ctx,
        await withWebhook(ctx, parseDlq(webhook, flags, ctx.clock.now()), 'listing the dead-letter queue'),
      );
    });
}
