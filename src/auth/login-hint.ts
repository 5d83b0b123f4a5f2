import { profileFlag, type Settings, targetOptions } from '../config/settings.js';
import type { Env } from '../output/io.js';
import { sym } from '../output/symbols.js';

/** What a login line is built from: the profile, and (when known) the run's base URL and how it was given. */
export type LoginSettings = Pick<Settings, 'profile' | 'profileSource'> &
  Partial<Pick<Settings, 'values' | 'sources' | 'insecureHttpFlag'>>;

/**
 * `svc login` as a line to run: with `-p NAME` when the profile was named (-p, SVC_PROFILE), and
 * the `--base-url` given as a flag (README "Output": printed lines repeat it), which a login saves
 * in the profile. Copied without them, it would log the active profile in (or one with no server).
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
 * What to do about a missing or rejected credential. SVC_TOKEN overrides any login, so when it is
 * set, logging in fixes nothing; a suggested login keeps the -p NAME given.
 */
export function loginHint(settings: LoginSettings, env: Env): string {
  if (env.SVC_TOKEN?.trim())
    return 'SVC_TOKEN overrides any stored login: unset it, or set it to a valid token';
  const login = loginCommand(settings);
  return `run \`${login}\` (or \`${login} --with-token\`), or set SVC_TOKEN`;
}

/** The other credential a 403 can be fixed with, when SVC_TOKEN does not override the profile. */
export const otherProfile = (): string =>
  `use a profile whose login holds it (svc -p PROFILE ${sym.ellipsis})`;

/**
 * How to act with another credential, for a 403 whose fix is one. SVC_TOKEN overrides every
 * profile, so with it set, naming a profile (-p) changes nothing.
 */
export function otherCredentialHint(env: Env): string {
  return env.SVC_TOKEN?.trim()
    ? 'set SVC_TOKEN to a credential that holds it (it overrides every profile), or unset it to use a profile whose login does'
    : otherProfile();
}
