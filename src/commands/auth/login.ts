// Past 300 lines: the login verb with its three ways in (browser, device, token), their help
// and the refusals that keep a credential from being sent where it does not belong; each way is one
// call into src/auth, so splitting it would scatter one verb's options from their checks (and
// what a closed stdout says of a login that was saved, printLogin).
import { Command, Option } from 'commander';
import { clientSecretFor } from '../../auth/client-secret.js';
import { credentialBeingReplaced, refuseAsToken } from '../../auth/credentials.js';
import { endReplacedSession } from '../../auth/end-session.js';
import { authorizeWithBrowser } from '../../auth/flow.js';
import { jwtExpiry } from '../../auth/jwt.js';
import { cleanSecret } from '../../auth/secret-input.js';
import { newSessionId } from '../../auth/session.js';
import { envSwitch } from '../../config/env-flags.js';
import {
  type LoginSettings,
  loginCommand,
  profileFlag,
  refuseSentSetting,
  refuseUrlQueries,
  shownSetting,
  svcCommand,
} from '../../config/settings.js';
import { invalidProfileName, type StoredCredential } from '../../config/store.js';
import type { Context } from '../../context.js';
import { AuthError, ClosedPipeError, UsageError, unprintedError } from '../../errors.js';
import { ApiError } from '../../http/errors.js';
import { checkCredentialTransport } from '../../http/origin.js';
import { inWholeSeconds, relativeTime } from '../../output/format.js';
import type { CallerIdentity } from '../../platform/me.js';
import { identityDespiteTenant, notYoursWarning } from '../../platform/tenant-ref.js';
import { readSecretStdin, readsFromTerminal, secretText } from '../../system/input.js';
import {
  addBrowserLoginOptions,
  type BrowserLoginOptions,
  doubtAboutClient,
  loginStorable,
  parseBrowserLogin,
  storeLogin,
} from '../browser-login.js';
import { examples, type MakeContext } from '../kit.js';
import { refuseAmbientRewrite } from './ambient.js';

/** Reads one credential from stdin, as every secret is read (auth/secret-input.ts). */
export async function readTokenFromStdin(ctx: Context): Promise<string> {
  if (ctx.io.stdinIsTTY) {
    const login = `${loginCommand(ctx.settings())} --with-token`;
    throw new UsageError(readsFromTerminal('--with-token', 'the token'), {
      hint: `pipe it in: \`${login} < token.txt\` or \`printenv MY_TOKEN | ${login}\``,
    });
  }
  const raw = secretText(await readSecretStdin(ctx.io.stdin, ctx.signal), 'standard input');
  if (raw.trim() === '')
    throw new UsageError('no token on standard input', { hint: 'pipe an API key or JWT into svc' });
  const token = cleanSecret(ctx, 'token', 'standard input', raw);
  refuseAsToken(
    'standard input',
    token,
    `pipe in the token alone: \`${loginCommand(ctx.settings())} --with-token < token.txt\``,
  );
  return token;
}

/**
 * The token just given was refused: said of that token, not of the profile (whose stored
 * credential is untouched), with the fix a paste needs rather than `svc login --with-token` again.
 */
function rejectedToken(error: unknown): unknown {
  if (!(error instanceof AuthError)) return error;
  const why = error.cause instanceof ApiError ? error.cause.message : error.message;
  return new AuthError(`the token read from standard input was rejected by GET /v1/me: ${why}`, {
    code: error.code ?? 'unauthenticated',
    hint: 'check that the whole token was copied, and that it is still valid; nothing was stored',
    cause: error,
  });
}

export async function runLoginWithToken(ctx: Context): Promise<void> {
  refuseAmbientRewrite(ctx);
  // A store svc will not write is refused before the token is sent anywhere.
  ctx.store().checkBeforeWriting();
  const token = await readTokenFromStdin(ctx);
  const settings = ctx.settings();
  // Check the token before storing it: a rejected token exits 3 and leaves the profile as it was.
  // Through a Context over that token alone, so a tenant slug is resolved with it as well, not
  // with the profile's credential (none yet, or another login's).
  const check = ctx.withToken(token);
  let me: CallerIdentity;
  let notYours = false;
  try {
    // A profile tenant that is not one of this login's does not stop the login (it is said below,
    // with the way out): refusing it sent the user to commands that need a login.
    const answer = await identityDespiteTenant(await check.platform(), settings).catch((error: unknown) => {
      throw rejectedToken(error);
    });
    me = answer.identity;
    notYours = answer.refused !== undefined;
  } finally {
    await check.close();
  }
  const store = ctx.store();
  const expiresAt = jwtExpiry(token);
  // Under the credential lock, so an OAuth refresh in another process cannot overwrite it.
  const { withCredentialLock } = await import('../../auth/lock.js');
  let replaced: StoredCredential | undefined;
  await withCredentialLock(store, () => {
    // Bound to the profile's base_url before this login rewrites it (review23c H1).
    replaced = credentialBeingReplaced(store, settings.profile);
    return store.setCredential(settings.profile, {
      type: 'token',
      access_token: token,
      ...(expiresAt ? { expires_at: expiresAt } : {}),
      ...(settings.values.base_url ? { origin: new URL(settings.values.base_url).origin } : {}),
      session: newSessionId(),
      obtained_at: new Date(ctx.clock.now()).toISOString(),
    });
  });
  if (settings.sources.base_url !== 'profile' && settings.values.base_url) {
    await store.setProfileValues(settings.profile, { base_url: settings.values.base_url });
  }
  if (!settings.values.tenant && me?.tenant_id)
    await store.setProfileValues(settings.profile, { tenant: me.tenant_id });
  if (!store.activeProfile()) await store.setActiveProfile(settings.profile);
  if (notYours) ctx.out.warn(notYoursWarning(settings, me.tenants));
  if (ctx.out.isMachine) {
    const previous = await endReplacedSession(ctx, settings.profile, replaced, token);
    return printLogin(ctx, {
      profile: settings.profile,
      base_url: settings.values.base_url,
      identity: me,
      previous_session: previous,
    });
  }
  ctx.out.success(
    `logged in to ${shownSetting('base_url', settings.values.base_url ?? '')} as ${me?.name ?? me?.id ?? 'unknown'} (profile "${settings.profile}")`,
  );
  await endReplacedSession(ctx, settings.profile, replaced, token);
  if (ctx.env.SVC_TOKEN) ctx.out.warn('SVC_TOKEN is set and overrides the stored credential');
}

/**
 * A login's --json answer. The login is saved before it is printed: a stdout that does not take
 * it (a reader gone, 141; a full disk, 1) ends with that said, never as if the login had failed
 * (`cannot write to stdout`, "run the command again") nor quietly with 0 (the output was lost).
 */
async function printLogin(
  ctx: Context,
  answer: { profile: string } & Record<string, unknown>,
): Promise<void> {
  try {
    await ctx.out.json(answer, { taken: true });
  } catch (error) {
    if (!(error instanceof ClosedPipeError)) throw error;
    const cut = error.failure === undefined ? 'stdout closed' : `cannot write to stdout (${error.failure})`;
    throw unprintedError(
      error.failure,
      `${cut}, but the login succeeded: it is saved in profile "${answer.profile}"; only its JSON was not printed`,
      `svc uses it from there; \`${svcCommand(ctx.settings(), 'auth status')}\` shows the login`,
    );
  }
}

/**
 * `svc login` takes no arguments. `svc login --with-token TOKEN` put a secret on the command
 * line (shell history, the process list): refused, saying how to pass it (the login line with the
 * -p and --base-url given, loginCommand: without them the token would go to another profile) and
 * to rotate it. Settings that cannot be read still leave the refusal said, with a bare line.
 */
export function refuseArguments(
  flags: Record<string, unknown>,
  args: string[],
  settings: () => LoginSettings,
  exists: (profile: string) => boolean = () => false,
): void {
  if (args.length === 0) return;
  if (flags.withToken) {
    let login = 'svc login';
    let name = '';
    try {
      const given = settings();
      // A named profile that cannot be one (no svc makes such a name, and none exists: `-p 'ci;rm'`)
      // is not repeated (review19c F9): the line would be refused when run. NAME, and why.
      const invalid =
        (given.profileSource === 'flag' || given.profileSource === 'env') && !exists(given.profile)
          ? invalidProfileName(given.profile)
          : undefined;
      login = loginCommand(invalid === undefined ? given : { ...given, profile: 'NAME' });
      if (invalid !== undefined) name = `, NAME a profile name svc takes (${invalid.message})`;
    } catch {
      // A setting svc refuses is said by the next command; the secret's refusal comes first.
    }
    throw new UsageError(
      `--with-token reads the token from standard input, never from an argument: \`${login} --with-token < token.txt\`${name}`,
      {
        hint: 'the token you typed is now in your shell history (and was visible to other processes): rotate it',
      },
    );
  }
  throw new UsageError(`too many arguments for 'login'. Expected 0 arguments but got ${args.length}`, {
    hint: 'see `svc login --help`',
  });
}

export interface LoginOptions extends BrowserLoginOptions {
  withToken: boolean;
  /** RFC 8628 device authorization instead of a redirect. */
  device: boolean;
}

export function parseLogin(flags: Record<string, unknown>): LoginOptions {
  const browser = parseBrowserLogin(flags);
  if (flags.withToken) {
    const conflicting = [
      ['--client-id', flags.clientId],
      ['--client-secret-file', flags.clientSecretFile],
      ['--client-secret-stdin', flags.clientSecretStdin],
      ['--scope', flags.scope],
      ['--port', flags.port],
      ['--browser-timeout', flags.browserTimeout],
      ['--no-browser', flags.browser === false ? true : undefined],
    ].find(([, value]) => value !== undefined);
    if (conflicting) throw new UsageError(`--with-token cannot be combined with ${conflicting[0]}`);
  }
  if (flags.device) {
    if (flags.withToken) throw new UsageError('--device cannot be combined with --with-token');
    const redirectOnly = [
      ['--port', flags.port],
      ['--browser-timeout', flags.browserTimeout],
      ['--no-browser', flags.browser === false ? true : undefined],
    ].find(([, value]) => value !== undefined);
    if (redirectOnly) {
      throw new UsageError(`--device needs no redirect, so ${redirectOnly[0]} does not apply; leave it out`);
    }
  }
  return { ...browser, withToken: flags.withToken === true, device: flags.device === true };
}

/**
 * `svc login`: the browser flow (authorization code + PKCE through a loopback redirect, or the
 * address pasted back), or with --device the device authorization grant.
 */
export async function runLoginBrowser(
  ctx: Context,
  options: BrowserLoginOptions & { device?: boolean },
): Promise<void> {
  refuseAmbientRewrite(ctx);
  const settings = ctx.settings();
  // The password is typed into the app URL's page and the code exchanged at the base URL: a
  // plain-http one that is not loopback is refused before any page is opened, not after (F8).
  const insecure = envSwitch(ctx.env, 'SVC_ALLOW_INSECURE_HTTP') || ctx.globals.allowInsecureHttp === true;
  for (const url of [settings.values.base_url, settings.values.app_url])
    if (url !== undefined && URL.canParse(url)) checkCredentialTransport(new URL(url), insecure);
  // The browser login opens its page at app_url: a query there refused before anything is asked.
  if (!options.device) refuseUrlQueries(settings, ['app_url']);
  const clientId = options.clientId ?? settings.values.client_id;
  if (!clientId) {
    throw new UsageError(`no OAuth client id for profile "${settings.profile}"`, {
      hint: `pass --client-id, set SVC_CLIENT_ID or \`svc ${profileFlag(settings)}config set client_id ID\` (svc sandbox start sets it), or use \`${loginCommand(settings)} --with-token\``,
    });
  }
  const idSource = options.clientId ? 'flag' : (settings.sources.client_id ?? 'profile');
  refuseSentSetting('client_id', clientId, idSource, settings);
  // Where a client id the server does not know came from, and how to change it there.
  const clientIdFrom =
    idSource === 'flag'
      ? 'given with --client-id'
      : idSource === 'env'
        ? 'from SVC_CLIENT_ID'
        : `profile "${settings.profile}"'s client_id (\`svc ${profileFlag(settings)}config set client_id ID\` changes it, \`svc ${profileFlag(settings)}config unset client_id\` removes it)`;
  const clientSecret = await clientSecretFor(ctx, options.secret, clientId);
  // The code exchange opens a session at the server: first proven storable (a full disk).
  const again = `\`${loginCommand(settings)}\``;
  const beforeExchange = loginStorable(ctx, again);
  const store = (result: Parameters<typeof storeLogin>[1]) =>
    storeLogin(ctx, result, { id: clientId, secret: clientSecret }, again);
  // Read only when given by flag: the profile's own client (svc sandbox start's) is known.
  const clientDoubt =
    options.clientId && !options.device ? await doubtAboutClient(ctx, options.clientId) : undefined;
  // Said before the browser or the code is waited for (up to minutes), not after (attack25a F9).
  if (ctx.env.SVC_TOKEN)
    ctx.out.warn(
      'SVC_TOKEN is set and overrides the stored credential: this shell goes on using it after the login (unset SVC_TOKEN to use the login)',
    );
  const stored = options.device
    ? await store(
        await (await import('../../auth/device.js')).authorizeWithDevice(ctx, {
          clientId,
          clientIdFrom,
          clientSecret,
          scopes: options.scopes,
          beforeExchange,
        }),
      )
    : // Stored before the browser hears, so its page says "Logged in" only when it is true.
      await authorizeWithBrowser(
        ctx,
        { ...options, clientId, clientIdFrom, clientSecret, kind: 'login', beforeExchange, clientDoubt },
        store,
      );
  const me = stored.identity;
  if (ctx.out.isMachine) {
    const previous = await endReplacedSession(ctx, settings.profile, stored.replaced);
    return printLogin(ctx, {
      profile: settings.profile,
      base_url: settings.values.base_url,
      client_id: clientId,
      scopes: stored.scope ? stored.scope.split(' ') : null,
      // In whole seconds, as `auth status --json` and the API write times.
      expires_at: inWholeSeconds(stored.expiresAt),
      identity: me ?? null,
      previous_session: previous,
    });
  }
  ctx.out.success(
    `logged in to ${shownSetting('base_url', settings.values.base_url ?? '')} as ${me?.name ?? me?.id ?? 'unknown'} (profile "${settings.profile}")`,
  );
  const facts = [
    stored.scope ? `scopes: ${stored.scope}` : undefined,
    stored.expiresAt
      ? `the access token expires ${relativeTime(stored.expiresAt, ctx.clock.now())}`
      : undefined,
  ].filter(Boolean);
  if (!stored.refreshable) {
    // No refresh token (a client without the refresh_token grant): the login ends with the token.
    facts.push('there is no refresh token: log in again when it expires');
    ctx.out.info(`  ${facts.join('; ')}`);
  } else if (facts.length > 0) ctx.out.info(`  ${facts.join('; ')} (refreshed automatically)`);
  // Only now: a login that failed has left the old session working.
  await endReplacedSession(ctx, settings.profile, stored.replaced);
}

export default function login(make: MakeContext): Command {
  const command = new Command('login')
    .summary('Log in (browser with PKCE, or --with-token) and store the credential')
    .description(
      'Log in and store the credential in the profile.\n\n' +
        'Without --with-token: OAuth 2.0 authorization code flow with PKCE (S256). svc listens on\n' +
        '127.0.0.1 (a free port, or --port) for the redirect to /callback, opens the authorization page\n' +
        '({app_url}/oauth/authorize) in the browser (SVC_BROWSER, BROWSER, else the system opener),\n' +
        'waits for one callback with the right state, exchanges the code at {base_url}/v1/oauth/token\n' +
        'and stores the tokens in the 0600 credential file. They are refreshed automatically (when the\n' +
        'server sent a refresh token: a client without the refresh_token grant gets none, and svc says so).\n' +
        'An OAuth session the profile held before is revoked once the new login is stored (one that cannot\n' +
        'be revoked now is kept in profile NAME-previous: `svc profiles rm NAME-previous` ends it); an API key or\n' +
        'token it held is only forgotten, and svc says so as `svc logout` does (with the command that revokes a key).\n\n' +
        'Over SSH (or with --no-browser) svc opens no browser: it prints the URL to open on any machine,\n' +
        'and on a terminal takes either the redirect (same machine, or a forwarded port) or the address\n' +
        'the browser ends on, pasted back (state and PKCE are checked all the same). --device uses device\n' +
        'authorization (RFC 8628) instead, where the server offers it: type a short code on any browser.\n\n' +
        'The client id comes from --client-id, SVC_CLIENT_ID or the profile (`svc sandbox\n' +
        "start` sets it); a confidential client's secret from --client-secret-file, --client-secret-stdin\n" +
        'or SVC_CLIENT_SECRET, never from a flag value. A login through a client created in a tenant\n' +
        "(not the platform's own, svc-cli in the sandbox) acts for you as an integration does: what only\n" +
        'users themselves may do is refused to it (403 user_required, exit 4): `tenants api-keys\n' +
        'create/ls/revoke`, `oauth create/update/rotate-secret`, `webhooks rotate-secret` and restoring a\n' +
        "webhook's secret, `webhooks listen --webhook`. Log in through svc's own client for those.\n\n" +
        '--with-token reads an API key or JWT from standard input (never from a flag), checks it\n' +
        'against GET /v1/me, and stores it in the 0600 credential file.',
    )
    .addOption(new Option('--with-token', 'read an API key or JWT from standard input'))
    .addOption(new Option('--device', 'device authorization (RFC 8628): enter a code on any browser'));
  return (
    addBrowserLoginOptions(command)
      .addHelpText(
        'after',
        examples(
          ['svc login', 'log in through the browser (the sandbox profile needs no setup)'],
          ['svc login --no-browser', 'over SSH: open the URL anywhere, paste the address it ends on'],
          ['svc login --device', 'over SSH, where the server offers it: enter a short code on any browser'],
          [
            'svc login --client-id cli_123 --client-secret-file secret.txt --scope read:reconciliations',
            'log in with a confidential client and one scope',
          ],
          ['svc login --with-token < token.txt', 'store a token kept in a file'],
          [
            'printenv SVC_SANDBOX_TOKEN | svc -p sandbox login --with-token',
            'store a token for another profile',
          ],
        ),
      )
      // Arguments are refused by hand: a token given as one is a secret on a command line.
      .allowExcessArguments(true)
      .action(async (flags: Record<string, unknown>, cmd: Command) => {
        // A token typed as an argument is said first, before a bad SVC_TIMEOUT or --timeout is.
        const early = await make(cmd, { argumentsFirst: true });
        refuseArguments(
          flags,
          cmd.args,
          () => early.settings(),
          (profile) => early.store().hasProfile(profile),
        );
        const options = parseLogin(flags);
        const ctx = await make(cmd);
        if (options.withToken) await runLoginWithToken(ctx);
        else await runLoginBrowser(ctx, options);
      })
  );
}
