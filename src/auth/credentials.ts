import type { ConfigStore, StoredCredential } from '../config/store.js';
import type { Env } from '../output/io.js';
import { credentialSecrets, type RefreshDeps, refreshingCredentials } from './refresh.js';

/**
 * Where the HTTP layer gets its bearer token. The static source serves SVC_TOKEN or a stored
 * API key/JWT; OAuth profiles plug a refreshing source in here.
 */
export interface CredentialSource {
  /** Describes the source for messages: `SVC_TOKEN`, `profile "default"`. */
  readonly origin: string;
  /** The token to send, or undefined when there is none. */
  token(): Promise<string | undefined>;
  /** Called once after a 401 with the token that was rejected; may return a replacement. */
  renew?(rejected: string): Promise<string | undefined>;
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

/**
 * SVC_TOKEN overrides whatever the profile holds. A profile logged in with OAuth (and a refresh
 * option given) gets a source that refreshes its tokens; anything else is served as stored.
 */
export function credentialsFor(
  env: Env,
  store: ConfigStore,
  profile: string,
  refresh?: RefreshOptions,
): CredentialSource {
  if (env.SVC_TOKEN) return staticCredentials(env.SVC_TOKEN.trim(), 'SVC_TOKEN');
  const stored = store.credential(profile);
  if (stored?.type === 'oauth' && refresh)
    return refreshingCredentials({ ...refresh, store, profile }, stored);
  const source = staticCredentials(stored?.access_token, `profile "${profile}"`);
  return { ...source, secrets: () => storedCredentialSecrets(stored) };
}
