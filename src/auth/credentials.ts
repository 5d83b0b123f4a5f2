import type { ConfigStore, StoredCredential } from '../config/store.js';
import type { Env } from '../output/io.js';

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
  if (!credential) return [];
  return [credential.access_token, credential.refresh_token].filter(
    (s): s is string => typeof s === 'string',
  );
}

/** SVC_TOKEN overrides whatever the profile holds. */
export function credentialsFor(env: Env, store: ConfigStore, profile: string): CredentialSource {
  if (env.SVC_TOKEN) return staticCredentials(env.SVC_TOKEN.trim(), 'SVC_TOKEN');
  const stored = store.credential(profile);
  const source = staticCredentials(stored?.access_token, `profile "${profile}"`);
  return { ...source, secrets: () => storedCredentialSecrets(stored) };
}
