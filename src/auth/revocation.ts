import { OAUTH_PATHS } from '../api/constants.js';
import type { StoredCredential } from '../config/store.js';
import type { ApiClient } from '../http/client.js';
import { ApiError } from '../http/errors.js';
import { sentClientSecret } from './client-secret.js';
import { isOtherIssuer, issuerOf, notFound, serverMetadata, usableEndpoint } from './metadata.js';

/**
 * Ending an OAuth session server-side (`svc logout`): RFC 7009 token revocation, at the endpoint
 * the authorization server announces in its RFC 8414 metadata — or, when it publishes none, at
 * the path the svc sandbox serves it on. A server that offers neither is said to, never taken
 * for one that revoked.
 */

export type Revocation =
  /** The server confirmed (RFC 7009: 200) — the refresh token and what came with it are dead. */
  | { outcome: 'revoked'; endpoint: string }
  /** The server offers no revocation: the token stays valid until it expires. */
  | { outcome: 'unsupported'; server: string }
  /** Nothing to revoke server-side (an API key or a token stored with --with-token). */
  | { outcome: 'not_applicable' };

/**
 * Where the server revokes tokens: its metadata's revocation_endpoint (only from metadata whose
 * issuer is the one asked about, RFC 8414 §3.3); null when its metadata names none; the sandbox's
 * path when it publishes no metadata at all.
 */
export async function revocationEndpoint(
  api: ApiClient,
  tokenUrl: string,
): Promise<{ url: string; announced: boolean } | null> {
  const metadata = await serverMetadata(api, tokenUrl);
  if (metadata === null) {
    return { url: `${issuerOf(tokenUrl).href.replace(/\/$/, '')}${OAUTH_PATHS.revoke}`, announced: false };
  }
  if (isOtherIssuer(metadata)) return null;
  const url = usableEndpoint(metadata.revocation_endpoint);
  return url ? { url, announced: true } : null;
}

/**
 * Revokes the session of an OAuth credential: its refresh token (RFC 7009 §2.1 — which also ends
 * the access tokens of the grant), or its access token when it has no refresh token. Throws when
 * the server could not be asked or refused, so a failure is never reported as a logout.
 */
export async function revokeSession(
  api: ApiClient,
  credential: StoredCredential,
  /** Another secret of the same client to authenticate with (the stored one was refused); sent under sentClientSecret's rule. */
  clientSecret?: string,
): Promise<Revocation> {
  if (credential.type !== 'oauth' || !credential.token_url) return { outcome: 'not_applicable' };
  const server = new URL(credential.token_url).origin;
  const endpoint = await revocationEndpoint(api, credential.token_url);
  if (endpoint === null) return { outcome: 'unsupported', server };
  const [token, hint] = credential.refresh_token
    ? [credential.refresh_token, 'refresh_token']
    : [credential.access_token, 'access_token'];
  try {
    await api.request({
      method: 'POST',
      path: endpoint.url,
      form: {
        token,
        token_type_hint: hint,
        client_id: credential.client_id,
        client_secret: sentClientSecret({
          client_id: credential.client_id,
          client_secret: clientSecret ?? credential.client_secret,
        }),
      },
      auth: false,
      tenant: null,
      // RFC 7009 §2.2: a 200 whose body, if any, the client ignores.
      expect: 'optional',
      secrets: [token, credential.client_secret ?? '', clientSecret ?? ''].filter(Boolean),
    });
  } catch (error) {
    // A guessed path the server does not have, or a server that says it cannot revoke this kind.
    const unsupportedType = error instanceof ApiError && error.code === 'unsupported_token_type';
    if ((notFound(error) && !endpoint.announced) || unsupportedType) {
      return { outcome: 'unsupported', server };
    }
    throw error;
  }
  return { outcome: 'revoked', endpoint: endpoint.url };
}
