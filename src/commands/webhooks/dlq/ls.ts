import { Command, Option } from 'commander';
import { DLQ_PAGE, DLQ_STATUS_FILTERS } from '../../../api/constants.js';
import type { DlqEntry } from '../../../api/schemas/webhooks.js';
import type { Context } from '../../../context.js';
import { examples, intFlag, type MakeContext, nonEmpty } from '../../kit.js';
import { type WithOptionalWebhook, withWebhook } from '../../pick.js';
import { DLQ_COLUMNS, webhookArg } from '../shared.js';
import { type DlqFilters, dlqQuery, filterOptions, LIMIT_MAX, parseDlqFilters } from './filters.js';

export interface DlqOptions extends DlqFilters {
  webhook: string;
  /** At most this many entries in total; undefined with --all alone. */
  limit: number | undefined;
  cursor: string | undefined;
  all: boolean;
}

export function parseDlq(
  webhook: unknown,
  flags: Record<string, unknown>,
  nowMs: number,
): WithOptionalWebhook<DlqOptions> {
  const all = flags.all === true;
  const limit = intFlag('--limit', flags.limit, 1, LIMIT_MAX);
  return {
    webhook: webhookArg(webhook),
    ...parseDlqFilters(flags, nowMs),
    limit: limit ?? (all ? undefined : DLQ_PAGE.default),
    cursor: flags.cursor === undefined ? undefined : nonEmpty('--cursor', flags.cursor),
    all,
  };
}

export async function runDlq(ctx: Context, options: DlqOptions): Promise<void> {
  const platform = await ctx.platform();
  let shown = 0;
  let total = 0;
  let next: string | null | undefined = options.cursor;
  // Pages are sized so the last one ends at --limit: its cursor then continues exactly there.
  async function* entries(): AsyncGenerator<DlqEntry> {
    do {
      const left = options.limit === undefined ? DLQ_PAGE.max : options.limit - shown;
      const page = await platform.webhooks.dlq.list(options.webhook, {
        ...dlqQuery(options),
        limit: Math.min(DLQ_PAGE.max, left),
        ...(next ? { cursor: next } : {}),
      });
      total = page.total;
      next = page.next_cursor;
      for (const entry of page.items) {
        shown++;
        yield entry;
      }
    } while (next && (options.limit === undefined || shown < options.limit));
  }
  await ctx.out.list(entries(), DLQ_COLUMNS, { empty: 'The dead-letter queue is empty.' });
  if (!ctx.out.isMachine && next) {
    ctx.out.info(
      `${shown.toLocaleString('en')} of ${total.toLocaleString('en')} entries; more with --cursor ${next}${options.all ? '' : ' (or --all)'}`,
    );
  }
}

export function lsCommand(make: MakeContext): Command {
  const command = new Command('ls')
    .summary('List the dead-letter queue of a webhook')
    .description(
      'Deliveries that failed permanently (every attempt used), oldest first: the first 50, at most --limit\n' +
        'in total, or every one with --all. Entries stay queued until someone acts: `svc webhooks replay\n' +
        'WEBHOOK ENTRY... | --dlq` replays them (the entry becomes "replayed"), and `svc webhooks dlq\n' +
        'discard` removes them. `svc webhooks dlq WEBHOOK` is this command.',
    )
    .argument('[webhook]', 'webhook id')
    .addOption(new Option('--limit <n>', `at most N entries in total (default ${DLQ_PAGE.default})`))
    .addOption(new Option('--cursor <cursor>', 'continue where a previous listing stopped'))
    .addOption(new Option('--all', 'every entry, streamed as pages arrive'))
    .addOption(
      new Option('--status <status>', 'entries in this state (default queued)').choices(DLQ_STATUS_FILTERS),
    );
  for (const option of filterOptions()) command.addOption(option);
  return command
    .addHelpText(
      'after',
      examples(
        ['svc webhooks dlq wh_123', 'the oldest queued entries'],
        ['svc webhooks dlq wh_123 --all --ndjson | jq -r .id', 'every queued entry'],
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
