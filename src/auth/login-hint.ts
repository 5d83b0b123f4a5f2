import { profileFlag, type Settings } from '../config/settings.js';
import type { Env } from '../output/io.js';

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
