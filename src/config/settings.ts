// Past 300 lines: resolving each setting and refusing a bad one (a URL, a credential pasted as a
// setting) are one rule over the same sources, kept together, with the command lines their
// refusals and every other hint print (svcCommand, loginCommand).
import { controlIn, invisibleIn, nonAsciiIn } from '../api/characters.js';
import { isLoopbackHost, parseHttpUrl } from '../api/loopback.js';
import { MASK, redactUrlReference, redactUrlText } from '../api/secret-names.js';
import { didYouMean } from '../api/suggest.js';
import { NotFoundError, UsageError } from '../errors.js';
import { credentialKind, redactText } from '../http/redact.js';
import { quoted } from '../output/format.js';
import type { Env } from '../output/io.js';
import { sym } from '../output/symbols.js';
import { shellWord } from '../system/shell-words.js';
import {
  credentialAsProfileName,
  invalidProfileName,
  PROFILE_KEYS,
  type ProfileKey,
  type ProfileSettings,
  sameUrl,
} from './store.js';

export type SettingSource = 'flag' | 'env' | 'profile' | 'default';

export interface SettingFlags {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  appUrl?: string | undefined;
  tenant?: string | undefined;
  org?: string | undefined;
}

export interface Settings {
  profile: string;
  profileSource: SettingSource;
  values: Partial<Record<ProfileKey, string>>;
  sources: Partial<Record<ProfileKey, SettingSource>>;
  /** --allow-insecure-http was given on the command line (not SVC_ALLOW_INSECURE_HTTP). */
  insecureHttpFlag?: boolean;
}

/** What a printed command line is built from: where the run acted, and how it was told so. */
export type TargetSettings = Pick<
  Settings,
  'profile' | 'profileSource' | 'values' | 'sources' | 'insecureHttpFlag'
>;

export const ENV_FOR: Record<ProfileKey, string> = {
  base_url: 'SVC_BASE_URL',
  app_url: 'SVC_APP_URL',
  tenant: 'SVC_TENANT',
  org: 'SVC_ORG',
  client_id: 'SVC_CLIENT_ID',
};

const FLAG_FOR: Partial<Record<ProfileKey, keyof SettingFlags>> = {
  base_url: 'baseUrl',
  app_url: 'appUrl',
  tenant: 'tenant',
  org: 'org',
};

export const FLAG_NAME: Partial<Record<ProfileKey, string>> = {
  base_url: '--base-url',
  app_url: '--app-url',
  tenant: '--tenant',
  org: '--org',
  // Not a global option: `svc login --client-id`, `oauth token --client-id`.
  client_id: '--client-id',
};

/** The profile in use: --profile, else SVC_PROFILE, else the active profile, else "default". */
export function resolveProfileName(
  flags: SettingFlags,
  env: Env,
  activeProfile: () => string | undefined,
  /** Given only to remove a profile (GlobalOptions.removingProfile): whether it exists. */
  removable?: (name: string) => boolean,
): { name: string; source: SettingSource } {
  const named = flags.profile || env.SVC_PROFILE;
  // A credential pasted as the name is refused before anything is read, sent or suggested (F1),
  // except a profile an older svc saved under one, named to remove it (`profiles rm`).
  const credential = named ? credentialAsProfileName(named) : undefined;
  if (credential !== undefined && !(named && removable?.(named))) throw credential;
  if (flags.profile) return { name: flags.profile, source: 'flag' };
  if (env.SVC_PROFILE) return { name: env.SVC_PROFILE, source: 'env' };
  const active = activeProfile();
  if (active) return { name: active, source: 'profile' };
  return { name: 'default', source: 'default' };
}

/**
 * `-p NAME` as words of a command line svc prints, the name one shell word: a name an older svc
 * or a hand edit gave a space or a `$` would otherwise make the pasted line run something else.
 */
export function profileOption(name: string): string {
  return `-p ${shellWord(name)}`;
}

/**
 * `-p NAME ` when the profile was named by the flag or SVC_PROFILE, for hints that suggest a
 * command: without it the suggested command would act on the active profile instead (or, once
 * SVC_PROFILE is gone, on another one). Empty otherwise. A name no svc makes now is repeated too:
 * a profile of that name made by an older svc (or a hand edit) is still used with -p.
 */
export function profileFlag(settings: ProfileInUse): string {
  if (settings.profileSource !== 'flag' && settings.profileSource !== 'env') return '';
  return `${profileOption(settings.profile)} `;
}

/** The settings a printed command line repeats, in the order it gives them. */
const TARGET_KEYS = ['base_url', 'app_url', 'tenant', 'org'] as const;

/** The long options targetOptions may write: a line that repeats a run's own flags leaves these to it. */
export const TARGET_FLAGS: ReadonlySet<string> = new Set([
  '--profile',
  ...TARGET_KEYS.map((key) => FLAG_NAME[key] as string),
  '--allow-insecure-http',
]);

/**
 * The global options a command line svc prints for a person to run (a listing's continuation, the
 * commands that put a webhook back, a "Try it", where a "not found" says to look) must carry so
 * that it acts where this run did: `-p`, `--base-url`, `--app-url`, `--tenant` and `--org` when
 * they were given as flags, and `--allow-insecure-http` when it was and the base URL is plain http
 * to a host that is not loopback (pasted without it, the line is refused). Without them a pasted
 * line acts on the profile's default tenant (a 404, a cursor of another tenant, a webhook left
 * pointed at a dead listener). What came from the environment is not repeated: the
 * line is pasted in the shell that holds it (repeating it would put the base URL and tenant of
 * every CI job in every hint); nor what the profile holds, which the pasted line reads again.
 * Never a credential (no setting holds one: a URL with a user or password is refused). Each value
 * one shell word, with a trailing space when there is any: `svc ${targetOptions(s)}users ls`.
 */
export function targetOptions(settings: TargetSettings): string {
  const given = (source: SettingSource | undefined) => source === 'flag';
  const words: string[] = [];
  if (given(settings.profileSource)) words.push(profileOption(settings.profile));
  for (const key of TARGET_KEYS) {
    const value = settings.values[key];
    // A URL's secret-named query values masked (leaks11 6): svc sends no query of a base URL.
    const shown = key === 'base_url' || key === 'app_url' ? redactUrlText(value ?? '') : value;
    if (value !== undefined && given(settings.sources[key]))
      words.push(FLAG_NAME[key] as string, shellWord(shown as string));
  }
  if (settings.insecureHttpFlag === true && plainHttpAway(settings.values.base_url))
    words.push('--allow-insecure-http');
  return words.map((word) => `${word} `).join('');
}

/** An http:// URL to a host that is not loopback: svc sends it credentials only when allowed. */
function plainHttpAway(value: string | undefined): boolean {
  const url = value === undefined ? undefined : parseHttpUrl(value);
  return url !== undefined && url.protocol === 'http:' && !isLoopbackHost(url.hostname);
}

/** A printer of `svc WORDS` command lines for one run (`commandLine(ctx.settings())`). */
export type CommandLine = (words: string) => string;

/** The command lines of a run: `svcCommand` with its settings. */
export function commandLine(settings: TargetSettings): CommandLine {
  return (words) => svcCommand(settings, words);
}

/**
 * `svc WORDS` with no global option: for code that is given no run's settings (a test, a bare
 * Platform) and for a profile that no longer exists (it cannot be named).
 */
export const bareCommandLine: CommandLine = (words) => `svc ${words}`;

/** `svc WORDS` as a command line svc prints, with the options that keep it on this run's target (`targetOptions`). */
export function svcCommand(settings: TargetSettings, words: string): string {
  return `svc ${targetOptions(settings)}${words}`;
}

/** The profile a run uses and how it was named: what a printed line repeats as `-p NAME` (profileFlag). */
export type ProfileInUse = Pick<Settings, 'profile' | 'profileSource'>;

/** What a login line is built from: the profile, and (when known) the run's base URL and how it was given. */
export type LoginSettings = ProfileInUse & Partial<Pick<Settings, 'values' | 'sources' | 'insecureHttpFlag'>>;

/**
 * `svc login` as a line to run: with `-p NAME` when the profile was named (-p, SVC_PROFILE), and
 * the `--base-url` given as a flag (README "Output": printed lines repeat it), which a login saves
 * in the profile. Copied without them, it would log the active profile in (or one with no server).
 * Given the profile alone (a refusal of a setting, before the run's settings are whole), `-p` only.
 */
export function loginCommand(settings: LoginSettings): string {
  const server = targetOptions({
    profile: settings.profile,
    profileSource: 'default',
    values: { base_url: settings.values?.base_url },
    sources: { base_url: settings.sources?.base_url },
    insecureHttpFlag: settings.insecureHttpFlag,
  });
  return `svc ${profileFlag(settings)}${server}login`;
}

/**
 * The settings of the run with its tenant replaced (given as by --tenant) or, with undefined, left
 * out: for a line about another tenant (`svc export` of several) or about finding one.
 */
export function inTenant(settings: TargetSettings, tenant: string | undefined): TargetSettings {
  const values = { ...settings.values };
  const sources = { ...settings.sources };
  if (tenant === undefined) {
    delete values.tenant;
    delete sources.tenant;
  } else {
    values.tenant = tenant;
    sources.tenant = 'flag';
  }
  return { ...settings, values, sources };
}

/**
 * A profile that was named and does not exist: exit 5, with the closest name that does, and where
 * the name came from when it was not typed (SVC_PROFILE, set in a shell's rc long ago). A name
 * no profile can have (`__proto__`) says so instead (exit 2): creating it would fail too.
 */
export function unknownProfileError(
  name: string,
  known: Iterable<string>,
  source?: SettingSource,
): NotFoundError | UsageError {
  const invalid = invalidProfileName(name);
  if (invalid) return invalid;
  const from = source === 'env' ? ' (from SVC_PROFILE) among your profiles' : '';
  return new NotFoundError(`no profile named "${name}"${from}${didYouMean(name, known)}`, {
    hint: `see \`svc profiles ls\`; create one with \`svc ${profileOption(name)} config set base_url URL\` (or \`svc ${profileOption(name)} login --base-url URL\`)`,
  });
}

/**
 * The tenant setting's placeholder in a `config set tenant …` line: one spelling in every hint
 * (attack25a F10: `ID|SLUG` in one, `VALUE` in another), and one word to a shell (`ID|SLUG` is a
 * pipe: the line pasted ran `SLUG`; test/unit/hint-quoting.test.ts reads every hint back so).
 */
export const TENANT_PLACEHOLDER = 'ID_OR_SLUG';

/** A setting's placeholder in a `config set KEY …` line a hint names. */
export function settingPlaceholder(key: string): string {
  if (key === 'tenant') return TENANT_PLACEHOLDER;
  return key === 'base_url' || key === 'app_url' ? 'URL' : 'VALUE';
}

/** How to choose the active profile, naming the profiles there are (or how to make one). */
export function chooseProfileHint(names: readonly string[]): string {
  return names.length === 0
    ? 'create one with `svc sandbox start` or `svc -p NAME config set base_url URL`'
    : `choose one with \`svc profiles use NAME\` (yours: ${[...names].sort().join(', ')})`;
}

/**
 * No profile in force: the active profile named in config.json does not exist (removed by hand,
 * or by an older svc), or none is active and there is no "default" (exit 5, how to choose one).
 */
export function missingActiveProfileError(
  active: string | undefined,
  names: readonly string[],
): NotFoundError {
  return new NotFoundError(
    active === undefined ? 'no profile is active' : `the active profile "${active}" does not exist`,
    { hint: chooseProfileHint(names) },
  );
}

/** Each setting from its flag, else its environment variable, else the profile. */
export function resolveSettings(
  flags: SettingFlags & { allowInsecureHttp?: boolean | undefined },
  env: Env,
  profileName: { name: string; source: SettingSource },
  profile: ProfileSettings | undefined,
): Settings {
  const values: Settings['values'] = {};
  const sources: Settings['sources'] = {};
  for (const key of PROFILE_KEYS) {
    const flag = FLAG_FOR[key];
    const fromFlag = flag ? flags[flag] : undefined;
    const fromEnv = env[ENV_FOR[key]];
    const fromProfile = profile?.[key];
    const [value, source]: [string | undefined, SettingSource | undefined] =
      fromFlag !== undefined && fromFlag !== ''
        ? [fromFlag, 'flag']
        : fromEnv !== undefined && fromEnv !== ''
          ? [fromEnv, 'env']
          : fromProfile !== undefined
            ? [fromProfile, 'profile']
            : [undefined, undefined];
    if (value !== undefined && source !== undefined) {
      // A profile's own value is refused where it would be sent (refuseCredentialSettings), so
      // that `config set`/`unset` and `config ls` still reach the profile to mend it.
      const inUse = { profile: profileName.name, profileSource: profileName.source };
      if (source !== 'profile') refuseCredentialSetting(key, value, source, inUse);
      // A profile's user name or password, or query, is refused where the URL is used
      // (savedUrlProblem), so that `config set`/`unset` and `profiles` reach the profile to mend it.
      if (key === 'base_url' || key === 'app_url')
        checkUrlSetting(key, value, source, inUse, source !== 'profile');
      values[key] = value;
      sources[key] = source;
    }
  }
  // A base URL given by flag or env takes with it a profile app_url that was the profile's base URL
  // (what `svc sandbox start` writes), as `config set base_url` does: else `svc login --base-url B`
  // would open the old server's page and send its code to B.
  const overridden = sources.base_url === 'flag' || sources.base_url === 'env';
  if (
    overridden &&
    sources.app_url === 'profile' &&
    profile?.base_url !== undefined &&
    sameUrl(profile.base_url, values.app_url!)
  ) {
    delete values.app_url;
  }
  if (values.app_url === undefined && values.base_url !== undefined) {
    values.app_url = values.base_url;
    sources.app_url = 'default';
  }
  return {
    profile: profileName.name,
    profileSource: profileName.source,
    values,
    sources,
    ...(flags.allowInsecureHttp === true ? { insecureHttpFlag: true } : {}),
  };
}

/** What each setting should hold, in words for a refusal. */
const SETTING_IN_WORDS: Record<ProfileKey, string> = {
  base_url: 'a base URL',
  app_url: 'an app URL',
  tenant: 'a tenant id or slug',
  org: 'an organisation id',
  client_id: 'an OAuth client id',
};

/** What to give a setting instead of a credential pasted into it, in words for a refusal. */
const SETTING_INSTEAD: Record<ProfileKey, string> = {
  base_url: 'take it out of the URL',
  app_url: 'take it out of the URL',
  tenant: "give the tenant's id or slug instead",
  org: "give the organisation's id instead",
  client_id: "give the OAuth client's id instead (`svc oauth ls` lists them)",
};

/**
 * Where a credential of each kind (credentialKind) goes instead: never SVC_TOKEN for a client or a
 * webhook secret, which svc would then send as a bearer token to every call (review15 R15-4).
 */
export const CREDENTIAL_HOME: Record<string, string> = {
  'a client secret':
    'a client secret goes in --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET',
  'a webhook signing secret':
    'a webhook signing secret goes in --secret-file or SVC_WEBHOOK_SECRET (`svc webhooks verify`, `sign`, `listen`)',
  'a refresh token':
    'a refresh token goes in --refresh-token-file or --refresh-token-stdin (`svc oauth token --grant-type refresh_token`)',
};
/** Where an API key or token goes: the login of the profile in use (`svc -p NAME login`), or SVC_TOKEN. */
const tokenHome = (profile: ProfileInUse) =>
  `an API key or token goes in the credential store: \`${loginCommand(profile)} --with-token\`, or SVC_TOKEN`;

/** What to give `key` instead of the credential `value`, and where that credential goes (for `profile`). */
export function credentialSettingMend(key: ProfileKey, value: string, profile: ProfileInUse): string {
  const kind = credentialKind(value);
  return `${SETTING_INSTEAD[key]}; ${(kind && CREDENTIAL_HOME[kind]) ?? tokenHome(profile)}`;
}

/**
 * A credential pasted as a setting (a client secret as the client id, an API key as the org, a
 * token in a base URL) is refused (exit 2) before it is sent or saved: a client id travels in the
 * authorize URL (browser history, server and proxy logs), an org in a header of every request,
 * and `config ls`/`profiles ls` would print it. The value is not repeated (review s14, secrets 5).
 */
export function refuseCredentialSetting(
  key: ProfileKey,
  value: string,
  source: SettingSource,
  profile: ProfileInUse,
): void {
  const problem = credentialSettingProblem(key, value);
  if (problem === undefined) return;
  const where = source === 'profile' ? 'svc did not send it' : 'svc did not send it or save it';
  const mend =
    source === 'profile'
      ? `; remove it with \`svc ${profileOption(profile.profile)} config unset ${key}\``
      : `; ${credentialSettingMend(key, value, profile)}`;
  throw new UsageError(`${describeSource(key, source, profile.profile)} holds ${problem}`, {
    code: 'credential_as_id',
    hint: `${where}${mend}`,
  });
}

/** `a client secret, not an OAuth client id` when `value` holds a credential; else undefined. */
export function credentialSettingProblem(key: ProfileKey, value: string): string | undefined {
  const kind = credentialKind(value);
  return kind === undefined ? undefined : `${kind}, not ${SETTING_IN_WORDS[key]}`;
}

/** Every setting of a run checked as refuseSentSetting does, before any of them is sent. */
export function refuseCredentialSettings(settings: Settings): void {
  for (const key of PROFILE_KEYS) {
    const value = settings.values[key];
    if (value === undefined) continue;
    refuseSentSetting(key, value, settings.sources[key] ?? 'profile', settings);
  }
}

/**
 * A setting's value about to be sent, checked: not a credential (refuseCredentialSetting), and an
 * id with no invisible or control character. Also for a value a command takes as its own flag
 * (`login --client-id`, `oauth token --client-id`), which the run's settings do not hold: it was
 * sent with a control character in it (the token request's form, the login page's address).
 */
export function refuseSentSetting(
  key: ProfileKey,
  value: string,
  source: SettingSource,
  settings: Settings,
): void {
  refuseCredentialSetting(key, value, source, settings);
  // An id holding a paste's invisible character (`--tenant acme\u200b-apac`), refused with it
  // escaped, as a positional id is; its not-found error drew it as the id it suggested (attack21b F7).
  const invisible = ID_SETTINGS.has(key)
    ? invisibleIn(describeSource(key, source, settings.profile), value)
    : undefined;
  if (invisible !== undefined) throw new UsageError(invisible, { code: 'invalid_id' });
  const fix =
    source === 'flag'
      ? 'type the id again'
      : source === 'env'
        ? `set ${ENV_FOR[key]} again`
        : `set it again with \`svc ${profileFlag(settings)}config set ${key} ID\``;
  const character = characterInSetting(key, describeSource(key, source, settings.profile), value, fix);
  if (character !== undefined) throw new UsageError(character, { code: 'invalid_id' });
}

/**
 * An id setting (tenant, org, client_id) holding a control character, in controlIn's words, or
 * the org (sent in the X-SVC-Org-Id header) holding a character past U+007F, in nonAsciiIn's (the
 * rule of every value svc puts in a header: undici sent `orgé` as one Latin-1 byte, exit 0, and
 * `org☃` failed as "a bug in svc"); else undefined. The org and tenant go in headers, which undici
 * refuses to send with a control character: said before anything is sent, where the value is read
 * (flag, environment, profile) and by `config set`, which saves nothing (attack24c F1: "cannot
 * reach … is the server running?", exit 1, and a profile saved that failed so on every later
 * command). A tenant is sent only as a UUID (a slug is resolved to the platform's id), and the
 * client id only in a form or a URL, percent-encoded as UTF-8: past U+007F neither is refused.
 */
export function characterInSetting(
  key: ProfileKey,
  what: string,
  value: string,
  fix: string,
): string | undefined {
  if (!ID_SETTINGS.has(key)) return undefined;
  return controlIn(what, value, fix) ?? (key === 'org' ? nonAsciiIn(what, value, fix) : undefined);
}

/** The settings that are ids (a tenant, an organization, an OAuth client). */
const ID_SETTINGS = new Set<ProfileKey>(['tenant', 'org', 'client_id']);

/**
 * A setting as svc shows it (`config ls`, `profiles ls`, `auth status`): credential shapes masked,
 * and a base or app URL's query and fragment with every value masked, whatever its name or shape
 * (such a URL is refused where it is used, urlQueryProblem, so nothing a user needs is hidden).
 */
export function shownSetting(key: ProfileKey, value: string): string {
  return redactText(key === 'base_url' || key === 'app_url' ? shownUrl(value) : value);
}

/** A base or app URL as shown: redactUrlText's masking, and past a `?` or `#`, every value masked. */
function shownUrl(value: string): string {
  if (!/[?#]/.test(value)) return redactUrlText(value);
  const hashAt = value.indexOf('#');
  const beforeHash = hashAt < 0 ? value : value.slice(0, hashAt);
  return `${redactUrlReference(beforeHash, true)}${hashAt < 0 ? '' : `#${MASK}`}`;
}

/** Where a value came from, in words for error messages ("--base-url", "SVC_BASE_URL", "profile default"). */
export function describeSource(key: ProfileKey, source: SettingSource, profile: string): string {
  if (source === 'flag') return FLAG_NAME[key] ?? key;
  if (source === 'env') return ENV_FOR[key];
  return `${key} in profile "${profile}"`;
}

/**
 * A base URL whose path ends in /v1 (`https://api.example.com/v1`, a common paste): svc adds /v1
 * to every path, so every request would be /v1/v1/… and a 404 that does not say why. Refused
 * before any request (exit 2) with the URL to use; no reasonable server nests /v1 in /v1.
 */
export function checkBaseUrlPath(value: string, source: SettingSource, profile: string): void {
  const url = parseHttpUrl(value);
  if (!url || !/\/v1\/?$/i.test(url.pathname)) return;
  const fixed = new URL(url.pathname.replace(/\/v1\/?$/i, '') || '/', url).toString().replace(/\/$/, '');
  throw new UsageError(
    `${describeSource('base_url', source, profile)} ${redactUrlText(value)} ends in /v1, and svc adds /v1 to every path (/v1/v1/${sym.ellipsis})`,
    { hint: `use ${fixed}` },
  );
}

/**
 * A base or app URL svc can use, or a refusal naming `source` (and, for the fix, the profile in
 * use). `now: false` (a profile's saved value): a user name or password and a query are left to
 * savedUrlProblem where the value is used.
 */
export function checkUrlSetting(
  key: ProfileKey,
  value: string,
  source: SettingSource,
  profile: ProfileInUse,
  now = true,
): string {
  const url = parseHttpUrl(value);
  if (!url) {
    throw new UsageError(
      `${describeSource(key, source, profile.profile)} must be an absolute http(s) URL, got ${quoted(redactUrlText(value))}`,
      { hint: 'for example http://127.0.0.1:4010' },
    );
  }
  if (!now) return value;
  if (url.username !== '' || url.password !== '') throw userInfoProblem(key, source, profile);
  const problem = urlQueryProblem(key, value, source, profile);
  if (problem !== undefined) throw problem;
  return value;
}

/** A URL setting holding a user name or password, refused; the value is not repeated: it holds a credential. */
function userInfoProblem(
  key: ProfileKey,
  source: SettingSource,
  profile: ProfileInUse,
  fix?: string,
): UsageError {
  return new UsageError(
    `${describeSource(key, source, profile.profile)} must not hold a user name or password`,
    {
      hint: `${fix === undefined ? '' : `${fix}; `}credentials go in the credential store: \`${loginCommand(profile)}\`, or SVC_TOKEN`,
    },
  );
}

/**
 * Why a base or app URL a profile holds cannot be used, or undefined: a user name or password
 * (`https://u:p@host`), with the `config set` that removes them (and any query: both are refused),
 * or a query or a fragment (urlQueryProblem). Asked where the URL is used (the API client, a login's
 * pages, `config get`), not where the profile is read, so `config set`/`unset` and `profiles` still
 * reach the profile to mend it (an older svc saved such a value, or config.json was edited). An
 * app URL that is the base URL (`source` 'default') is mended by setting base_url.
 */
export function savedUrlProblem(
  key: 'base_url' | 'app_url',
  value: string,
  source: SettingSource,
  profile: ProfileInUse,
): UsageError | undefined {
  const [name, from] = source === 'default' ? (['base_url', 'profile'] as const) : [key, source];
  const url = parseHttpUrl(value);
  if (url === undefined || (url.username === '' && url.password === ''))
    return urlQueryProblem(name, value, from, profile);
  if (from !== 'profile') return userInfoProblem(name, from, profile);
  // The user information cut from the text as given (the rest kept as the user wrote it); a
  // query or fragment cut too, as urlQueryProblem would have it.
  const bare = value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1');
  const cut = bare.search(/[?#]/);
  const fixed = cut < 0 ? bare : bare.slice(0, cut).replace(/\/+$/, '');
  const fix =
    redactUrlText(fixed) !== fixed || parseHttpUrl(fixed)?.username !== ''
      ? 'remove them from the URL'
      : `remove them: \`svc ${profileFlag(profile)}config set ${name} ${shellWord(fixed)}\``;
  return userInfoProblem(name, from, profile, fix);
}

/**
 * The run's base URL (the API client: every request), or its app URL (the browser login, which
 * opens its pages there: `keys` ['app_url']), refused when it holds a query or a fragment
 * (urlQueryProblem). app_url is asked only where it is used, so a harmless query in it does not
 * stop the API commands, which never use it (review25c L3).
 */
export function refuseUrlQueries(
  settings: Settings,
  keys: ReadonlyArray<'base_url' | 'app_url'> = ['base_url'],
): void {
  for (const key of keys) {
    const value = settings.values[key];
    const problem =
      value === undefined
        ? undefined
        : savedUrlProblem(key, value, settings.sources[key] ?? 'profile', settings);
    if (problem !== undefined) throw problem;
  }
}

/**
 * A base or app URL with a query or a fragment (`https://api.example.com/?token=…`) is no base
 * URL: svc joins its own paths to it, which drops the query from every request, so what it holds is
 * never sent, only saved in config.json and shown (attack25b M2). Refused where a user name or
 * password is (checkUrlSetting: flag, environment, `config set`), and a profile's value where it
 * would be used (the API client, `config get`), so `config set`/`unset` still reach the profile to
 * mend it. The line shows the query's names, never its values.
 */
export function urlQueryProblem(
  key: ProfileKey,
  value: string,
  source: SettingSource,
  profile: ProfileInUse,
): UsageError | undefined {
  const cut = value.search(/[?#]/);
  if (cut < 0) return undefined;
  const head = value.slice(0, cut);
  const hashAt = value.indexOf('#');
  const beforeHash = hashAt < 0 ? value : value.slice(0, hashAt);
  const shown = shownUrl(value);
  const what = beforeHash.length > head.length ? 'a query' : 'a fragment';
  const fixed = head.replace(/\/+$/, '');
  const fixedShown = redactUrlText(fixed);
  const use =
    fixedShown !== fixed
      ? `drop the ${what.slice(2)} from the URL`
      : source === 'profile'
        ? `drop the ${what.slice(2)}: \`svc ${profileFlag(profile)}config set ${key} ${shellWord(fixed)}\``
        : `drop the ${what.slice(2)}: use ${fixed}`;
  return new UsageError(
    `${describeSource(key, source, profile.profile)} ${shown} has ${what}, and a ${
      key === 'app_url'
        ? 'browser app URL takes none: svc would drop it from the login page it opens there'
        : 'base URL takes none: svc would drop it from every request'
    }`,
    {
      hint: `${use}; credentials go in the credential store: \`${loginCommand({ profile: profile.profile, profileSource: profile.profileSource })}\`, or SVC_TOKEN`,
    },
  );
}
