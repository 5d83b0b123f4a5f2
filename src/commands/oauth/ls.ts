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
      'List the OAuth clients registered in the tenant (oauth_client.manage). Secrets are never listed.\n' +
        'A list in a cell (scopes, redirect URIs) joins its items with ","; a comma inside one is written\n' +
        '%2C, so the cell splits back into its items. On a terminal, a redirect URI whose host is not\n' +
        'ASCII (a look-alike of another) shows the host a browser reaches in its place\n' +
        '(https://xn--.../), which no cut of the column takes away; oauth get shows both.',
    )
    .addHelpText(
      'after',
      examples(
        ['svc oauth ls', 'a table'],
        ['svc oauth ls --json | jq -r ".[].client_id"', 'the client ids'],
        ["svc oauth ls | cut -f4 | tr , '\\n'", 'every redirect URI, one per line'],
      ),
    )
    .action(async (_flags: unknown, cmd: Command) => runOAuthLs(await make(cmd)));
}
