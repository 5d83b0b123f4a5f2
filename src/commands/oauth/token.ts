import { Command, Option } from 'commander';
import { OAUTH_GRANT_TYPES, type OAuthGrantType } from '../../api/constants.js';
import { checkSecretFlags, readSecret, type SecretFlags, secretShellText } from '../../auth/secret-input.js';
import { requestToken, tokenUrl } from '../../auth/token-endpoint.js';
import { refuseSentSetting } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { sym } from '../../output/symbols.js';
import { choiceFlag, collect, examples, type MakeContext, nonEmpty, parseScopes } from '../kit.js';
import { tokensUnprinted, unlessClosed } from './unprinted-tokens.js';

export interface OAuthTokenOptions {
  grantType: OAuthGrantType;
  clientId: string | undefined;
  clientSecret: SecretFlags;
  code: SecretFlags;
  redirectUri: string | undefined;
  codeVerifier: SecretFlags;
  refreshToken: SecretFlags;
  scopes: string[];
}

const CODE_ONLY = [
  ['--code-file', 'codeFile'],
  ['--code-stdin', 'codeStdin'],
  ['--redirect-uri', 'redirectUri'],
  ['--code-verifier-file', 'codeVerifierFile'],
  ['--code-verifier-stdin', 'codeVerifierStdin'],
] as const;
const REFRESH_ONLY = [
  ['--refresh-token-file', 'refreshTokenFile'],
  ['--refresh-token-stdin', 'refreshTokenStdin'],
  ['--scope', 'scope'],
] as const;

function secretFlags(name: string, flags: Record<string, unknown>, file: string, stdin: string): SecretFlags {
  return checkSecretFlags(name, {
    file: flags[file] === undefined ? undefined : String(flags[file]),
    stdin: flags[stdin] === true,
  });
}

export function parseOAuthToken(flags: Record<string, unknown>): OAuthTokenOptions {
  if (flags.grantType === undefined) {
    throw new UsageError('--grant-type is required: authorization_code or refresh_token');
  }
  if (flags.code !== undefined) {
    throw new UsageError(
      '--code would put the authorization code on the command line, where other users of this machine can read it (ps)',
      { hint: 'use --code-file FILE or --code-stdin' },
    );
  }
  const grantType = choiceFlag('--grant-type', flags.grantType, OAUTH_GRANT_TYPES)!;
  const forbidden = grantType === 'authorization_code' ? REFRESH_ONLY : CODE_ONLY;
  const stray = forbidden.find(([, key]) => flags[key] !== undefined);
  if (stray) throw new UsageError(`${stray[0]} does not apply to --grant-type ${grantType}`);
  const stdins = ['clientSecretStdin', 'codeStdin', 'codeVerifierStdin', 'refreshTokenStdin'].filter(
    (k) => flags[k] === true,
  );
  if (stdins.length > 1)
    throw new UsageError(
      `only one secret can come from standard input; use --${sym.ellipsis}-file for the others`,
    );
  const options: OAuthTokenOptions = {
    grantType,
    clientId: flags.clientId === undefined ? undefined : nonEmpty('--client-id', flags.clientId),
    clientSecret: secretFlags('client-secret', flags, 'clientSecretFile', 'clientSecretStdin'),
    code: secretFlags('code', flags, 'codeFile', 'codeStdin'),
    redirectUri: flags.redirectUri === undefined ? undefined : nonEmpty('--redirect-uri', flags.redirectUri),
    codeVerifier: secretFlags('code-verifier', flags, 'codeVerifierFile', 'codeVerifierStdin'),
    refreshToken: secretFlags('refresh-token', flags, 'refreshTokenFile', 'refreshTokenStdin'),
    scopes: parseScopes('--scope', flags.scope),
  };
  if (grantType === 'authorization_code') {
    if (options.code.file === undefined && !options.code.stdin) {
      throw new UsageError('--grant-type authorization_code needs --code-file FILE or --code-stdin');
    }
    if (!options.redirectUri) throw new UsageError('--grant-type authorization_code needs --redirect-uri');
  } else if (options.refreshToken.file === undefined && !options.refreshToken.stdin) {
    throw new UsageError(
      '--grant-type refresh_token needs --refresh-token-file FILE or --refresh-token-stdin',
    );
  }
  return options;
}

export async function runOAuthToken(ctx: Context, options: OAuthTokenOptions): Promise<void> {
  const clientId = options.clientId ?? ctx.settings().values.client_id;
  if (!clientId) {
    throw new UsageError('no OAuth client id', {
      hint: "pass --client-id, or set SVC_CLIENT_ID or the profile's client_id",
    });
  }
  const settings = ctx.settings();
  refuseSentSetting(
    'client_id',
    clientId,
    options.clientId ? 'flag' : (settings.sources.client_id ?? 'profile'),
    settings,
  );
  const clientSecret = await readSecret(ctx, options.clientSecret, {
    name: 'client-secret',
    label: 'client secret',
    env: 'SVC_CLIENT_SECRET',
  });
  const form: Record<string, string | undefined> = { grant_type: options.grantType };
  if (options.grantType === 'authorization_code') {
    form.code = await readSecret(ctx, options.code, {
      name: 'code',
      label: 'authorization code',
      required: true,
    });
    form.redirect_uri = options.redirectUri;
    form.code_verifier = await readSecret(ctx, options.codeVerifier, {
      name: 'code-verifier',
      label: 'code verifier',
    });
  } else {
    form.refresh_token = await readSecret(ctx, options.refreshToken, {
      name: 'refresh-token',
      label: 'refresh token',
      required: true,
    });
    if (options.scopes.length > 0) form.scope = options.scopes.join(' ');
  }
  form.client_id = clientId;
  form.client_secret = clientSecret;
  const api = await ctx.api();
  const url = tokenUrl(ctx.settings().values.base_url!);
  const tokens = await requestToken(api, url, form);
  const unprinted = await unlessClosed(ctx, () => ctx.out.json(tokens.raw, { taken: true }));
  if (unprinted) {
    throw await tokensUnprinted(ctx, unprinted, {
      tokens,
      tokenUrl: url,
      requestedScope: form.scope,
      clientId,
      clientSecret,
      clientSecretText: secretShellText(ctx, options.clientSecret, 'SVC_CLIENT_SECRET'),
      storedIn: undefined,
      // No new refresh token (none, or the one sent back, as a server that does not rotate does):
      // the caller's own still holds the session, and is never svc's to revoke.
      refreshed: options.grantType === 'refresh_token',
      sessionHeld:
        options.grantType === 'refresh_token' &&
        (tokens.refresh_token === undefined || tokens.refresh_token === form.refresh_token),
    });
  }
}

export function tokenCommand(make: MakeContext): Command {
  return (
    new Command('token')
      .summary('Call the token endpoint directly (authorization_code or refresh_token)')
      .description(
        'One raw, form-encoded POST to {base_url}/v1/oauth/token with client_secret_post\n' +
          'authentication, printing the JSON response (tokens included). For debugging an integration.\n' +
          'Secrets — the client secret, the authorization code, the code verifier, the refresh token — come\n' +
          'from files or standard input (one of them at most), or SVC_CLIENT_SECRET for the client secret;\n' +
          'never from flag values, which other users of the machine can read (ps). If stdout closes (or\n' +
          'fails) before any of the tokens reached it, svc revokes the session they open, as nothing else\n' +
          'holds them, and says so (exit 141, or 1 for a failed write) — never a session the caller held\n' +
          'already: a refresh answered with no refresh token, or the one sent, revokes nothing. If stdout\n' +
          'took some of them, the reader may hold them: svc revokes nothing and says how to end it.',
      )
      .addOption(
        new Option('--grant-type <type>', 'authorization_code or refresh_token').choices(OAUTH_GRANT_TYPES),
      )
      .addOption(new Option('--client-id <id>', 'the client (default: SVC_CLIENT_ID or the profile)'))
      .addOption(new Option('--client-secret-file <file>', "read the client's secret from a file"))
      .addOption(new Option('--client-secret-stdin', "read the client's secret from standard input"))
      .addOption(
        new Option('--code-file <file>', 'authorization_code: the code from the redirect, from a file'),
      )
      .addOption(
        new Option('--code-stdin', 'authorization_code: the code from the redirect, from standard input'),
      )
      // Refused with the way to do it instead (parseOAuthToken), not "unknown option".
      .addOption(new Option('--code <code>').hideHelp())
      .addOption(
        new Option(
          '--redirect-uri <uri>',
          'authorization_code: the redirect URI of the authorization request',
        ),
      )
      .addOption(
        new Option('--code-verifier-file <file>', 'authorization_code: the PKCE verifier, from a file'),
      )
      .addOption(
        new Option('--code-verifier-stdin', 'authorization_code: the PKCE verifier, from standard input'),
      )
      .addOption(new Option('--refresh-token-file <file>', 'refresh_token: the refresh token, from a file'))
      .addOption(new Option('--refresh-token-stdin', 'refresh_token: the refresh token, from standard input'))
      .addOption(
        new Option(
          '--scope <scope>',
          "refresh_token: narrow the new access token's scopes (repeatable); the new refresh token keeps the grant's",
        ).argParser(collect),
      )
      .addHelpText(
        'after',
        examples(
          [
            'svc oauth token --grant-type refresh_token --client-id cli_0123 --client-secret-file vendor.secret --refresh-token-file rt.txt',
            'refresh a token by hand',
          ],
          [
            'printf %s "$CODE" | svc oauth token --grant-type authorization_code --client-id cli_0123 --client-secret-file vendor.secret --code-stdin --redirect-uri http://127.0.0.1:8765/callback --code-verifier-file verifier.txt',
            'exchange a code you caught yourself',
          ],
        ),
      )
      .action(async (flags: Record<string, unknown>, cmd: Command) => {
        const options = parseOAuthToken(flags);
        await runOAuthToken(await make(cmd), options);
      })
  );
}
