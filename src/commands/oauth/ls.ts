import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import { CLIENT_COLUMNS } from './shared.js';

export async function runOAuthLs(ctx: Context): Promise<void> {
  const data = await (await ctx.platform()).oauth.clients.list();
  await ctx.out.list(data.items, CLIENT_COLUMNS, { empty: 'No OAuth clients in this tenant.' });
}

export function lsCommand(make: MakeContext): Command {
  return new Command('ls')
    .alias('list')
    .summary("List the tenant's OAuth clients")
    .description(
      'List the OAuth clients registered in the tenant (oauth_client.manage). Secrets are never listed.',
    )
    .addHelpText(
      'after',
      examples(
        ['svc oauth ls', 'a table'],
        ['svc oauth ls --json | jq -r ".[].client_id"', 'the client ids'],
      ),
    )
    .action(async (_flags: unknown, cmd: Command) => runOAuthLs(await make(cmd)));
}
