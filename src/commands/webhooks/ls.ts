import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import { WEBHOOK_COLUMNS } from './columns.js';

export async function runWebhooksLs(ctx: Context): Promise<void> {
  const platform = await ctx.platform();
  await ctx.out.list(platform.webhooks.listAll({ limit: 200 }), WEBHOOK_COLUMNS, {
    empty: 'No webhooks in this tenant.',
  });
  platform.sayTwice((note) => ctx.out.info(note), 'printed');
}

export function lsCommand(make: MakeContext): Command {
  return new Command('ls')
    .alias('list')
    .summary("List the tenant's webhooks")
    .description(
      "List the tenant's webhooks: target URL, event kinds, status, attempt ceiling. Needs tenant_admin.\n" +
        'Signing secrets are never listed (they are shown once, when a webhook is created or its secret rotated).',
    )
    .addHelpText(
      'after',
      examples(
        ['svc webhooks ls', 'a table on a terminal'],
        ['svc webhooks ls --json | jq -r ".[].id"', 'the webhook ids'],
      ),
    )
    .action(async (_flags: unknown, cmd: Command) => runWebhooksLs(await make(cmd)));
}
