import { Command } from 'commander';
import type { Webhook } from '../../api/schemas/webhooks.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import { Listing, type ListingOptions, listingOptions, parseListing } from '../listing.js';
import { WEBHOOK_COLUMNS } from './columns.js';

/** The largest page GET /v1/webhooks gives (the sandbox's; the reference shows no bound). */
const WEBHOOK_PAGE_MAX = 200;

export function parseWebhooksLs(flags: Record<string, unknown>): ListingOptions {
  return parseListing(flags);
}

export async function runWebhooksLs(ctx: Context, options: ListingOptions = parseListing({})): Promise<void> {
  const platform = await ctx.platform();
  const listing = new Listing<Webhook>(options, WEBHOOK_PAGE_MAX);
  await ctx.out.list(
    listing.items((page) => platform.webhooks.list(page)),
    WEBHOOK_COLUMNS,
    { empty: 'no webhooks in this tenant' },
  );
  listing.hintMore(ctx, svcCommand(ctx.settings(), 'webhooks ls'));
}

export function lsCommand(make: MakeContext): Command {
  const command = new Command('ls')
    .alias('list')
    .summary("List the tenant's webhooks")
    .description(
      "List the tenant's webhooks: target URL, event kinds, status, attempt ceiling. Needs tenant_admin.\n" +
        'Signing secrets are never listed (they are shown once, when a webhook is created or its secret rotated).',
    );
  for (const option of listingOptions('webhooks')) command.addOption(option);
  return command
    .addHelpText(
      'after',
      examples(
        ['svc webhooks ls', 'the first 50, a table on a terminal'],
        ['svc webhooks ls --all --json | jq -r ".[].id"', 'every webhook id'],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseWebhooksLs(flags);
      await runWebhooksLs(await make(cmd), options);
    });
}
