import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import { clientArg, clientFields } from './shared.js';

export interface OAuthGetOptions {
  clientId: string;
}

export function parseOAuthGet(clientId: unknown): OAuthGetOptions {
  return { clientId: clientArg(clientId) };
}

export async function runOAuthGet(ctx: Context, options: OAuthGetOptions): Promise<void> {
  const client = await (await ctx.platform()).oauth.clients.get(options.clientId);
  await ctx.out.record(client, clientFields(client));
}

export function getCommand(make: MakeContext): Command {
  return new Command('get')
    .summary('Show one OAuth client')
    .description(
      'Show an OAuth client of the tenant: redirect URIs, grant types, scopes, lifetimes, PKCE. Never its secret.',
    )
    .argument('<client-id>', 'the client')
    .addHelpText('after', examples(['svc oauth get cli_0123', 'one client']))
    .action(async (clientId: string, _flags: unknown, cmd: Command) => {
      const options = parseOAuthGet(clientId);
      await runOAuthGet(await make(cmd), options);
    });
}
