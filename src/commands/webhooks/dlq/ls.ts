import { Command, Option } from 'commander';
import { DLQ_PAGE, DLQ_STATUS_FILTERS, EVENT_TYPES } from '../../../api/constants.js';
import type { Context } from '../../../context.js';
import { examples, intFlag, type MakeContext, nonEmpty } from '../../kit.js';
import { type WithOptionalWebhook, withWebhook } from '../../pick.js';
import { DLQ_COLUMNS, webhookArg } from '../shared.js';
import { type DlqFilters, dlqQuery, parseDlqFilters } from './filters.js';

export interface DlqOptions extends DlqFilters {
  webhook: string;
  limit: number | undefined;
  cursor: string | undefined;
  all: boolean;
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
  const platform = await ctx.platform();
  const query = { ...dlqQuery(options), limit: options.limit, cursor: options.cursor };
  const empty = 'The dead-letter queue is empty.';
  if (options.all) {
    await ctx.out.list(platform.webhooks.dlq.listAll(options.webhook, query), DLQ_COLUMNS, { empty });
    return;
  }
  const data = await platform.webhooks.dlq.list(options.webhook, query);
  await ctx.out.list(data.items, DLQ_COLUMNS, { empty });
  if (!ctx.out.isMachine && data.next_cursor) {
    ctx.out.info(
      `${data.items.length} of ${data.total.toLocaleString('en')} entries; more with --cursor ${data.next_cursor} (or --all)`,
    );
  }
}

export function lsCommand(make: MakeContext): Command {
  return new Command('ls')
    .alias('list')
    .summary('List the dead-letter queue of a webhook (the default: `svc webhooks dlq WEBHOOK`)')
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
