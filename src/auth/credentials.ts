// Over 300 lines: every source of the bearer credential (SVC_TOKEN, a stored one, a refreshing
// one) and the rules each stored one goes through (pinned to its session, sent only to its origin);
// apart, the one rule of where a stored credential may go would be read in several files.

import { nonAsciiCharacter } from '../api/characters.js';
import { parseHttpUrl } from '../api/loopback.js';
import { redactUrlText } from '../api/secret-names.js';
import { CREDENTIAL_HOME, profileOption } from '../config/settings.js';
import type { ConfigStore, StoredCredential } from '../config/store.js';
import { AuthError, ConfigError, UsageError } from '../errors.js';
import { credentialKind } from '../http/redact.js';
import { quoted } from '../output/format.js';
import type { Env } from '../output/io.js';
import { controlCharacterIn } from '../system/secret-text.js';
import { loginNow } from './identity.js';
import { credentialSecrets, type RefreshDeps, refreshingCredentials, reloginHint } from './refresh.js';

/**
 * Where the HTTP layer gets its bearer token. The static source serves SVC_TOKEN or a stored
 * API key/JWT; OAuth profiles plug a refreshing source in here.
 */
/** What a request asks of the credential besides its token. */
export interface TokenUse {
  /**
   * The request is part of what svc promised to finish after the command's stop (listen's
   * put-back of W): a refresh it needs is sent whatever that stop (a second Ctrl-C waits for the
   * whole of it: src/system/interrupts.ts unabandoned), rather than refused as a stopped
   * command's would be (attack24b F1).
   */
  afterStop?: boolean;
  /**
   * With afterStop: the clean-up's own limit (listen's put-back: 30 s), which ends the refresh's
   * waits and retries in place of the command's stop (review24e L2: it had none, and a second
   * Ctrl-C waited up to --timeout × the retries). An attempt on the wire is let finish.
   */
  signal?: AbortSignal;
}

export interface CredentialSource {
  /** Describes the source for messages: `SVC_TOKEN`, `profile "default"`. */
  readonly origin: string;
  /**
   * The token to send to `target`, or undefined when there is none. A stored credential is
   * only handed out for the origin it was stored for (an AuthError, exit 3, otherwise).
   */
  token(target?: URL, use?: TokenUse): Promise<string | undefined>;
  /** Called once after a 401 with the token that was rejected; may return a replacement. */
  renew?(rejected: string, use?: TokenUse): Promise<string | undefined>;
  /** Values that must never be printed (for --debug traces and error messages). */
  secrets(): string[];
}

export function staticCredentials(token: string | undefined, origin: string): CredentialSource {
  return {
    origin,
    token: async () => token,
    secrets: () => (token ? [token] : []),
  };
}

export function storedCredentialSecrets(credential: StoredCredential | undefined): string[] {
  return credentialSecrets(credential);
}

/** What an OAuth profile needs to refresh its tokens (the Context provides it). */
export type RefreshOptions = Omit<RefreshDeps, 'store' | 'profile'>;

/** What binding a stored credential to its origin needs (the Context provides it). */
export interface BindingOptions {
  /** The base URL stored in the profile itself (not a flag's or the environment's). */
  profileBaseUrl: () => string | undefined;
  /** Tells the user when a credential stored by an older svc was bound on first use. */
  notice: (message: string) => void;
  /** The login command a hint suggests, keeping -p NAME when it was given: `svc -p f2 login`. */
  loginCommand: () => string;
  /**
   * false: a credential about to be forgotten (a key asked about before logout) is bound for this
   * use only, to its profile's base_url, or with none to no server; nothing is written back.
   */
  record?: false;
}

/**
 * SVC_TOKEN with surrounding whitespace trimmed; one that holds a line break or another control
 * character inside cannot be sent in a header, and is refused before any request (exit 2).
 */
export function envToken(raw: string): string {
  const token = raw.trim();
  // Set but blank (`SVC_TOKEN=" "`, a `$(cat …)` of a file of white space): it overrides the stored
  // login and sends nothing, so the 401's "svc login" would not help: said as it is.
  if (token === '') {
    throw new UsageError('SVC_TOKEN is set but holds only white space', {
      hint: 'set it to the token (SVC_TOKEN="$(cat token.txt)"), or unset it to use the stored login: unset SVC_TOKEN',
    });
  }
  const control = controlCharacterIn(token);
  if (control) {
    throw new UsageError(`SVC_TOKEN contains ${control}`, {
      hint: 'set it to the token alone, e.g. SVC_TOKEN="$(cat token.txt)"',
    });
  }
  refuseAsToken('SVC_TOKEN', token, 'set it to the token alone, e.g. SVC_TOKEN="$(cat token.txt)"');
  return token;
}

/**
 * A token given to be sent as the bearer credential (SVC_TOKEN, `login --with-token`) that is not
 * one, refused (exit 2) before anything is sent: a client secret, a refresh token or a webhook
 * signing secret (credentialKind, as `config set`, `--tenant` and SVC_ORG refuse them) would go
 * to the profile's server and every proxy on the way, and its 401 said "copy the whole token"
 * (attack25b M4); a character past U+007F (a zero-width space or soft hyphen a paste added)
 * is refused as every header value is (characters.ts nonAsciiIn): past U+00FF undici's refusal
 * read as "a bug in svc" and `auth status` as "server unreachable" (attack25b M6), and U+0080–U+00FF
 * went as one Latin-1 byte, to a 401. The value is not repeated, only its kind or the character and its place.
 */
export function refuseAsToken(from: string, token: string, fix: string): void {
  const kind = credentialKind(token);
  const home = kind === undefined ? undefined : CREDENTIAL_HOME[kind];
  if (home !== undefined) {
    throw new UsageError(`${from} holds ${kind}, not an API key or access token; svc did not send it`, {
      code: 'credential_as_token',
      hint: home,
    });
  }
  const wide = nonAsciiCharacter(token);
  if (wide !== undefined) {
    throw new UsageError(`${from} holds ${wide.name} at ${wide.at}, ${wide.why}; nothing was sent`, {
      code: 'invalid_token_text',
      hint: fix,
    });
  }
}

/**
 * A stored secret that cannot go into a header (a hand edit left a line break or a character past
 * U+007F in it: refuseAsToken's rule) is named when that profile's credential is used, not met
 * later as a network error or a 401. Only then: the other profiles in the file still work, and so do the commands that mend this one (a new
 * login, `logout --no-revoke`, `profiles rm --no-revoke`), which never send it.
 */
function refuseUnsendable(path: string, profile: string, stored: StoredCredential): void {
  for (const key of ['access_token', 'refresh_token', 'client_secret'] as const) {
    const value = stored[key as keyof StoredCredential];
    if (typeof value !== 'string') continue;
    const control = controlCharacterIn(value);
    const wide = control === undefined ? nonAsciiCharacter(value) : undefined;
    if (control === undefined && wide === undefined) continue;
    const holds =
      control !== undefined
        ? `contains ${control} (in ${key})`
        : `holds ${wide!.name} at ${wide!.at} (in ${key}), ${wide!.why}`;
    throw new ConfigError(`${path}: the credential of profile "${profile}" ${holds}, so it cannot be sent`, {
      hint: `log in again with \`svc ${profileOption(profile)} login\`, or forget it with \`svc ${profileOption(profile)} logout --no-revoke\``,
    });
  }
}

/**
 * SVC_TOKEN overrides whatever the profile holds and goes where the user says. A profile logged
 * in with OAuth (and a refresh option given) gets a source that refreshes its tokens; anything
 * else is served as stored. A stored credential is bound to its origin when binding is given.
 */
export function credentialsFor(
  env: Env,
  store: ConfigStore,
  profile: string,
  refresh?: RefreshOptions,
  binding?: BindingOptions,
): CredentialSource {
  if (env.SVC_TOKEN) return staticCredentials(envToken(env.SVC_TOKEN), 'SVC_TOKEN');
  const stored = store.credential(profile);
  if (stored) refuseUnsendable(store.credentialsPath, profile, stored);
  let source: CredentialSource;
  if (stored?.type === 'oauth' && refresh)
    source = refreshingCredentials({ ...refresh, store, profile }, stored);
  else {
    source = {
      ...staticCredentials(stored?.access_token, `profile "${profile}"`),
      secrets: () => storedCredentialSecrets(stored),
    };
  }
  if (stored) source = pinnedToSession(source, store, profile, stored, refresh?.loginCommand);
  return binding ? boundToOrigin(source, store, profile, binding) : source;
}

/**
 * A command keeps the identity it started with: it takes a refresh of the same login (another
 * process's too) and the same token logged in again, but once the profile holds no credential, or
 * another identity's (`svc login` as someone else, an API key where a user was, in another
 * terminal), every request it would send is refused with an AuthError (exit 3) instead of going
 * out under that other name. A bulk run stops on it.
 *
 * Another login of the same identity (loginNow: a parallel CI job's `svc login --with-token` with
 * a fresh token of the same user) does not stop it: the command goes on with the token it holds
 * — never the new one — until that token is refused, then stops (exit 3) saying so. That is safe
 * whatever the new token may do: a token of the same user with narrower scopes or fewer tenants
 * takes nothing from the command's own token (the new login revoked nothing: svc only forgot the
 * old one, which the platform still honours, checking the user's live roles on every call), and a
 * wider one gives the command nothing, as it never sends it; the command does exactly what it
 * would have done had the login come a moment after it ended (attack21 F9).
 */
function pinnedToSession(
  source: CredentialSource,
  store: ConfigStore,
  profile: string,
  initial: StoredCredential,
  loginCommand: (() => string) | undefined,
): CredentialSource {
  /** The token this command last took from its own login. */
  let own = initial.access_token;
  const check = (): 'login' | 'identity' => {
    const now = store.credential(profile);
    if (!now) {
      throw new AuthError(`not logged in: profile "${profile}" has no credential any more`, {
        hint: reloginHint(loginCommand?.() ?? 'svc login', undefined),
      });
    }
    const judged = loginNow(initial, now);
    if ('same' in judged) return judged.same;
    throw new AuthError(
      `profile "${profile}" now ${judged.user !== undefined ? `belongs to ${judged.user}` : 'holds another login'} (logged in while this run was going); this run keeps the identity it started with`,
      { code: 'credential_changed' },
    );
  };
  const refused = () =>
    new AuthError(
      `the token this run holds was refused, and profile "${profile}" now holds another login of the same user (logged in while this run was going); this run keeps the login it started with`,
      { code: 'credential_changed' },
    );
  return {
    ...source,
    async token(target, use) {
      // Another login of the same identity: not read (nor refreshed) here, this run's own token is sent.
      if (check() === 'identity') return own;
      const token = await source.token(target, use);
      if (check() === 'identity') return own;
      if (token !== undefined) own = token;
      return token;
    },
    ...(source.renew
      ? {
          async renew(rejected: string, use?: TokenUse) {
            if (check() === 'identity') throw refused();
            const token = await source.renew!(rejected, use);
            if (check() === 'identity') throw refused();
            if (token !== undefined) own = token;
            return token;
          },
        }
      : {}),
  };
}

/**
 * As gh binds tokens to hosts: a stored credential goes only to the origin it was stored for,
 * whatever --base-url or SVC_BASE_URL say later. A credential stored before svc recorded
 * origins is bound on first use — to the profile's own base_url, or when the profile has none,
 * to the origin of that first use — and the binding is written back.
 */
function boundToOrigin(
  source: CredentialSource,
  store: ConfigStore,
  profile: string,
  binding: BindingOptions,
): CredentialSource {
  let allowed: string | undefined;
  const check = async (target: URL): Promise<void> => {
    if (allowed === target.origin) return;
    const stored = store.credential(profile);
    // No credential: the source itself reports "not logged in".
    if (!stored) return;
    const origin =
      stored.origin ??
      (binding.record === false
        ? forgottenKeyOrigin(binding, profile)
        : await bindOnFirstUse(store, profile, binding, target));
    sendOnlyToOwnOrigin(profile, origin, target, binding.loginCommand);
    allowed = origin;
  };
  return {
    ...source,
    async token(target, use) {
      if (target) await check(target);
      return source.token(target, use);
    },
  };
}

/** A stored credential was about to go to another origin than its own: nothing was sent. Exit 3. */
export class OriginMismatchError extends AuthError {
  constructor(
    /** The origin the credential was stored for, and the one it would have gone to. */
    readonly origin: string,
    readonly target: string,
    profile: string,
    login: string,
  ) {
    super(
      `profile "${profile}" holds a credential for ${origin}, not for ${target}; svc sends a stored credential only to the origin it was stored for`,
      {
        code: 'credential_origin_mismatch',
        hint: `log in there with \`${login} --base-url ${target}\` (${login === 'svc login' ? 'add' : 'or pass another'} -p NAME to keep this profile as it is), or set SVC_TOKEN`,
      },
    );
  }
}

/**
 * The one rule every use of a stored credential goes through (a request's, and a stored key asked
 * about before it is forgotten): it is sent to the origin it was stored for, or nowhere.
 */
function sendOnlyToOwnOrigin(profile: string, origin: string, target: URL, login: () => string): void {
  if (origin !== target.origin) throw new OriginMismatchError(origin, target.origin, profile, login());
}

/**
 * The credential `profile` stores, alone (not SVC_TOKEN, which replaces it for requests), bound to
 * its origin as a request's is: for asking about a stored API key before it is forgotten (logout,
 * profiles rm), so the key goes to its own server or to none (attack23 F1).
 */
export function storedCredentialsOf(
  store: ConfigStore,
  profile: string,
  binding: BindingOptions,
): CredentialSource {
  const stored = store.credential(profile);
  return boundToOrigin(
    {
      ...staticCredentials(stored?.access_token, `profile "${profile}"`),
      secrets: () => credentialSecrets(stored),
    },
    store,
    profile,
    { ...binding, record: false },
  );
}

/**
 * The credential of `profile` that a login is about to replace, read before the login rewrites the
 * profile: one stored before svc recorded origins is bound, as logout binds it, to the profile's
 * base_url as it is now (review23c H1: the login's own server, which a replacing login writes into
 * the profile, is no witness of a key stored for another). Left without an origin when the profile
 * has no (readable) base_url: then it is sent nowhere (`replacedCredentials`).
 */
export function credentialBeingReplaced(store: ConfigStore, profile: string): StoredCredential | undefined {
  const credential = store.credential(profile);
  // An OAuth session is revoked at its own token_url and kept as it was; a token is asked about.
  if (credential?.type !== 'token' || credential.origin !== undefined) return credential;
  const base = baseUrlOrigin(store.profile(profile)?.base_url);
  return typeof base === 'string' ? credential : { ...credential, origin: base.origin };
}

/**
 * The origin of a profile's base_url, read one way for the three uses of a credential stored before
 * svc recorded origins (`credentialBeingReplaced`, `forgottenKeyOrigin`, `firstUseOrigin`): `none`
 * when the profile has none, `unreadable` when a hand edit left one that is no http(s) URL. Each use says
 * what those two mean for it: a replaced or forgotten credential goes to no server; a first use is
 * refused for an unreadable one (binding to this use's server would be a guess) and binds to this
 * use's server for none.
 */
function baseUrlOrigin(base: string | undefined): { origin: string } | 'none' | 'unreadable' {
  if (base === undefined) return 'none';
  const origin = originOf(base);
  return origin === undefined ? 'unreadable' : { origin };
}

/**
 * An http(s) URL's origin; undefined for a base_url a hand edit left unreadable (it is refused where
 * used): no URL, or a URL of another scheme (`file:///etc`, `mailto:`), whose origin is the string
 * "null" (review24b L3: bound to "null", the credential was refused at every use). The same test
 * as where base_url is the server in effect (checkUrlSetting).
 */
export function originOf(url: string): string | undefined {
  return parseHttpUrl(url)?.origin;
}

/**
 * A replaced or forgotten credential whose server svc does not know (stored before svc recorded
 * origins, in a profile with no base_url): sent to no server. Nothing was sent.
 */
export class UnknownOriginError extends AuthError {
  constructor(profile: string, what = 'the replaced credential') {
    super(
      `${what} of profile "${profile}" names no server (it was stored before svc recorded origins, in a profile with no base_url); svc sends it to none`,
      { code: 'credential_origin_unknown' },
    );
  }
}

/**
 * A credential svc no longer stores (a login replaced it, `credentialBeingReplaced`) as a source
 * bound to the origin it was stored for; one with no origin goes to no server at all.
 */
export function replacedCredentials(
  credential: StoredCredential,
  profile: string,
  login: () => string,
): CredentialSource {
  const source = staticCredentials(
    credential.access_token,
    `the replaced credential of profile "${profile}"`,
  );
  const origin = credential.origin;
  return {
    ...source,
    async token(target) {
      if (origin === undefined) throw new UnknownOriginError(profile);
      if (target) sendOnlyToOwnOrigin(profile, origin, target, login);
      return source.token(target);
    },
  };
}

/**
 * The origin a credential stored without one is asked at before it is forgotten (logout, profiles
 * rm): its profile's base_url; with none, no server (review23f M1). The server in effect is no
 * witness of a key it may never have issued, and this use is recorded nowhere, so it is no first use.
 */
function forgottenKeyOrigin(binding: BindingOptions, profile: string): string {
  const base = baseUrlOrigin(binding.profileBaseUrl());
  if (typeof base === 'string') throw new UnknownOriginError(profile, 'the credential');
  return base.origin;
}

/**
 * The origin a credential stored without one is bound to: its profile's base_url, else (none) this
 * use's. An unreadable base_url is refused, as where it is the server in effect (exit 2): it was
 * "Invalid URL; this is a bug in svc" under --base-url or SVC_BASE_URL.
 */
function firstUseOrigin(binding: BindingOptions, profile: string, target: URL): string {
  const value = binding.profileBaseUrl();
  const base = baseUrlOrigin(value);
  if (base === 'none') return target.origin;
  if (base === 'unreadable')
    throw new UsageError(
      `base_url in profile "${profile}" must be an absolute http(s) URL, got ${quoted(redactUrlText(value ?? ''))}; svc binds the profile's credential to it on its first use`,
      { hint: `set it: svc ${profileOption(profile)} config set base_url URL` },
    );
  return base.origin;
}

async function bindOnFirstUse(
  store: ConfigStore,
  profile: string,
  binding: BindingOptions,
  target: URL,
): Promise<string> {
  const base = binding.profileBaseUrl();
  const origin = firstUseOrigin(binding, profile, target);
  let bound = origin;
  await store.withLock('credentials', async () => {
    const again = store.credential(profile);
    if (!again) return;
    // Another process may have bound it meanwhile: its binding stands.
    if (again.origin) {
      bound = again.origin;
      return;
    }
    await store.setCredential(profile, { ...again, origin });
    if (!base) {
      binding.notice(
        `bound the credential of profile "${profile}" to ${origin} (its first use; it was stored before svc recorded origins)`,
      );
    }
  });
  return bound;
}
