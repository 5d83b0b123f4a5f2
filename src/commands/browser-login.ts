/**
 * The browser login (authorization code + PKCE through a loopback redirect) as both
 * `svc login` and `svc oauth authorize --save` offer it: its flags, and storing its tokens.
 */
import { type Command, Option } from 'commander';
import { credentialBeingReplaced, staticCredentials } from '../auth/credentials.js';
import { DEFAULT_BROWSER_TIMEOUT_SECONDS } from '../auth/flow.js';
import { checkSecretFlags, type SecretFlags } from '../auth/secret-input.js';
import { credentialFromTokens, saysUnknownClient, type TokenSet } from '../auth/token-endpoint.js';
import type { StoredCredential } from '../config/store.js';
import type { Context } from '../context.js';
import { AuthError, describeError, SvcError } from '../errors.js';
import type { CallerIdentity } from '../platform/me.js';
import { identityDespiteTenant, notYoursWarning } from '../platform/tenant-ref.js';
import { collect, intFlag, nonEmpty, parseScopes } from './kit.js';

export interface BrowserLoginOptions {
  clientId: string | undefined;
  secret: SecretFlags;
  scopes: string[];
  port: number | undefined;
  openBrowser: boolean;
  timeoutSeconds: number;
}

export function addBrowserLoginOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--client-id <id>', 'OAuth client id (default: client_id of the profile, SVC_CLIENT_ID)'),
    )
    .addOption(new Option('--client-secret-file <file>', "read the client's secret from a file"))
    .addOption(new Option('--client-secret-stdin', "read the client's secret from standard input"))
    .addOption(
      new Option(
        '--scope <scope>',
        "a scope to ask for (repeatable; default: the client's scopes)",
      ).argParser(collect),
    )
    .addOption(
      new Option(
        '--no-browser',
        'print the URL instead of opening a browser; finish by the redirect or by pasting the address it ends on',
      ),
    )
    .addOption(new Option('--port <n>', 'port of the loopback redirect on 127.0.0.1 (default: a free one)'))
    .addOption(
      new Option(
        '--browser-timeout <seconds>',
        `how long to wait for the browser (default ${DEFAULT_BROWSER_TIMEOUT_SECONDS})`,
      ),
    );
}

export function parseBrowserLogin(flags: Record<string, unknown>): BrowserLoginOptions {
  const clientId = flags.clientId === undefined ? undefined : nonEmpty('--client-id', flags.clientId);
  return {
    clientId,
    secret: checkSecretFlags('client-secret', {
      file: flags.clientSecretFile === undefined ? undefined : String(flags.clientSecretFile),
      stdin: flags.clientSecretStdin === true,
    }),
    scopes: parseScopes('--scope', flags.scope),
    port: intFlag('--port', flags.port, 1, 65_535),
    openBrowser: flags.browser !== false,
    timeoutSeconds:
      intFlag('--browser-timeout', flags.browserTimeout, 1, 3600) ?? DEFAULT_BROWSER_TIMEOUT_SECONDS,
  };
}

const MAKE_ROOM = 'make room on its disk (or make it writable)';

/**
 * The check a login runs just before it asks for tokens (which opens a session at the server):
 * both files can be written now, or the login stops there with nothing changed anywhere. `again`
 * is the command to run once there is room, as the hint says it: `` `svc -p work login` ``.
 */
export function loginStorable(ctx: Context, again: string): () => void {
  return () =>
    ctx.store().proveWritable(
      ['credentials', 'config'],
      (reason) =>
        `the login was not completed: ${reason}; no tokens were asked for, so no session was opened and nothing was changed`,
      (fix) => `${fix}, then run ${again} again`,
      MAKE_ROOM,
    );
}

/** A write of svc's own files that failed for want of room (or permission): config/store.ts. */
const failedWrite = (error: unknown): error is SvcError =>
  error instanceof SvcError && error.code === 'config_write';

/**
 * The server opened a session that could not be stored (the disk filled up after loginStorable's
 * proof): svc revokes it at once, so that nothing holds a live session, and says which it was.
 */
async function unstoredSession(
  ctx: Context,
  credential: StoredCredential,
  error: SvcError,
  again: string,
): Promise<SvcError> {
  const { said, revoked } = await endUnheldSession(ctx, credential);
  const ended = `${said}${revoked ? ' and' : ';'} nothing was changed here`;
  return new SvcError('failure', `the server opened a session, but ${error.message}; ${ended}`, {
    code: 'config_write',
    hint: `${MAKE_ROOM}, then run ${again} again`,
    cause: error,
  });
}

/**
 * Revokes a session whose tokens nothing holds (they were neither stored nor shown), so that no
 * live session is left that nobody can use or end; says what became of it.
 */
export async function endUnheldSession(
  ctx: Context,
  credential: StoredCredential,
): Promise<{ said: string; revoked: boolean }> {
  try {
    const { revokeSession } = await import('../auth/revocation.js');
    const revocation = await revokeSession(await ctx.api(), credential);
    if (revocation.outcome === 'revoked') {
      const at = new URL(revocation.endpoint).origin;
      return { said: `svc revoked that session at ${at}, so nothing holds it`, revoked: true };
    }
    return {
      said: 'nothing holds that session, and the server offers no revocation: it stays valid until its tokens expire',
      revoked: false,
    };
  } catch (revocationError) {
    return {
      said: `nothing holds that session, and revoking it failed (${describeError(revocationError)}): it stays valid until its tokens expire`,
      revoked: false,
    };
  }
}

export interface StoredLogin {
  identity: CallerIdentity | undefined;
  expiresAt: string | undefined;
  scope: string | undefined;
  /** The token response had a refresh token: svc renews the access token by itself. */
  refreshable: boolean;
  /** The credential this login replaced in the profile: its session is ended once the login is told. */
  replaced: StoredCredential | undefined;
}

/**
 * Whether reading a client failed because the platform has no such client in the tenant: its own
 * code for it (oauth_client_not_found), not any 404. A server that is not the platform answers
 * 404 to every path it lacks (an HTML page, a JSON "no route"): that says nothing about the client.
 */
export function isUnknownClient(error: unknown): boolean {
  return (
    error instanceof SvcError && error.category === 'not_found' && error.code === 'oauth_client_not_found'
  );
}

/**
 * A client id the tenant does not know (the platform's oauth_client_not_found on reading it): said
 * before the browser opens, whose login page will most likely say "Unknown client". The login goes
 * on all the same: a client of another tenant reads the same. Returns what the browser's timeout
 * then says first.
 */
export function warnClientNotFound(ctx: Context, clientId: string): string {
  const tenant = ctx.settings().values.tenant;
  const missing = `OAuth client ${clientId} was not found${tenant ? ` in tenant ${tenant}` : ''}`;
  ctx.out.warn(
    `${missing} (a client of another tenant reads the same, so the login goes on); if the login page says "Unknown client", check --client-id`,
  );
  return `${missing}: if the login page said "Unknown client", check --client-id`;
}

/**
 * `svc login --client-id ID`: the client read first, only to warn about an unknown one
 * (warnClientNotFound). Nothing else that reading says stops a login: no credential yet, another
 * tenant's client, a server that is not the platform (its 404 is not the platform's word).
 */
export async function doubtAboutClient(ctx: Context, clientId: string): Promise<string | undefined> {
  try {
    await (await ctx.platform()).oauth.clients.get(clientId, { maxRetries: 0 });
  } catch (error) {
    if (isUnknownClient(error)) return warnClientNotFound(ctx, clientId);
    // The profile's session could not be read with: its refresh refused because the server does not
    // know this same client. That answer is the server's word on the client (attack29b F4: the read
    // needs the dead credential, so no warning came, and the login waited on "Unknown client").
    if (refusedAsUnknown(ctx, error, clientId)) {
      ctx.out.warn(
        `the server does not know OAuth client ${clientId}: it refused to refresh the session of profile "${ctx.settings().profile}" through it as an unknown client; the login page will most likely say "Unknown client": check --client-id`,
      );
      return `the server refused OAuth client ${clientId} as unknown: if the login page said "Unknown client", check --client-id`;
    }
  }
  return undefined;
}

/** A refresh of the profile's session through `clientId` refused as an unknown client (refreshRefusedHint). */
function refusedAsUnknown(ctx: Context, error: unknown, clientId: string): boolean {
  if (!(error instanceof AuthError) || error.code !== 'invalid_client' || !saysUnknownClient(error.message))
    return false;
  return ctx.store().credential(ctx.settings().profile)?.client_id === clientId;
}

/**
 * Stores tokens from a login in the profile (under the credential lock, so a refresh running
 * in another process cannot interleave), remembers the base URL, client id and tenant, and
 * fetches the identity behind the new token.
 */
export async function storeLogin(
  ctx: Context,
  login: { tokens: TokenSet; tokenUrl: string; requestedScope: string | undefined },
  client: { id: string; secret: string | undefined },
  again = 'the command',
): Promise<StoredLogin> {
  const settings = ctx.settings();
  const store = ctx.store();
  const credential = credentialFromTokens(
    login.tokens,
    {
      clientId: client.id,
      clientSecret: client.secret,
      tokenUrl: login.tokenUrl,
      requestedScope: login.requestedScope,
      origin: settings.values.base_url ? new URL(settings.values.base_url).origin : undefined,
    },
    ctx.clock.now(),
  );
  const { withCredentialLock } = await import('../auth/lock.js');
  let replaced: StoredCredential | undefined;
  try {
    await withCredentialLock(store, () => {
      // Bound to the profile's base_url before this login rewrites it (review23c H1).
      replaced = credentialBeingReplaced(store, settings.profile);
      return store.setCredential(settings.profile, credential);
    });
  } catch (error) {
    throw failedWrite(error) ? await unstoredSession(ctx, credential, error, again) : error;
  }
  const remember: Record<string, string> = {};
  if (settings.sources.base_url !== 'profile' && settings.values.base_url)
    remember.base_url = settings.values.base_url;
  // An exported SVC_APP_URL / SVC_CLIENT_ID is ambient (auth/ambient.ts): used for this login,
  // never saved into the profile, which keeps its own value or deriving one (review16c R3). The
  // credential keeps the client id its refreshes need.
  if (settings.sources.app_url === 'flag') remember.app_url = settings.values.app_url!;
  const clientFromEnv = settings.sources.client_id === 'env' && client.id === settings.values.client_id;
  if (settings.sources.client_id !== 'profile' && !clientFromEnv) remember.client_id = client.id;
  let identity: CallerIdentity | undefined;
  // Checked through a Context made now, over the new login: this run's own credential source is
  // pinned to the login the run started with (auth/credentials.ts), and a tenant slug would be
  // resolved through it, then refused as "another login".
  const after = ctx.forProfile(settings.profile);
  try {
    const platform = await after.platform();
    // A profile tenant that is not one of this login's: the identity all the same, and the way out.
    const answer = await identityDespiteTenant(platform, settings, {
      // The login just made at this server, asked about here.
      credentials: staticCredentials(credential.access_token, 'the new login'),
      secrets: credential.refresh_token ? [credential.refresh_token] : [],
    });
    identity = answer.identity;
    if (answer.refused) ctx.out.warn(notYoursWarning(settings, identity.tenants));
  } catch (error) {
    ctx.out.warn(`logged in, but GET /v1/me failed: ${describeError(error)}`);
  } finally {
    await after.close();
  }
  if (!settings.values.tenant && identity?.tenant_id) remember.tenant = identity.tenant_id;
  try {
    if (Object.keys(remember).length > 0) await store.setProfileValues(settings.profile, remember);
    if (!store.activeProfile()) await store.setActiveProfile(settings.profile);
  } catch (error) {
    if (!failedWrite(error)) throw error;
    // The login is stored: only what goes with it in config.json is not.
    throw new SvcError(
      'failure',
      `logged in: the credential of profile "${settings.profile}" was stored, but ${error.message}; its settings (${[...Object.keys(remember), 'active profile'].join(', ')}) may not be saved`,
      { code: 'config_write', hint: `${MAKE_ROOM}, then run ${again} again`, cause: error },
    );
  }
  return {
    identity,
    expiresAt: credential.expires_at,
    scope: credential.scope,
    refreshable: credential.refresh_token !== undefined && credential.refresh_token !== '',
    replaced,
  };
}
