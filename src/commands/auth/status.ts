import { Command } from 'commander';
import { decodeJwtClaims, jwtExpiry } from '../../auth/jwt.js';
import { loginHint } from '../../auth/login-hint.js';
import { reloginHint } from '../../auth/refresh.js';
import { loginCommand, type Settings, shownSetting, svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { AuthError, SvcError } from '../../errors.js';
import { HTTP_CLIENT_SHORT } from '../../http/address-space.js';
import { ConnectionError, ConnectionTimeoutError } from '../../http/errors.js';
import { inWholeSeconds, maskSecret } from '../../output/format.js';
import type { CallerIdentity } from '../../platform/me.js';
import { identityDespiteTenant, notYoursWarning } from '../../platform/tenant-ref.js';
import { shellWord } from '../../system/shell-words.js';
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
    /**
     * What GET /v1/me says the token is granted now, when it says; else the scopes stored at login.
     * null: no scope limit; [] (every scope taken off the client): no call needing one is allowed.
     */
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
    // Shown as every command shows a setting: a query an older svc saved is masked (review25c H2).
    base_url:
      settings.values.base_url === undefined ? null : shownSetting('base_url', settings.values.base_url),
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
      // A credential the platform accepts is logged in, whatever the run's tenant: one that is not
      // the credential's is said, with the way out, not reported as "status unknown".
      const { identity, refused } = await identityDespiteTenant(await ctx.platform(), settings);
      status.identity = identity;
      status.logged_in = true;
      if (refused)
        ctx.out.warn(notYoursWarning(settings, identity.tenants, Boolean(ctx.env.SVC_TOKEN?.trim())));
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      failure = error;
    }
    // The call may have refreshed an OAuth token: describe what is stored now.
    status.credential = describeCredential(ctx, settings.profile) ?? status.credential;
    // What the platform grants the token now (a scope taken off its client since the login is
    // gone), over the list stored at login; a server whose /v1/me says nothing of it keeps that.
    // null: the platform sets the token no scope limit; [] (every scope taken off its client) is
    // a token that can make no call needing a scope, said as such, never shown as "no limit".
    const granted = status.identity?.credential?.scopes;
    if (status.credential && granted !== undefined) status.credential.scopes = granted;
  }
  // Only an absent or rejected credential is "not logged in"; any other failure left it unchecked.
  if (failure && failure.category !== 'auth') status.logged_in = null;
  if (status.logged_in && status.credential?.scopes?.length === 0) {
    const relogin = reloginHint(loginCommand(settings), ctx.store().credential(settings.profile));
    failure = noScopeLeft(settings, status.credential.client_id, relogin);
  }
  status.error = failure?.message ?? null;
  // Not logged in is exit 3 (4: no scope left), whether or not the status's reader is still there.
  ctx.out.declareOutcome(failure);
  if (ctx.out.isMachine) await ctx.out.json(status);
  else {
    const me = status.identity;
    await ctx.out.record(status, [
      ['profile', `${status.profile}${settings.profileSource === 'default' ? ' (default)' : ''}`],
      ['base url', status.base_url],
      [
        'status',
        status.logged_in && status.credential?.scopes?.length === 0
          ? 'logged in, with no scope left'
          : statusText(status.logged_in, failure),
      ],
      [
        'credential',
        status.credential
          ? `${status.credential.kind.replace('_', ' ')} from ${status.credential.source}`
          : null,
      ],
      ['token', status.credential?.token],
      // A stored OAuth token's expiry is this machine's (expires_in at receipt, or the JWT's exp moved to
      // this machine's clock by the token endpoint's Date: credentialFromTokens); a JWT's exp the platform's.
      [
        'expires',
        status.credential?.expires_at,
        status.credential?.kind === 'oauth' ? 'machine-time' : 'time',
      ],
      ['scopes', scopesText(status.credential)],
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

/**
 * A token the platform grants no scope any more (GET /v1/me: `scopes: []`): logged in, and every
 * call that needs a scope refused, so the status is a 403's (exit 4), with the ways out: this
 * profile's login again (`relogin`: its -p and client), or the scopes given back to the client.
 */
function noScopeLeft(settings: Settings, clientId: string | null, relogin: string): SvcError {
  const profile = settings.profile;
  // In the run's command lines: the client is the tenant's (attack25a).
  const update = svcCommand(
    settings,
    `oauth update ${clientId === null ? 'CLIENT' : shellWord(clientId)} --scope S`,
  );
  return new SvcError(
    'forbidden',
    `the token of profile "${profile}" has no scope left: ${clientId ? `client ${clientId}` : 'its OAuth client'} ` +
      'no longer has any scope this login was granted, so every call that needs a scope is refused',
    {
      code: 'no_scope_left',
      hint:
        `${relogin} for the scopes the client has now, or ask an admin to give the client ` +
        `back the ones you need (${update})`,
    },
  );
}

function scopesText(credential: AuthStatus['credential']): string | undefined {
  if (credential?.scopes?.length !== 0) return credential?.scopes?.join(' ');
  return `none (${credential.client_id ? `client ${credential.client_id}` : 'its OAuth client'} lost them)`;
}

function statusText(loggedIn: boolean | null, failure: SvcError | undefined): string {
  if (loggedIn !== null) return loggedIn ? 'logged in' : 'not logged in';
  // The HTTP client that could not start under a `ulimit -v` reached no server (review21c F8): its
  // failure's own short words, as every other command says them.
  if (failure?.code === 'address_space_limit') return `unknown (${HTTP_CLIENT_SHORT})`;
  const unreachable = failure instanceof ConnectionError || failure instanceof ConnectionTimeoutError;
  return `unknown (${unreachable ? 'server unreachable' : 'the check failed'})`;
}

export function statusCommand(make: MakeContext): Command {
  return new Command('status')
    .summary(
      'Show the profile, base URL, masked credential, its expiry and scopes, and the identity ' +
        'behind it (GET /v1/me). Exits 3 when there is no credential or the server rejects it; when ' +
        'the server cannot be asked the status is unknown (JSON logged_in: null) and it exits 1; a ' +
        'token left with no scope (taken off its client) exits 4.',
    )
    .description(
      'Show the profile, base URL, masked credential, its expiry and scopes, and the identity\n' +
        'behind it (GET /v1/me). Exits 3 when there is no credential or the server rejects it. A\n' +
        'profile named (-p, SVC_PROFILE) that does not exist is exit 5, as for every command: a typo\n' +
        'is no login to make (svc names the closest profile, and how to create the one named). When\n' +
        'the server cannot be asked the status is unknown (JSON logged_in: null) and it exits 1.\n' +
        'A token left with no scope (every one taken off its OAuth client) is logged in but can make\n' +
        'no call that needs one: scopes none (JSON []; null is no scope limit), exit 4.\n\n' +
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
