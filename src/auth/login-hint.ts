import { type LoginSettings, loginCommand, profileFlag, type Settings } from '../config/settings.js';
import type { StoredCredential } from '../config/store.js';
import type { Env } from '../output/io.js';
import { sym } from '../output/symbols.js';

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

/**
 * The way out of a 403 user_required for a profile logged in with `svc login --client-id` (review18
 * R18-2): the platform counts a token of a tenant's own OAuth client as an integration acting for
 * the user, so operations for users themselves only (minting a standing credential) are refused to
 * it, with words written for an integration. Undefined when SVC_TOKEN overrides the profile, or
 * the profile's credential is no OAuth login (a key's refusal says what it is).
 */
export function clientLoginHint(
  settings: Pick<Settings, 'profile' | 'profileSource' | 'values' | 'sources'>,
  env: Env,
  stored: StoredCredential | undefined,
): string | undefined {
  if (env.SVC_TOKEN?.trim() || stored?.type !== 'oauth' || !stored.client_id) return undefined;
  const p = profileFlag(settings);
  const login = `\`svc ${p}login\``;
  // `svc login` without --client-id takes the profile's client_id (or SVC_CLIENT_ID): not this one.
  const configured = settings.values.client_id === stored.client_id ? settings.sources.client_id : undefined;
  const way =
    configured === 'env'
      ? `unset SVC_CLIENT_ID, then ${login}`
      : configured === 'profile'
        ? `\`svc ${p}config unset client_id\`, then ${login}`
        : `${login}, without --client-id`;
  return (
    `profile "${settings.profile}" is logged in through the OAuth client ${stored.client_id} (\`svc login --client-id\`), ` +
    `which the platform counts as an integration acting for you, not your own login: log in through svc's own client to do this (${way})`
  );
}
