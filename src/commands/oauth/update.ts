import { Command, Option } from 'commander';
import { changedBetween, changedFields } from '../../api/changed-fields.js';
import { OAUTH_GRANT_TYPES, type OAuthGrantType } from '../../api/constants.js';
import type { OAuthClient, OAuthClientUpdateBody } from '../../api/schemas/oauth.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { fieldFlags } from '../../output/field-flags.js';
import { andList } from '../../output/format.js';
import { urlInWords } from '../../output/hosts.js';
import { changedIn } from '../changed-in.js';
import { choiceFlag, collect, examples, intFlag, type MakeContext, nonEmpty, parseScopes } from '../kit.js';
import { type ReplacedList, removedFrom } from '../removed-from.js';
import { MAX_SECONDS, redirectUri } from './create.js';
import { CLIENT_FIELD_FLAGS, clientArg, clientFields } from './shared.js';

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
    // A value given twice is one (as --scope): the platform refuses a list with repeats.
    ...(uris ? { redirect_uris: [...new Set(uris.map(redirectUri))] } : {}),
    ...(grants
      ? {
          grant_types: [
            ...new Set(grants.map((g) => choiceFlag('--grant-type', g, OAUTH_GRANT_TYPES)!)),
          ] as OAuthGrantType[],
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
  const platform = await ctx.platform();
  const before = await platform.oauth.clients.get(options.clientId);
  if (changedFields(before, options.change).length === 0) {
    // As `webhooks update`: nothing is sent, so no audit entry says a change that did not happen.
    await ctx.out.record(before, clientFields(before));
    if (!ctx.out.isMachine)
      ctx.out.info(`nothing changed: OAuth client ${before.client_id} ${unchanged(options.change, before)}`);
    return;
  }
  const client = await platform.oauth.clients.update(options.clientId, options.change);
  await ctx.out.record(client, clientFields(client));
  if (ctx.out.isMachine) return;
  // What changed is what the answer shows changed: a server may keep a value svc sent as one it had.
  const changed = changedBetween(before, client, options.change);
  if (changed.length === 0) {
    ctx.out.info(`nothing changed: OAuth client ${client.client_id} ${unchanged(options.change, client)}`);
  } else {
    ctx.out.success(
      `updated OAuth client ${client.client_id}${changedIn(ctx.settings())} (${changed.join(', ')})${removedFrom(before, client, LISTS)}`,
    );
  }
}

/**
 * The lists a repeated flag replaces, in words: what an update took out of them is said. A redirect
 * URI in words has its secrets masked, as a webhook URL's ✓ line (attack21b F8).
 */
const LISTS: readonly ReplacedList<OAuthClient>[] = [
  { key: 'redirect_uris', noun: 'redirect URI', shown: urlInWords },
  { key: 'scopes', noun: 'scope' },
  { key: 'grant_types', noun: 'grant type' },
];

/** What a change that changes nothing found already true of `client`, in words. */
function unchanged(change: OAuthClientUpdateBody, client: OAuthClient): string {
  const exactly = (what: string, list: readonly string[] | undefined) =>
    `already has exactly the ${what} ${(list ?? []).join(', ')}`;
  const facts = Object.keys(change).map((key) => {
    switch (key) {
      case 'name':
        return `is already named ${client.name}`;
      case 'description':
        return 'already has that description';
      case 'redirect_uris':
        return exactly('redirect URIs', change.redirect_uris?.map(urlInWords));
      case 'grant_types':
        return exactly('grant types', change.grant_types);
      case 'scopes':
        return exactly('scopes', change.scopes);
      case 'token_lifetime_seconds':
        return `already has a token lifetime of ${client.token_lifetime_seconds} s`;
      case 'refresh_token_lifetime_seconds':
        return `already has a refresh token lifetime of ${client.refresh_token_lifetime_seconds} s`;
      default:
        return client.pkce_required ? 'already requires PKCE' : 'already does not require PKCE';
    }
  });
  return andList(facts);
}

export function updateCommand(make: MakeContext): Command {
  const command = new Command('update')
    .summary("Change an OAuth client's registration")
    .description(
      "Change a client's name, description, redirect URIs, grant types, scopes, lifetimes or PKCE.\n" +
        'Repeated flags (--redirect-uri, --scope, --grant-type) replace the whole list. The server checks\n' +
        'the client as changed like a new one. Scopes removed stop working for tokens already issued;\n' +
        'redirect URIs and PKCE apply to new authorizations, lifetimes to new tokens. The secret is not\n' +
        'changed (see `svc oauth rotate-secret`). Adding scopes takes the permissions they reach (admin:\n' +
        "every permission of the tenant), and adding or changing a redirect URI those of all the client's\n" +
        'scopes and oauth_client.manage itself, held by you in the tenant without an end date, since the\n' +
        'client outlasts a just-in-time\n' +
        'grant (403 insufficient_permission otherwise, exit 4); removing scopes or URIs takes nothing\n' +
        'more. The consent page says such a change for 7 days. Only with your own login: with an API key\n' +
        "or a third-party client's token, any change is 403 user_required (exit 4).",
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
        [
          'svc oauth update cli_0123 --redirect-uri https://vendor.example/v2/callback',
          'replace its redirect URIs with this one (the others are removed)',
        ],
      ),
    )
    .action(async (clientId: string, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseOAuthUpdate(clientId, flags);
      await runOAuthUpdate(await make(cmd), options);
    });
  return fieldFlags(command, CLIENT_FIELD_FLAGS);
}
