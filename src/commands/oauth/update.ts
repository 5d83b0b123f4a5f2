import { Command, Option } from 'commander';
import { OAUTH_GRANT_TYPES, type OAuthGrantType } from '../../api/constants.js';
import type { OAuthClientUpdateBody } from '../../api/schemas/oauth.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { choiceFlag, collect, examples, intFlag, type MakeContext, nonEmpty, parseScopes } from '../kit.js';
import { MAX_SECONDS, redirectUri } from './create.js';
import { clientArg, clientFields } from './shared.js';

export interface OAuthUpdateOptions {
  clientId: string;
  change: OAuthClientUpdateBody;
}

export function parseOAuthUpdate(clientId: unknown, flags: Record<string, unknown>): OAuthUpdateOptions {
  const uris = flags.redirectUri as string[] | undefined;
  const grants = flags.grantType as string[] | undefined;
  const scopes = flags.scope === undefined ? undefined : parseScopes('--scope', flags.scope);
  const tokenLifetime = intFlag('--token-lifetime', flags.tokenLifetime, 1, MAX_SECONDS);
  const refreshLifetime = intFlag('--refresh-token-lifetime', flags.refreshTokenLifetime, 1, MAX_SECONDS);
  const change: OAuthClientUpdateBody = {
    ...(flags.name === undefined ? {} : { name: nonEmpty('--name', flags.name) }),
    ...(flags.description === undefined ? {} : { description: String(flags.description) }),
    ...(uris ? { redirect_uris: uris.map(redirectUri) } : {}),
    ...(grants
      ? {
          grant_types: grants.map(
            (g) => choiceFlag('--grant-type', g, OAUTH_GRANT_TYPES)!,
          ) as OAuthGrantType[],
        }
      : {}),
    ...(scopes ? { scopes: scopes as OAuthClientUpdateBody['scopes'] } : {}),
    ...(tokenLifetime === undefined ? {} : { token_lifetime_seconds: tokenLifetime }),
    ...(refreshLifetime === undefined ? {} : { refresh_token_lifetime_seconds: refreshLifetime }),
    ...(typeof flags.pkce === 'boolean' ? { pkce_required: flags.pkce } : {}),
  };
  if (Object.keys(change).length === 0) {
    throw new UsageError(
      'nothing to change: give --name, --description, --redirect-uri, --grant-type, --scope, a lifetime, --pkce or --no-pkce',
    );
  }
  return { clientId: clientArg(clientId), change };
}

export async function runOAuthUpdate(ctx: Context, options: OAuthUpdateOptions): Promise<void> {
  const client = await (await ctx.platform()).oauth.clients.update(options.clientId, options.change);
  await ctx.out.record(client, clientFields(client));
  if (!ctx.out.isMachine) {
    ctx.out.success(`updated OAuth client ${client.client_id} (${Object.keys(options.change).join(', ')})`);
  }
}

export function updateCommand(make: MakeContext): Command {
  return new Command('update')
    .summary("Change an OAuth client's registration")
    .description(
      "Change a client's name, description, redirect URIs, grant types, scopes, lifetimes or PKCE.\n" +
        'Repeated flags (--redirect-uri, --scope, --grant-type) replace the whole list. The server checks\n' +
        'the client as changed like a new one. Scopes removed stop working for tokens already issued;\n' +
        'redirect URIs and PKCE apply to new authorizations, lifetimes to new tokens. The secret is not\n' +
        'changed (see `svc oauth rotate-secret`).',
    )
    .argument('<client-id>', 'the client')
    .addOption(new Option('--name <name>', 'display name'))
    .addOption(new Option('--description <text>', 'free text'))
    .addOption(
      new Option('--redirect-uri <uri>', 'allowed redirect URIs (replaces them; repeatable)').argParser(
        collect,
      ),
    )
    .addOption(
      new Option('--grant-type <type>', 'grant types (replaces them; repeatable)')
        .choices(OAUTH_GRANT_TYPES)
        .argParser(collect),
    )
    .addOption(
      new Option('--scope <scope>', 'scopes the client may ask for (replaces them; repeatable)').argParser(
        collect,
      ),
    )
    .addOption(new Option('--token-lifetime <seconds>', 'access token lifetime'))
    .addOption(new Option('--refresh-token-lifetime <seconds>', 'refresh token lifetime'))
    .addOption(new Option('--pkce', 'require PKCE'))
    .addOption(new Option('--no-pkce', 'stop requiring PKCE (not recommended)'))
    .addHelpText(
      'after',
      examples(
        [
          'svc oauth update cli_0123 --scope read:exceptions',
          'narrow its scopes (tokens lose the others at once)',
        ],
        ['svc oauth update cli_0123 --redirect-uri https://vendor.example/v2/callback', 'a new redirect URI'],
      ),
    )
    .action(async (clientId: string, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseOAuthUpdate(clientId, flags);
      await runOAuthUpdate(await make(cmd), options);
    });
}
