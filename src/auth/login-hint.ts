import { profileFlag, type Settings } from '../config/settings.js';
import type { Env } from '../output/io.js';
import { sym } from '../output/symbols.js';

/** `svc login`, or `svc -p NAME login` when the profile was named (-p, SVC_PROFILE). */
export function loginCommand(settings: Pick<Settings, 'profile' | 'profileSource'>): string {
  return `svc ${profileFlag(settings)}login`;
}

/**
 * What to do about a missing or rejected credential. SVC_TOKEN overrides any login, so when it is
 * set, logging in fixes nothing; a suggested login keeps the -p NAME given.
 */
export function loginHint(settings: Pick<Settings, 'profile' | 'profileSource'>, env: Env): string {
  if (env.SVC_TOKEN?.trim())
    return 'SVC_TOKEN overrides any stored login: unset it, or set it to a valid token';
  const p = profileFlag(settings);
  return `run \`svc ${p}login\` (or \`svc ${p}login --with-token\`), or set SVC_TOKEN`;
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
