// Over 300 lines: every way a session ends (logout, profiles rm, a login that replaces one) and
// what each says of the revoke at the server; they share one revoke and one truthful outcome.

import type { ConfFile } from '../config/disk.js';
import { commandLine, loginCommand } from '../config/settings.js';
import type { StoredCredential } from '../config/store.js';
import { invalidProfileName } from '../config/store.js';
import type { Context } from '../context.js';
import { describeError, InterruptedError, readAfterChange, SvcError } from '../errors.js';
import { ApiError, ConnectionError, ConnectionTimeoutError, OutcomeUnknownError } from '../http/errors.js';
import { sym } from '../output/symbols.js';
import { shellWord } from '../system/shell-words.js';
import { isPublicClient, sentClientSecret } from './client-secret.js';
import { originOf, replacedCredentials } from './credentials.js';
import { decodeJwtClaims } from './jwt.js';
import { askAboutKey, type KeyState } from './key-state.js';
import type { Revocation } from './revocation.js';
import { cleanSecret } from './secret-input.js';
import { saysUnknownClient } from './token-endpoint.js';

/**
 * Ending a profile's session before its credential is forgotten — the one way `svc logout` and
 * `svc profiles rm` do it. An OAuth session is revoked server-side first (RFC 7009). When the
 * server cannot be asked (no connection, a timeout, a 5xx or 429), nothing is removed, so a
 * retry can still revoke it; --no-revoke forgets the credential without asking. A definite
 * refusal (a 4xx) removes it all the same, and says the session may outlive it. A stored API key
 * or JWT has no session to revoke: svc says the token itself stays valid.
 *
 * A revocation cannot be undone, so the files are proven writable first (a full disk then changes
 * nothing anywhere); a disk that fills up between that proof and the write is said as it is: the
 * session was revoked, the file still holds it, and the --no-revoke command removes it.
 */

export interface EndSessionOptions {
  profile: string;
  /** False with --no-revoke: forget the credential without contacting the server. */
  revoke: boolean;
  /** Removes what goes (the credential, or the whole profile); true when something existed. */
  remove: () => Promise<boolean>;
  /** The files `remove` writes, proven writable before a session is revoked. */
  files: ConfFile[];
  /** What was done, for messages: `removed the credential of profile "x"`. */
  done: string;
  /** The command that tries again, and the one that forgets without revoking. */
  retry: string;
  noRevoke: string;
}

export interface SessionEnd {
  removed: boolean;
  revocation: Revocation | { outcome: 'skipped' };
  /** What kind of credential was removed, if one was, its token and origin (for the warnings). */
  credential: StoredCredential['type'] | undefined;
  token: string | undefined;
  origin?: string | undefined;
  /** What the platform said of a stored API key before svc forgot it (undefined: not asked, or no answer). */
  key?: KeyState | undefined;
}

/** A token that is no JWT: an API key (`svc_pk_…`, or another server's opaque key). */
const isApiKey = (token: string | undefined): token is string =>
  token !== undefined && decodeJwtClaims(token) === undefined;

/**
 * The server could not be asked, or could not answer now: asking again later may succeed (a
 * revocation whose outcome is unknown too: revoking a revoked token again is answered 200).
 */
export function unanswered(error: unknown): boolean {
  return (
    error instanceof ConnectionError ||
    error instanceof ConnectionTimeoutError ||
    // Ctrl-C is no answer to wait for: it stops the command (endSession: interruptedEnd).
    (error instanceof OutcomeUnknownError && error.category !== 'interrupted') ||
    (error instanceof ApiError && (error.status >= 500 || error.status === 429))
  );
}

/**
 * The server refused the client secret svc sent (invalid_client, not "unknown client"): the
 * client's secret was most likely rotated since the login. The session is not ended, and the
 * client's current secret can still end it, so its only copy is not thrown away (attack29b F3).
 * A client the server does not know has no session left to end.
 */
export function clientSecretRefused(error: unknown, credential: StoredCredential): boolean {
  return (
    sentClientSecret(credential) !== undefined &&
    error instanceof ApiError &&
    error.code === 'invalid_client' &&
    !saysUnknownClient(error.message)
  );
}

/**
 * Revokes `credential`'s session with its stored client secret, then, when that secret is refused
 * (clientSecretRefused), with each of `others` (another secret of the same client: SVC_CLIENT_SECRET,
 * a new login's) in turn: asked for only then, so a malformed SVC_CLIENT_SECRET stops nothing the
 * stored secret can do (review29c L2). `tried` says whether any other was given. Throws the last
 * refusal, or the first error of another kind (the one `others` throws among them).
 */
async function revokeTrying(
  ctx: Context,
  credential: StoredCredential,
  others: () => readonly string[],
  tried: { others: boolean } = { others: false },
): Promise<Revocation> {
  const { revokeSession } = await import('./revocation.js');
  const api = await ctx.api();
  let refused: unknown;
  try {
    return await revokeSession(api, credential);
  } catch (error) {
    if (!clientSecretRefused(error, credential)) throw error;
    refused = error;
  }
  const given = others();
  tried.others = given.length > 0;
  for (const secret of given.filter((o) => o !== credential.client_secret)) {
    try {
      return await revokeSession(api, credential, secret);
    } catch (error) {
      if (!clientSecretRefused(error, credential)) throw error;
      refused = error;
    }
  }
  throw refused;
}

/**
 * SVC_CLIENT_SECRET, for a session whose stored secret the server refused: only for a confidential
 * client (svc-cli, svc's public client, is sent no secret: login's rule, sentClientSecret). Read
 * only then; a malformed one is refused with the usual one-line error (exit 2), nothing removed.
 */
function environmentSecret(ctx: Context, credential: StoredCredential): string[] {
  const given = ctx.env.SVC_CLIENT_SECRET;
  if (!given || isPublicClient(credential.client_id)) return [];
  return [cleanSecret(ctx, 'client secret', 'SVC_CLIENT_SECRET', given)];
}

export async function endSession(ctx: Context, options: EndSessionOptions): Promise<SessionEnd> {
  const store = ctx.store();
  // An API key has no session to end; asked about before it is forgotten, so the warning is true:
  // at its own server only (the stored credential, bound to its origin, not a raw token sent to
  // the base URL in effect, whose 401 would say nothing of it: attack23 F1).
  const stored = store.credential(options.profile);
  const key =
    options.revoke && stored?.type === 'token' && isApiKey(stored.access_token)
      ? await askAboutKey(() => ctx.platform(), ctx.storedCredentials()).catch((error) => {
          throw error instanceof SvcError && error.category === 'interrupted'
            ? new InterruptedError(
                `interrupted while asking the platform about the API key of profile "${options.profile}"; nothing was removed`,
                { hint: `run \`${options.retry}\` again to forget it`, cause: error },
              )
            : error;
        })
      : undefined;
  const { withCredentialLock } = await import('./lock.js');
  // Under the lock, so no other svc process refreshes (and rotates) the token being revoked.
  const { end, refusal } = await withCredentialLock(store, async () => {
    const credential = store.credential(options.profile);
    let revocation: SessionEnd['revocation'] = { outcome: 'not_applicable' };
    let refused: unknown;
    if (credential?.type === 'oauth' && !options.revoke) revocation = { outcome: 'skipped' };
    else if (credential?.type === 'oauth') {
      store.proveWritable(
        options.files,
        (reason) =>
          `the session of profile "${options.profile}" was not ended: ${reason}; nothing was changed, at the server or here`,
        (fix) => `${fix}, then run the command again`,
      );
      const tried = { others: false };
      // A malformed SVC_CLIENT_SECRET (read once the stored secret was refused): its own error.
      let unusable: unknown;
      const others = () => {
        try {
          return environmentSecret(ctx, credential);
        } catch (error) {
          unusable = error;
          throw error;
        }
      };
      try {
        revocation = await revokeTrying(ctx, credential, others, tried);
      } catch (error) {
        if (error === unusable) throw error;
        if (error instanceof SvcError && error.category === 'interrupted')
          throw interruptedEnd(options, error);
        if (clientSecretRefused(error, credential))
          throw secretRefusedEnd(options, credential, tried.others, error);
        if (unanswered(error)) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new SvcError(
            'failure',
            `could not revoke the session of profile "${options.profile}": ${reason}; nothing was removed`,
            {
              code: 'revocation_failed',
              hint: `run \`${options.retry}\` again when the server answers, or \`${options.noRevoke}\` to forget the credential here without revoking it (its session then stays valid until it expires)`,
              cause: error,
            },
          );
        }
        refused = error;
      }
    }
    let removed: boolean;
    try {
      removed = await options.remove();
    } catch (error) {
      if (revocation.outcome !== 'revoked' || !(error instanceof SvcError) || error.code !== 'config_write')
        throw error;
      // The disk filled up after the proof: the session is gone at the server, not from the file.
      const left = error.message.includes(store.credentialsPath)
        ? 'it still holds the revoked credential'
        : 'the credential was removed, but the profile is still there';
      throw new SvcError(
        'failure',
        `the session of profile "${options.profile}" was revoked at ${new URL(revocation.endpoint).origin}, but ${error.message}; ${left}`,
        {
          code: 'config_write',
          hint: `make room on its disk (or make it writable), then run \`${options.noRevoke}\` to remove it`,
          cause: error,
        },
      );
    }
    return {
      end: {
        removed,
        revocation,
        credential: credential?.type,
        token: credential?.access_token,
        origin: credential?.origin,
        key,
      },
      refusal: refused,
    };
  });
  if (refusal !== undefined) {
    const reason = refusal instanceof Error ? refusal.message : String(refusal);
    throw new SvcError(
      'failure',
      `${options.done}, but the server refused to revoke its session: ${reason}`,
      {
        code: 'revocation_failed',
        hint: `the session may stay valid until it expires; ask the server${sym.apostrophe}s administrator to end it if it must end now`,
        cause: refusal,
      },
    );
  }
  return end;
}

/**
 * The server refused the client secret svc holds (rotated since the login, most likely): the
 * session stays valid, and its refresh token is the only copy, so nothing is removed; the client's
 * current secret in SVC_CLIENT_SECRET ends it, --no-revoke forgets it knowingly (attack29b F3).
 */
function secretRefusedEnd(
  options: EndSessionOptions,
  credential: StoredCredential,
  triedEnvironment: boolean,
  error: unknown,
): SvcError {
  const reason = describeError(error);
  const which = triedEnvironment
    ? 'the stored client secret nor SVC_CLIENT_SECRET'
    : 'the stored client secret';
  return new SvcError(
    'failure',
    `could not revoke the session of profile "${options.profile}": the server accepted neither ${which} of client ${credential.client_id} (${reason}; was the secret rotated since the login?); the session may still be valid, so nothing was removed`,
    {
      code: 'revocation_failed',
      hint: `run it again with the client${sym.apostrophe}s current secret: \`SVC_CLIENT_SECRET="$(cat FILE)" ${options.retry}\`, or \`${options.noRevoke}\` to forget the credential here without revoking it (its session then stays valid until it expires)`,
      cause: error,
    },
  );
}

/**
 * Ctrl-C (SIGTERM, SIGHUP) while a session was being ended: nothing is removed — the refresh
 * token is what lets the same command end it — and exit 130, as any Ctrl-C. Once the revocation
 * was sent the server may have acted: running the command again settles it (a revoked token is
 * revoked again with 200).
 */
function interruptedEnd(options: EndSessionOptions, error: SvcError): InterruptedError {
  const sent = error instanceof OutcomeUnknownError;
  const what = sent
    ? 'the revocation was sent, so the session may or may not be revoked'
    : 'the revocation was not sent';
  return new InterruptedError(
    `interrupted while ending the session of profile "${options.profile}": ${what}; nothing was removed`,
    {
      hint: `run \`${options.retry}\` again to end it${sent ? ' (revoking it twice is harmless)' : ''}`,
      cause: error,
    },
  );
}

/** The warnings that go with a session ended (or not) this way; none for a revoked session. */
export function warnAboutSession(ctx: Context, end: SessionEnd): void {
  const { token } = end;
  const revocation = end.revocation;
  if (revocation.outcome === 'unsupported') {
    ctx.out.warn(
      `${revocation.server} does not offer token revocation (RFC 7009): the refresh token stays valid until it expires`,
    );
  } else if (revocation.outcome === 'skipped') {
    ctx.out.warn('the session was not revoked (--no-revoke): its refresh token stays valid until it expires');
  } else if (end.removed && end.credential === 'token') {
    if (isApiKey(token)) warnAboutKey(ctx, token, end.key, undefined, end.origin);
    else ctx.out.warn('the token itself stays valid until it expires: svc only forgot it');
  }
}

/**
 * The last line of `logout` and `profiles rm` under SVC_TOKEN: the session ended is the profile's,
 * while every svc command run in this shell, a revoke or login line printed above too, still acts
 * with SVC_TOKEN's credential (review23f L4).
 */
export function warnTokenStillSet(ctx: Context): void {
  if (ctx.env.SVC_TOKEN)
    ctx.out.warn(
      'SVC_TOKEN is still set in your environment: svc commands run here (any printed above too) use it, not a stored login; unset it first: unset SVC_TOKEN',
    );
}

/**
 * What is known of a forgotten API key, for `logout --json` (`api_key`) and the lines alike, in one
 * shape: `revoked_or_unknown` (the platform refuses it for good: nothing to revoke), `valid` (it
 * acts: svc only forgot it), `stopped` (refused now, not revoked: it acts again once its issuer
 * holds its role without an end date), `unknown` (svc could not ask, or did not: another server is
 * in effect, where a stored key is never sent, or its server is not known; it may still be valid); the
 * key's id and tenant when the platform said them, and the command that revokes it (null when
 * nothing is left to revoke, or its id is not known: the lines then say how to find it).
 */
export interface ForgottenKey {
  state: 'revoked_or_unknown' | 'valid' | 'stopped' | 'unknown';
  id: string | null;
  tenant: string | null;
  stopped_reason: string | null;
  revoke_command: string | null;
}

/** What the revoke line says of a key, besides the command (`by` whom, and the command). */
const REVOKE_BY = 'with the login of a user who holds api_key.manage (a key cannot revoke keys)';

export function forgottenKey(ctx: Context, key: KeyState | undefined, origin?: string): ForgottenKey {
  // Not asked (another server is in effect): the commands go to the key's own server.
  if (key?.state === 'elsewhere') origin = key.origin;
  if (key?.state === 'rejected')
    return {
      state: 'revoked_or_unknown',
      id: null,
      tenant: null,
      stopped_reason: null,
      revoke_command: null,
    };
  const svc = keyManagerLine(ctx, origin);
  if (key?.state === 'live' || key?.state === 'stopped') {
    const tenant = key.tenant ?? ctx.settings().values.tenant ?? null;
    return {
      state: key.state === 'live' ? 'valid' : 'stopped',
      id: key.id,
      tenant,
      stopped_reason: key.state === 'stopped' ? key.reason : null,
      revoke_command: svc(`tenants api-keys revoke ${shellWord(tenant ?? 'TENANT')} ${key.id}`),
    };
  }
  const tenant = ctx.settings().values.tenant ?? null;
  return {
    state: 'unknown',
    id: null,
    tenant,
    stopped_reason: null,
    // No id, no command: a placeholder would run as a not-found (review14 R4); the lines say how
    // to find the id (warnAboutKey).
    revoke_command: null,
  };
}

/** The forgotten API key of a session ended (null: the credential removed was no API key). */
export function sessionKey(ctx: Context, end: SessionEnd): ForgottenKey | null {
  if (!end.removed || end.credential !== 'token' || !isApiKey(end.token)) return null;
  return forgottenKey(ctx, end.key, end.origin);
}

/**
 * What becomes of a forgotten API key: nothing when the platform refuses it for good; else how to
 * revoke it — a live key, and a stopped one too (not revoked: it acts again once its issuer
 * holds its role without an end date, a routine re-grant). `what` names it (`the API key`, or
 * `the replaced API key` after a login); `origin` is the platform it was stored for, named in the
 * commands when it is not this run's.
 */
export function warnAboutKey(
  ctx: Context,
  token: string,
  key: KeyState | undefined,
  what = 'the API key',
  origin?: string,
): void {
  const facts = forgottenKey(ctx, key, origin);
  if (facts.state === 'revoked_or_unknown') {
    ctx.out.info(
      `the platform no longer accepts ${what} (it was revoked, or is unknown there): nothing is left to revoke`,
    );
    return;
  }
  if (facts.state === 'valid' || facts.state === 'stopped') {
    const revoke = `revoke it ${REVOKE_BY}: \`${facts.revoke_command}\``;
    ctx.out.warn(
      facts.state === 'valid'
        ? `${what} ${facts.id} itself stays valid: svc only forgot it; ${revoke}`
        : `${what} ${facts.id} is stopped, not revoked: the platform refuses it now (${facts.stopped_reason}), and it acts again once its issuer holds its role without an end date; svc only forgot it; ${revoke}`,
    );
    return;
  }
  // Its server unknown (review23c H1): the lines leave it to fill in, rather than name one.
  const svc =
    key?.state === 'unbound'
      ? (words: string) => `svc --base-url URL ${words}`
      : keyManagerLine(ctx, key?.state === 'elsewhere' ? key.origin : origin);
  const tenant = shellWord(facts.tenant ?? 'TENANT');
  // Another server is in effect: svc did not send the key there, so it knows nothing of it.
  const unasked =
    key?.state === 'elsewhere'
      ? `svc did not ask about it: it was stored for ${key.origin}, and the server in effect is ${key.here}, where svc does not send it`
      : key?.state === 'unbound'
        ? 'svc did not ask about it: it was stored before svc recorded origins, in a profile with no base_url, so svc does not know its server and sends it to none'
        : 'svc only forgot it';
  const which = key?.state === 'unbound' ? ' (URL: the server it was used with)' : '';
  ctx.out.warn(
    `${what} may still be valid: ${unasked}; ${REVOKE_BY}, find its id by its prefix ${token.slice(0, 10)}${sym.ellipsis} ` +
      `in \`${svc(`tenants api-keys ls ${tenant}`)}\`${which}, then revoke it with \`${svc(`tenants api-keys revoke ${tenant} KEY_ID`)}\``,
  );
}

/**
 * The command line that revokes a forgotten key: not `-p` of the profile that held it (it holds
 * no credential now, or another one, and a key may not list or revoke keys), but the platform it
 * was for whenever the run named the profile or the base URL, so that pasted it asks that
 * platform, not the active profile's: `-p NAME` of a profile holding a user's login for that
 * platform when there is one (the active profile's login, bound to another, would refuse a bare
 * `--base-url`: attack23 F6), else `--base-url`. The line is pasted in the shell that ran this, so
 * SVC_PROFILE and SVC_BASE_URL hold there too (review23c M1): a bare line is printed only when the
 * profile it would use (SVC_PROFILE's, else the active one) holds a user's login for the key's
 * platform, and `-p NAME` keeps `--base-url` whenever SVC_BASE_URL names another server than
 * that profile's, which it would override.
 */
function keyManagerLine(ctx: Context, origin?: string): (words: string) => string {
  const settings = ctx.settings();
  const store = ctx.store();
  const here = settings.values.base_url;
  const elsewhere = origin !== undefined && (here === undefined || new URL(here).origin !== origin);
  const named = elsewhere || settings.profileSource === 'flag' || settings.sources.base_url === 'flag';
  const base = elsewhere ? origin : here;
  const target = base === undefined ? undefined : originOf(base);
  const pasted = ctx.env.SVC_PROFILE || store.activeProfile() || 'default';
  const bare = !named && (target === undefined || holdsUserLoginAt(ctx, pasted, target));
  const manager = !bare && target !== undefined ? userLoginAt(ctx, target) : undefined;
  if (manager !== undefined) {
    const own = store.profile(manager)?.base_url;
    const ambient = ctx.env.SVC_BASE_URL ? originOf(ctx.env.SVC_BASE_URL) : undefined;
    const there =
      own !== undefined && originOf(own) === target && (ambient === undefined || ambient === target);
    return commandLine({
      ...settings,
      profile: manager,
      profileSource: 'flag',
      values: there ? {} : { base_url: base },
      sources: there ? {} : { base_url: 'flag' },
    });
  }
  // No profile to name: `--base-url` when the run named one (a flag, or the key's own server);
  // else the server the pasted line reads again (SVC_BASE_URL in the same shell, or the profile's).
  return commandLine({
    ...settings,
    profileSource: 'default',
    values: base === undefined ? {} : { base_url: base },
    sources: named && base !== undefined ? { base_url: 'flag' } : {},
  });
}

/** Whether profile `name` holds a user's login (OAuth, or a JWT; not an API key) stored for `origin`. */
function holdsUserLoginAt(ctx: Context, name: string, origin: string): boolean {
  const store = ctx.store();
  const credential = store.credential(name);
  if (credential === undefined || (credential.type === 'token' && isApiKey(credential.access_token)))
    return false;
  const base = store.profile(name)?.base_url;
  return (credential.origin ?? (base === undefined ? undefined : originOf(base))) === origin;
}

/**
 * A profile holding a user's login (OAuth, or a JWT; not an API key, which cannot revoke keys)
 * stored for `origin`: the active profile when it does, else the first by name (one with no
 * settings too); undefined when none does.
 */
function userLoginAt(ctx: Context, origin: string): string | undefined {
  const store = ctx.store();
  const holds = (name: string): boolean => holdsUserLoginAt(ctx, name, origin);
  const active = store.activeProfile();
  if (active !== undefined && holds(active)) return active;
  return store.profileNames().find(holds);
}

/**
 * Where a replaced session svc could not revoke is kept: the first free `NAME-previous[-N]`, NAME
 * cut short as far as the profile-name limit (64 characters) needs, so a long name keeps its
 * session too.
 */
function keepingProfile(ctx: Context, profile: string): string | undefined {
  const store = ctx.store();
  for (let n = 1; n < 100; n++) {
    const suffix = `-previous${n === 1 ? '' : `-${n}`}`;
    let base = profile;
    while (base.length > 1 && invalidProfileName(`${base}${suffix}`)) base = base.slice(0, -1);
    const name = `${base}${suffix}`;
    if (invalidProfileName(name)) return undefined;
    if (!store.hasProfile(name)) return name;
  }
  return undefined;
}

/**
 * What became of the OAuth session a login replaced, for `login --json` (`previous_session`;
 * null when it replaced none): revoked; kept in a profile of its own because the server could not
 * be asked (`NAME-previous`); or still valid until it expires: the server refused
 * (`refused`), offers no revocation (`unsupported`), or could not be asked and svc could not keep
 * it (`unreachable`).
 */
export type PreviousSession =
  | { outcome: 'revoked' }
  | { outcome: 'forgotten'; kind: 'api_key' | 'token' }
  | { outcome: 'kept'; profile: string }
  | { outcome: 'refused' | 'unsupported' | 'unreachable' };

/**
 * A new login replaced `replaced` in the profile (README: a session is revoked before it is
 * forgotten, as `svc logout` does): called only once the new login is stored, so a login that
 * fails leaves the old session working. Revoked, svc says so in one line. When the server
 * cannot be asked, the session is still valid: svc keeps it in a profile of its own
 * (`NAME-previous`) and names the command that ends it; a refusal is said as it is. The login
 * itself succeeded either way: only warnings.
 */
export async function endReplacedSession(
  ctx: Context,
  profile: string,
  replaced: StoredCredential | undefined,
  current?: string,
): Promise<PreviousSession | null> {
  if (replaced?.type === 'token') return forgetReplacedToken(ctx, profile, replaced, current);
  if (replaced?.type !== 'oauth' || !replaced.token_url) return null;
  const server = new URL(replaced.token_url).origin;
  const what = `the previous session of profile "${profile}"`;
  let revocation: Revocation;
  try {
    // The stored secret refused (rotated since): the new login's secret of the same client, given
    // to this login, ends it (attack29b F3).
    const fresh = newSecretOf(ctx, profile, replaced);
    revocation = await revokeTrying(ctx, replaced, () => fresh);
  } catch (error) {
    const reason = describeError(error);
    // Ctrl-C is no refusal: the session may still be valid, so it is kept as an unanswered one.
    const interrupted = error instanceof SvcError && error.category === 'interrupted';
    // A refused client secret leaves the session valid too: kept, as the login's help promises.
    const secretRefused = clientSecretRefused(error, replaced);
    if (!unanswered(error) && !interrupted && !secretRefused) {
      ctx.out.warn(
        `the server refused to revoke ${what} (${reason}): it may stay valid until it expires; ask the server${sym.apostrophe}s administrator to end it if it must end now`,
      );
      return { outcome: 'refused' };
    }
    const kept = await keepSession(ctx, profile, replaced);
    const state = secretRefused
      ? `could not be revoked at ${server}: the server refused the client secret svc holds for it (${reason}; was it rotated?), so it may still be valid`
      : !interrupted
        ? `could not be revoked at ${server} (${reason}), so it is still valid`
        : error instanceof OutcomeUnknownError
          ? `was being revoked at ${server} when svc was interrupted, after the revocation was sent, so it may still be valid`
          : `was not revoked: svc was interrupted before the revocation was sent to ${server}, so it is still valid`;
    ctx.out.warn(
      kept
        ? `${what} ${state}: svc keeps it in profile "${kept}"; end it with \`${secretRefused ? 'SVC_CLIENT_SECRET="$(cat FILE)" ' : ''}svc profiles rm ${kept}\`${secretRefused ? ` (FILE: the client${sym.apostrophe}s current secret)` : ''}`
        : `${what} ${state}, and svc could not keep it: it ${interrupted && error instanceof OutcomeUnknownError ? 'may stay' : 'stays'} valid until it expires`,
    );
    return kept ? { outcome: 'kept', profile: kept } : { outcome: 'unreachable' };
  }
  if (revocation.outcome === 'revoked') {
    ctx.out.info(`revoked ${what} at ${new URL(revocation.endpoint).origin}`);
    return { outcome: 'revoked' };
  }
  if (revocation.outcome === 'unsupported') {
    ctx.out.warn(
      `${revocation.server} does not offer token revocation (RFC 7009): ${what} stays valid until its refresh token expires`,
    );
    return { outcome: 'unsupported' };
  }
  // Nothing to revoke at the server (not an OAuth session after all).
  return null;
}

/**
 * The client secret the new login of `profile` holds, when it is for the same client as the session
 * it replaced and another secret than that session's: the one to try when the old one is refused.
 */
function newSecretOf(ctx: Context, profile: string, replaced: StoredCredential): string[] {
  const now = ctx.store().credential(profile);
  if (now?.type !== 'oauth' || now.client_id !== replaced.client_id || !now.client_secret) return [];
  return now.client_secret === replaced.client_secret ? [] : [now.client_secret];
}

/** Stores a session svc could not revoke in a profile of its own; its name, or undefined. */
async function keepSession(
  ctx: Context,
  profile: string,
  credential: StoredCredential,
): Promise<string | undefined> {
  const name = keepingProfile(ctx, profile);
  if (name === undefined) return undefined;
  const store = ctx.store();
  try {
    const { withCredentialLock } = await import('./lock.js');
    await withCredentialLock(store, () => store.setCredential(name, credential));
    const baseUrl = credential.origin ?? new URL(credential.token_url!).origin;
    await store.setProfileValues(name, { base_url: baseUrl });
    return name;
  } catch (error) {
    if (error instanceof SvcError && error.code === 'config_write') return undefined;
    throw error;
  }
}

/**
 * A login replaced a stored API key or token (`--with-token`): svc forgot it, as `logout` does,
 * and says so as `logout` does — a token stays valid until it expires, a key until it is revoked,
 * with the command that revokes it (asked about first, on its own platform only). Nothing when the
 * login stored the same token again.
 */
async function forgetReplacedToken(
  ctx: Context,
  profile: string,
  replaced: StoredCredential,
  current: string | undefined,
): Promise<PreviousSession | null> {
  const token = replaced.access_token;
  if (token === current) return null;
  if (!isApiKey(token)) {
    ctx.out.warn('the replaced token stays valid until it expires: svc only forgot it');
    return { outcome: 'forgotten', kind: 'token' };
  }
  // Never sent to another platform than the one it was stored for (the HTTP layer's one rule).
  // The login is made: Ctrl-C while asking leaves the key said as one svc could not ask about.
  const credentials = replacedCredentials(replaced, profile, () => {
    const { profileSource } = ctx.settings();
    return loginCommand({ profile, profileSource });
  });
  const key = await readAfterChange(
    askAboutKey(() => ctx.platform(), credentials),
    undefined,
  );
  warnAboutKey(ctx, token, key, 'the replaced API key', replaced.origin);
  return { outcome: 'forgotten', kind: 'api_key' };
}
