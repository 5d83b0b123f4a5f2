import { Command, Option } from 'commander';
import { DELIVERY_PAGE, DELIVERY_STATUS_FILTERS, type DeliveryStatusFilter } from '../../../api/constants.js';
import type { DeliverySummary } from '../../../api/schemas/webhooks.js';
import type { Context } from '../../../context.js';
import { choiceFlag, examples, intFlag, type MakeContext, nonEmpty } from '../../kit.js';
import { type WithOptionalWebhook, withWebhook } from '../../pick.js';
import { DELIVERY_COLUMNS, webhookArg } from '../shared.js';

export interface DeliveriesOptions {
  webhook: string;
  status: DeliveryStatusFilter | undefined;
  limit: number | undefined;
  cursor: string | undefined;
}

export function parseDeliveries(
  webhook: unknown,
  flags: Record<string, unknown>,
): WithOptionalWebhook<DeliveriesOptions> {
  return {
    webhook: webhookArg(webhook),
    status: choiceFlag('--status', flags.status, DELIVERY_STATUS_FILTERS),
    limit: intFlag('--limit', flags.limit, DELIVERY_PAGE.min, DELIVERY_PAGE.max),
    cursor: flags.cursor === undefined ? undefined : nonEmpty('--cursor', flags.cursor),
  };
}

/** The counts; `recovered` (failures a delivered replay made good) only when there are some. */
export function summaryLine(s: DeliverySummary): string {
  const n = (x: number) => x.toLocaleString('en');
  const recovered = s.recovered ? `, ${n(s.recovered)} recovered` : '';
  return `${n(s.total)} deliver${s.total === 1 ? 'y' : 'ies'}: ${n(s.delivered)} delivered, ${n(s.failed)} failed${recovered}, ${n(s.in_flight)} in flight`;
}

export async function runDeliveries(ctx: Context, options: DeliveriesOptions): Promise<void> {
  const platform = await ctx.platform();
  const data = await platform.webhooks.deliveries.list(options.webhook, {
    status: options.status,
    limit: options.limit,
    cursor: options.cursor,
  });
  // --json keeps the API's object (items and summary); --ndjson streams the items.
  if (ctx.out.mode === 'json') return ctx.out.json(data);
  if (ctx.out.mode === 'table') await ctx.out.text(summaryLine(data.summary));
  else if (ctx.out.mode === 'plain') ctx.out.info(summaryLine(data.summary));
  await ctx.out.list(data.items, DELIVERY_COLUMNS, {
    empty: options.status ? `No ${options.status} deliveries.` : 'No deliveries yet.',
  });
  if (data.next_cursor && !ctx.out.isMachine) {
    ctx.out.info(
      `More: svc webhooks deliveries ${options.webhook}${options.status ? ` --status ${options.status}` : ''} --cursor ${data.next_cursor}`,
    );
  }
}

export function lsCommand(make: MakeContext): Command {
  return new Command('ls')
    .alias('list')
    .summary('Recent deliveries of a webhook, with outcome counts')
    .description(
      'Recent deliveries of a webhook, most recent first, below a summary of every delivery of the webhook\n' +
        '(total, delivered, failed, in flight). States: pending (no attempt finished yet), retrying (an attempt\n' +
        'failed, another is scheduled), delivered, failed (attempts used up; in the dead-letter queue),\n' +
        'recovered (failed, then a replay of it was delivered). `svc webhooks deliveries get` shows one.\n' +
        'With --json the API object is printed whole ({items, summary, next_cursor}).',
    )
    .argument('[webhook]', 'webhook id (see `svc webhooks ls`)')
    .addOption(
      new Option(
        '--status <status>',
        'only deliveries in this state (in_flight: pending or retrying)',
      ).choices(DELIVERY_STATUS_FILTERS),
    )
    .addOption(
      new Option(
        '--limit <n>',
        `how many, ${DELIVERY_PAGE.min}-${DELIVERY_PAGE.max} (default ${DELIVERY_PAGE.default})`,
      ),
    )
    .addOption(new Option('--cursor <cursor>', 'continue after a previous page'))
    .addHelpText(
      'after',
      examples(
        [
          'svc webhooks deliveries wh_123',
          'the summary and the latest deliveries (the same as `deliveries ls wh_123`)',
        ],
        ['svc webhooks deliveries wh_123 --status failed --limit 200', 'dead-lettered deliveries'],
        ['svc webhooks deliveries wh_123 --json | jq .summary', 'the outcome counts'],
      ),
    )
    .action(async (webhook: string | undefined, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseDeliveries(webhook, flags);
      const ctx = await make(cmd);
      await runDeliveries(ctx, await withWebhook(ctx, options, 'listing deliveries'));
    });
}
