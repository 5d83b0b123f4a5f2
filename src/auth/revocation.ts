import { OAUTH_PATHS } from '../api/constants.js';
import type { StoredCredential } from '../config/store.js';
import type { ApiClient } from '../http/client.js';
import { ApiError } from '../http/errors.js';

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

/** The issuer a token endpoint belongs to: its URL without the token path (or its origin). */
export function issuerOf(tokenUrl: string): URL {
  const url = new URL(tokenUrl);
  const path = url.pathname.endsWith(OAUTH_PATHS.token)
    ? url.pathname.slice(0, -OAUTH_PATHS.token.length)
    : '';
  return new URL(`${url.origin}${path}`);
}

/** RFC 8414 §3.1: the well-known path goes between the host and the issuer's path. */
export function metadataUrl(issuer: URL): string {
  const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
  return `${issuer.origin}${OAUTH_PATHS.metadata}${path}`;
}

function usableEndpoint(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    return url.protocol === 'https:' || (url.protocol === 'http:' && loopback) ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

const notFound = (error: unknown) =>
  error instanceof ApiError && (error.status === 404 || error.status === 405);

/**
 * Where the server revokes tokens: its metadata's revocation_endpoint (only from metadata whose
 * issuer is the one asked about, RFC 8414 §3.3); null when its metadata names none; the sandbox's
 * path when it publishes no metadata at all.
 */
export async function revocationEndpoint(
  api: ApiClient,
  tokenUrl: string,
): Promise<{ url: string; announced: boolean } | null> {
  const issuer = issuerOf(tokenUrl);
  try {
    const { data } = await api.request<Record<string, unknown>>({
      method: 'GET',
      path: metadataUrl(issuer),
      auth: false,
      tenant: null,
    });
    const sameIssuer = typeof data?.issuer === 'string' && new URL(data.issuer).href === issuer.href;
    const url = sameIssuer ? usableEndpoint(data.revocation_endpoint) : undefined;
    return url ? { url, announced: true } : null;
  } catch (error) {
    if (!notFound(error)) throw error;
    return { url: `${issuer.href.replace(/\/$/, '')}${OAUTH_PATHS.revoke}`, announced: false };
  }
}

/**
 * Revokes the session of an OAuth credential: its refresh token (RFC 7009 §2.1 — which also ends
 * the access tokens of the grant), or its access token when it has no refresh token. Throws when
 * the server could not be asked or refused, so a failure is never reported as a logout.
 */
export async function revokeSession(api: ApiClient, credential: StoredCredential): Promise<Revocation> {
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
        client_secret: credential.client_secret,
      },
      auth: false,
      tenant: null,
      // RFC 7009 §2.2: a 200 whose body, if any, the client ignores.
      expect: 'optional',
      secrets: [token, credential.client_secret ?? ''].filter(Boolean),
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
