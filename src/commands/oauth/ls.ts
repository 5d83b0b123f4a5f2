import { Command } from 'commander';
import type { OAuthClient } from '../../api/schemas/oauth.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import {
  Listing,
  type ListingOptions,
  listingOptions,
  parseWholeListing,
  WHOLE_LIST_HELP,
} from '../listing.js';
import { CLIENT_COLUMNS } from './shared.js';

export function parseOAuthLs(flags: Record<string, unknown>): ListingOptions {
  return parseWholeListing(flags, 'oauth ls', false);
}

export async function runOAuthLs(ctx: Context, options: ListingOptions = parseOAuthLs({})): Promise<void> {
  const platform = await ctx.platform();
  // One answer holds every client (WHOLE_LIST_HELP): the listing reads it as its only page.
  const listing = new Listing<OAuthClient>(options, Number.MAX_SAFE_INTEGER, 'oauth ls');
  await ctx.out.list(
    listing.items(() => platform.oauth.clients.list()),
    CLIENT_COLUMNS,
    { empty: 'no OAuth clients in this tenant' },
  );
  listing.hintMore(ctx, svcCommand(ctx.settings(), 'oauth ls'));
}

export function lsCommand(make: MakeContext): Command {
  const command = new Command('ls')
    .alias('list')
    .summary("List the tenant's OAuth clients")
    .description(
      'List the OAuth clients registered in the tenant (oauth_client.manage). Secrets are never listed.\n' +
        'A list in a cell (scopes, redirect URIs) joins its items with "," in a pipe (", " on a terminal);\n' +
        'a comma inside one is written %2C, so the cell splits back into its items. On a terminal, a\n' +
        'redirect URI whose host is not ASCII (a look-alike of another) shows the host a browser reaches\n' +
        `in its place (https://xn--.../), which no cut of the column takes away; oauth get shows both.\n${WHOLE_LIST_HELP}`,
    );
  for (const option of listingOptions('clients')) command.addOption(option);
  return command
    .addHelpText(
      'after',
      examples(
        ['svc oauth ls', 'the first 50, a table on a terminal'],
        ['svc oauth ls --json | jq -r ".[].client_id"', 'the client ids'],
        ["svc oauth ls | cut -f4 | tr , '\\n'", 'every redirect URI, one per line'],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseOAuthLs(flags);
      await runOAuthLs(await make(cmd), options);
    });
}
