import { Command } from 'commander';
import { decodeJwtClaims, jwtExpiry } from '../../auth/jwt.js';
import { loginHint } from '../../auth/login-hint.js';
import type { Context } from '../../context.js';
import { AuthError, SvcError } from '../../errors.js';
import { ConnectionError, ConnectionTimeoutError } from '../../http/errors.js';
import { inWholeSeconds, maskSecret } from '../../output/format.js';
import type { CallerIdentity } from '../../platform/me.js';
import { examples, type MakeContext } from '../kit.js';

interface AuthStatus {
  profile: string;
  base_url: string | null;
  /** null: the credential could not be checked (the server was not reached or did not answer). */
  logged_in: boolean | null;
  credential: {
    source: string;
    /**
     * How svc holds the credential: `jwt`, `oauth` (tokens from svc login, refreshed) or `api_key`.
     * Named `kind`, as the API names the credential's own (`identity.credential.kind`).
     */
    kind: 'jwt' | 'oauth' | 'api_key';
    token: string;
    expires_at: string | null;
    scopes: string[] | null;
    /** OAuth: the client the tokens belong to, and the refresh token (masked). */
    client_id: string | null;
    refresh_token: string | null;
  } | null;
  identity: CallerIdentity | null;
  error: string | null;
}

function describeCredential(ctx: Context, profile: string): AuthStatus['credential'] {
  const stored = ctx.store().credential(profile);
  const token = ctx.env.SVC_TOKEN?.trim() || stored?.access_token;
  if (!token) return null;
  const fromEnv = Boolean(ctx.env.SVC_TOKEN?.trim());
  const claims = decodeJwtClaims(token);
  const scope = fromEnv ? claims?.scope : (stored?.scope ?? claims?.scope);
  return {
    source: fromEnv ? 'SVC_TOKEN' : `profile "${profile}"`,
    kind: !fromEnv && stored?.type === 'oauth' ? 'oauth' : claims ? 'jwt' : 'api_key',
    token: maskSecret(token),
    // In whole seconds, as the API writes its times (`identity.credential.expires_at`).
    expires_at: inWholeSeconds((fromEnv ? undefined : stored?.expires_at) ?? jwtExpiry(token)),
    scopes: typeof scope === 'string' && scope !== '' ? scope.split(' ') : null,
    client_id: (fromEnv ? undefined : stored?.client_id) ?? null,
    refresh_token: !fromEnv && stored?.refresh_token ? maskSecret(stored.refresh_token) : null,
  };
}

export async function runAuthStatus(ctx: Context): Promise<void> {
  const settings = ctx.profileSettings();
  // A credential that cannot be sent (SVC_TOKEN with a line break, say) is refused before anything.
  ctx.credentials();
  const status: AuthStatus = {
    profile: settings.profile,
    base_url: settings.values.base_url ?? null,
    logged_in: false,
    credential: describeCredential(ctx, settings.profile),
    identity: null,
    error: null,
  };
  let failure: SvcError | undefined;
  if (!status.credential) {
    failure = new AuthError(`not logged in: profile "${settings.profile}" has no credential`, {
      hint: loginHint(settings, ctx.env),
    });
  } else {
    try {
      status.identity = await (await ctx.platform()).me.get();
      status.logged_in = true;
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      failure = error;
    }
    // The call may have refreshed an OAuth token: describe what is stored now.
    status.credential = describeCredential(ctx, settings.profile) ?? status.credential;
  }
  status.error = failure?.message ?? null;
  // Only an absent or rejected credential is "not logged in"; any other failure left it unchecked.
  if (failure && failure.category !== 'auth') status.logged_in = null;
  if (ctx.out.isMachine) await ctx.out.json(status);
  else {
    const me = status.identity;
    await ctx.out.record(status, [
      ['profile', `${status.profile}${settings.profileSource === 'default' ? ' (default)' : ''}`],
      ['base url', status.base_url],
      ['status', statusText(status.logged_in, failure)],
      [
        'credential',
        status.credential
          ? `${status.credential.kind.replace('_', ' ')} from ${status.credential.source}`
          : null,
      ],
      ['token', status.credential?.token],
      ['expires', status.credential?.expires_at, 'time'],
      ['scopes', status.credential?.scopes?.join(' ')],
      ...(status.credential?.client_id
        ? ([
            ['client', status.credential.client_id],
            ['refresh token', status.credential.refresh_token ?? 'none'],
          ] as Array<[string, unknown]>)
        : []),
      ['identity', me ? `${me.name}${me.email ? ` <${me.email}>` : ''} (${me.id})` : null],
      ['tenant', me?.tenant_id],
    ]);
  }
  if (failure) throw failure;
}

function statusText(loggedIn: boolean | null, failure: SvcError | undefined): string {
  if (loggedIn !== null) return loggedIn ? 'logged in' : 'not logged in';
  const unreachable = failure instanceof ConnectionError || failure instanceof ConnectionTimeoutError;
  return `unknown (${unreachable ? 'server unreachable' : 'the check failed'})`;
}

export function statusCommand(make: MakeContext): Command {
  return new Command('status')
    .summary(
      'Show the profile, base URL, masked credential, its expiry and scopes, and the identity ' +
        'behind it (GET /v1/me). Exits 3 when there is no credential or the server rejects it; when ' +
        'the server cannot be asked the status is unknown (JSON logged_in: null) and it exits 1.',
    )
    .description(
      'Show the profile, base URL, masked credential, its expiry and scopes, and the identity\n' +
        'behind it (GET /v1/me). Exits 3 when there is no credential or the server rejects it; when\n' +
        'the server cannot be asked the status is unknown (JSON logged_in: null) and it exits 1.\n\n' +
        'With --json, credential.kind says how svc holds the credential (jwt, oauth, api_key) and\n' +
        'credential.expires_at is in whole seconds, named and written as the API writes the\n' +
        "credential's own (identity.credential).",
    )
    .addHelpText(
      'after',
      examples(
        ['svc auth status', 'am I logged in, and as whom?'],
        ['svc auth status --json', 'the same as JSON'],
      ),
    )
    .action(async (_f: unknown, cmd: Command) => runAuthStatus(await make(cmd)));
}
