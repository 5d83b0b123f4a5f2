import { Command, Option } from 'commander';
import { DLQ_PAGE, DLQ_STATUS_FILTERS } from '../../../api/constants.js';
import type { DlqEntry } from '../../../api/schemas/webhooks.js';
import { svcCommand } from '../../../config/settings.js';
import type { Context } from '../../../context.js';
import type { Platform } from '../../../platform/index.js';
import type { DlqPage } from '../../../platform/webhooks.js';
import { shellWord } from '../../../system/shell-words.js';
import { examples, type MakeContext } from '../../kit.js';
import { Listing, type ListingOptions, listingOptions, parseListing } from '../../listing.js';
import { type WithOptionalWebhook, withWebhook } from '../../pick.js';
import { resolveTimes } from '../../platform-clock.js';
import { DLQ_COLUMNS } from '../columns.js';
import { webhookArg } from '../shared.js';
import {
  type DlqFilterFlags,
  dlqQuery,
  filterArgs,
  filterOptions,
  parseDlqFilters,
  refuseUnknownKind,
  unsubscribedNote,
} from './filters.js';

export interface DlqOptions extends DlqFilterFlags, ListingOptions {
  webhook: string;
  /** --unlisted-event-type: --event-type is taken as given (refuseUnknownKind). */
  unlistedEventType?: boolean;
}

export function parseDlq(webhook: unknown, flags: Record<string, unknown>): WithOptionalWebhook<DlqOptions> {
  return {
    webhook: webhookArg(webhook),
    ...parseDlqFilters(flags),
    unlistedEventType: flags.unlistedEventType === true,
    ...parseListing(flags),
  };
}

export async function runDlq(ctx: Context, options: DlqOptions): Promise<void> {
  const platform = await ctx.platform();
  await refuseUnknownKind(platform, options.webhook, options.eventType, options.unlistedEventType === true);
  // Entries are dead-lettered on the platform's clock: a duration counts back from its time.
  const filters = { ...options, ...(await resolveTimes(ctx, platform, options)) };
  const listing = new Listing<DlqEntry, DlqPage>(options, DLQ_PAGE.max);
  const entries = listing.items((page) =>
    platform.webhooks.dlq.list(options.webhook, { ...dlqQuery(filters), ...page }),
  );
  const count = await ctx.out.list(entries, DLQ_COLUMNS);
  if (count === 0) await saidEmpty(ctx, platform, options);
  // A server that gives no `total` (the reference shows no body): how many were shown, no more.
  listing.hintMore(
    ctx,
    svcCommand(ctx.settings(), `webhooks dlq ${shellWord(options.webhook)}${filterArgs(filters)}`),
    listing.lastPage?.total,
  );
}

/**
 * Nothing listed: on a terminal, "The dead-letter queue is empty." without filters, else that no
 * entry matches them (the queue may hold others). With --event-type of a kind the webhook does not
 * subscribe to, it says so (the rule of `replay --dlq`'s "Nothing to replay"), on stderr in every
 * mode: a pipe's or --json's empty answer is left as it is (nothing, `[]`).
 */
async function saidEmpty(ctx: Context, platform: Platform, options: DlqOptions): Promise<void> {
  const note = await unsubscribedNote(platform, options.webhook, options.eventType);
  const filtered = [options.status, options.eventType, options.since, options.until].some(
    (f) => f !== undefined,
  );
  const status = options.status === 'all' ? '' : `${options.status ?? 'queued'} `;
  if (ctx.out.mode === 'table' || note !== '') {
    ctx.out.info(
      filtered ? `no ${status}dead-letter entry matches${note}` : 'the dead-letter queue is empty',
    );
  }
}

export function lsCommand(make: MakeContext): Command {
  const command = new Command('ls')
    .alias('list')
    .summary('List the dead-letter queue of a webhook')
    .description(
      'Deliveries that failed permanently (every attempt used), oldest first: the first 50, at most --limit\n' +
        'in total, or every one with --all. Entries stay queued until someone acts: `svc webhooks replay\n' +
        'WEBHOOK ENTRY... | --dlq` replays them (the entry becomes "replayed"), and `svc webhooks dlq\n' +
        'discard` removes them. `svc webhooks dlq WEBHOOK` is this command.',
    )
    .argument('[webhook]', 'webhook id')
    .addOption(
      new Option('--status <status>', 'entries in this state (default queued)').choices(DLQ_STATUS_FILTERS),
    );
  for (const option of [...listingOptions('entries'), ...filterOptions()]) command.addOption(option);
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
      await runDlq(ctx, await withWebhook(ctx, parseDlq(webhook, flags)));
    });
}
