import { Command, Option } from 'commander';
import { acceptsSvcRedirect, SVC_REDIRECT_EXAMPLE } from '../../api/redirect-uris.js';
import { clientSecretFor, refusePublicClientSecret } from '../../auth/client-secret.js';
import { endReplacedSession } from '../../auth/end-session.js';
import { authorizeWithBrowser } from '../../auth/flow.js';
import { secretShellText } from '../../auth/secret-input.js';
import type { TokenSet } from '../../auth/token-endpoint.js';
import { refuseSentSetting, refuseUrlQueries, svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { SvcError, UsageError } from '../../errors.js';
import { relativeTime } from '../../output/format.js';
import { shellWord } from '../../system/shell-words.js';
import {
  addBrowserLoginOptions,
  type BrowserLoginOptions,
  isUnknownClient,
  loginStorable,
  parseBrowserLogin,
  type StoredLogin,
  storeLogin,
  warnClientNotFound,
} from '../browser-login.js';
import { examples, type MakeContext } from '../kit.js';
import { tokensUnprinted, unlessClosed } from './unprinted-tokens.js';

export interface OAuthAuthorizeOptions extends BrowserLoginOptions {
  clientId: string;
  publicClient: boolean;
  save: boolean;
}

export function parseOAuthAuthorize(flags: Record<string, unknown>): OAuthAuthorizeOptions {
  const base = parseBrowserLogin(flags);
  if (!base.clientId) throw new UsageError('--client-id is required');
  const publicClient = flags.public === true;
  if (publicClient && (base.secret.file !== undefined || base.secret.stdin)) {
    throw new UsageError('--public cannot be combined with --client-secret-file or --client-secret-stdin');
  }
  return { ...base, clientId: base.clientId, publicClient, save: flags.save === true };
}

/**
 * Prints a token response in full (it is what the command is for), every field the server sent;
 * each write waits until stdout took it, so a cut print knows whether any of it got out.
 */
async function printTokens(ctx: Context, tokens: TokenSet): Promise<void> {
  if (ctx.out.isMachine) return ctx.out.json(tokens.raw, { taken: true });
  await ctx.out.record(
    tokens.raw,
    Object.entries(tokens.raw).map(([name, value]) => [name, value] as [string, unknown]),
    { taken: true },
  );
}

/**
 * Before the browser: a client with no redirect URI svc's loopback matches would leave the user
 * at a "redirect URI not registered" page while svc waits minutes. Checked when the caller may
 * read the client; when it may not (no credential, 403, 404), the flow goes ahead as it would,
 * after a warning when the platform says it has no such client (returned: what a timeout says
 * first).
 */
async function checkRedirectUris(ctx: Context, clientId: string): Promise<string | undefined> {
  let uris: string[];
  try {
    uris = (await (await ctx.platform()).oauth.clients.get(clientId)).redirect_uris ?? [];
  } catch (error) {
    if (isUnknownClient(error)) return warnClientNotFound(ctx, clientId);
    // Any other 404 is a server that is not the platform, or lacks the path: it cannot be checked.
    if (error instanceof SvcError && ['auth', 'forbidden', 'not_found'].includes(error.category))
      return undefined;
    throw error;
  }
  if (acceptsSvcRedirect(uris)) return undefined;
  const keep = uris.map((uri) => `--redirect-uri ${shellWord(uri)} `).join('');
  throw new UsageError(
    `client ${clientId} has no redirect URI svc can use: it has ${uris.join(', ') || 'none'}, ` +
      `svc redirects to http://127.0.0.1:PORT/callback`,
    {
      hint: `register ${SVC_REDIRECT_EXAMPLE} (any port is accepted): \`${svcCommand(ctx.settings(), `oauth update ${shellWord(clientId)} ${keep}--redirect-uri ${SVC_REDIRECT_EXAMPLE}`)}\``,
    },
  );
}

export async function runOAuthAuthorize(ctx: Context, options: OAuthAuthorizeOptions): Promise<void> {
  // By the rule of login's and oauth token's --client-id, named as the flag: the client lookup
  // below refused it first, as the positional id CLIENT (review s25, fixin's noticed).
  refuseSentSetting('client_id', options.clientId, 'flag', ctx.settings());
  // The page is opened at app_url: a query there refused before the client is looked up (review25c L3).
  refuseUrlQueries(ctx.settings(), ['app_url']);
  // A secret flag for svc-cli refused before the lookup: a refusal of a flag needs no network (review29a L4).
  refusePublicClientSecret(ctx, options.secret, options.clientId);
  const clientDoubt = await checkRedirectUris(ctx, options.clientId);
  // svc-cli takes none, --public or not: the rule of login, refresh and revocation (review28e L5).
  const clientSecret = options.publicClient
    ? undefined
    : await clientSecretFor(ctx, options.secret, options.clientId, { required: true });
  // Stored (with --save) before the browser hears, so its page says "Authorized" only when it is true.
  const result = await authorizeWithBrowser(
    ctx,
    {
      ...options,
      clientSecret,
      kind: 'authorize',
      clientDoubt,
      ...(options.save ? { beforeExchange: loginStorable(ctx, 'the command') } : {}),
    },
    async (r) => ({
      ...r,
      stored: options.save
        ? await storeLogin(ctx, r, { id: options.clientId, secret: clientSecret })
        : undefined,
    }),
  );
  const unprinted = await unlessClosed(ctx, () => printTokens(ctx, result.tokens));
  if (!ctx.out.isMachine && !unprinted) ctx.out.info(storedNote(ctx, result.stored));
  await endReplacedSession(ctx, ctx.settings().profile, result.stored?.replaced);
  if (unprinted) {
    throw await tokensUnprinted(ctx, unprinted, {
      ...result,
      clientId: options.clientId,
      clientSecret,
      clientSecretText: secretShellText(ctx, options.secret, 'SVC_CLIENT_SECRET'),
      storedIn: result.stored ? ctx.settings().profile : undefined,
      orKeep: '--save to keep them in the profile',
    });
  }
}

/** What became of the tokens: not stored, stored and refreshed by svc, or stored until they expire. */
function storedNote(ctx: Context, stored: StoredLogin | undefined): string {
  if (!stored) return 'nothing was stored (pass --save to keep these tokens in the profile)';
  const where = `stored in profile "${ctx.settings().profile}"`;
  if (stored.refreshable) return `${where}; svc refreshes the tokens as it needs`;
  const when = stored.expiresAt ? ` (${relativeTime(stored.expiresAt, ctx.clock.now())})` : '';
  return `${where}; there is no refresh token: run the command again when the access token expires${when}`;
}

export function authorizeCommand(make: MakeContext): Command {
  const command = new Command('authorize')
    .summary('Run the authorization code flow for a client and print the tokens')
    .description(
      'Run the OAuth 2.0 authorization code flow with PKCE for a client, as an integration would: a\n' +
        'loopback redirect on 127.0.0.1 (register http://127.0.0.1/callback on the client; any port is\n' +
        'accepted), the consent page in the browser, then the code exchanged with client_id and\n' +
        'client_secret. Prints the token response as the server sent it; stores nothing unless --save.\n' +
        'If stdout closes (or fails) before any of the tokens reached it, svc revokes the session they\n' +
        'open, as nothing else holds them, and says so (exit 141, or 1 for a failed write); with --save it\n' +
        'says they are stored in the profile. If it closes after stdout took some of them (| head -1\n' +
        'takes the access token line), the reader may hold them: svc revokes nothing and says how to\n' +
        'end that session with a token the reader kept (exit 141).\n' +
        'The secret comes from --client-secret-file, --client-secret-stdin, SVC_CLIENT_SECRET or a\n' +
        'hidden prompt on a terminal — never from a flag value. --public: a client without a secret;\n' +
        "svc's own client svc-cli is one, with or without --public (a secret given for it is refused).",
    )
    .addOption(new Option('--public', 'the client is public (no secret; PKCE only)'))
    .addOption(new Option('--save', 'store the tokens in the profile, as `svc login` does'));
  return addBrowserLoginOptions(command)
    .addHelpText(
      'after',
      examples(
        [
          'svc oauth authorize --client-id cli_0123 --client-secret-file local.secret',
          "a client registered with http://127.0.0.1/callback: the consent page, then the client's tokens",
        ],
        [
          'svc oauth authorize --client-id cli_0123 --client-secret-stdin --scope read:exceptions --json < local.secret',
          'ask for one scope; the token response as JSON',
        ],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseOAuthAuthorize(flags);
      await runOAuthAuthorize(await make(cmd), options);
    });
}
