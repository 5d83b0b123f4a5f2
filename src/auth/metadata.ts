import { OAUTH_PATHS } from '../api/constants.js';
import { isLoopbackHost, parseHttpUrl } from '../api/loopback.js';
import { InterruptedError } from '../errors.js';
import type { ApiClient, RequestOptions } from '../http/client.js';
import { ApiError } from '../http/errors.js';
import { checkCredentialTransport } from '../http/origin.js';

/**
 * An authorization server's metadata (RFC 8414): where its endpoints are. Used to find the
 * revocation endpoint (`svc logout`) and the device authorization endpoint (`svc login --device`).
 */

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

export const notFound = (error: unknown) =>
  error instanceof ApiError && (error.status === 404 || error.status === 405);

/** Metadata refused because it names another issuer: where it was, and whom it names. */
export interface OtherIssuer {
  otherIssuer: { at: string; names: string; expected: string };
}

export const isOtherIssuer = (
  metadata: Record<string, unknown> | OtherIssuer | null,
): metadata is OtherIssuer => metadata !== null && 'otherIssuer' in metadata;

/**
 * The metadata of the issuer a token endpoint belongs to, or null when the server publishes none
 * (404/405). Metadata naming another issuer is refused (RFC 8414 §3.3): none of it is used, and
 * the answer says so (`otherIssuer`), so a caller can name the cause (a proxy or an alias of the
 * platform) rather than say the server lacks what the metadata lists (conform16 #2).
 */
export async function serverMetadata(
  api: ApiClient,
  tokenUrl: string,
  request: Pick<RequestOptions, 'maxRetries' | 'timeoutMs' | 'signal'> = {},
): Promise<Record<string, unknown> | OtherIssuer | null> {
  const issuer = issuerOf(tokenUrl);
  const at = metadataUrl(issuer);
  try {
    const { data } = await api.request<Record<string, unknown>>({
      method: 'GET',
      path: at,
      auth: false,
      tenant: null,
      ...request,
    });
    const named = typeof data?.issuer === 'string' ? data.issuer : undefined;
    let sameIssuer = false;
    try {
      sameIssuer = named !== undefined && new URL(named).href === issuer.href;
    } catch {
      // not a URL: another issuer
    }
    if (sameIssuer) return data;
    return { otherIssuer: { at, names: String(named ?? 'none'), expected: issuer.href } };
  } catch (error) {
    if (notFound(error)) return null;
    throw error;
  }
}

/**
 * The device endpoint the metadata names, as usableEndpoint takes it, but a plain-http one on a
 * host that is not loopback is refused (exit 2, as every request is) unless --allow-insecure-http
 * allows it: "does not offer" would be untrue, and its hint sent the user to a login over http.
 */
export function deviceEndpoint(value: unknown, allowInsecure: boolean): string | undefined {
  const url = typeof value === 'string' ? parseHttpUrl(value) : undefined;
  if (!url) return undefined;
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) checkCredentialTransport(url, allowInsecure);
  return url.toString();
}

/** An endpoint svc may send credentials to: https, or http on a loopback host. */
export function usableEndpoint(value: unknown): string | undefined {
  const url = typeof value === 'string' ? parseHttpUrl(value) : undefined;
  if (!url) return undefined;
  return url.protocol === 'https:' || isLoopbackHost(url.hostname) ? url.toString() : undefined;
}

/** How long the login's metadata read may take: a hint, never a wait of its own (review28c F2). */
export const ISSUER_HINT_TIMEOUT_MS = 10_000;

/** How long a login waits on that read, after a response without `iss`, before it says so (flow.ts). */
export const ISSUER_NOTICE_MS = 1_000;

/**
 * Whether the server says it puts `iss` in every authorization response (RFC 9207 §3,
 * authorization_response_iss_parameter_supported): then one without is refused (§2.4). No
 * metadata, another issuer's, or none to be had (unreachable, slow, 5xx, 429: the login fails at
 * its exchange anyway if the server is gone) is no such promise. A best-effort hint: one attempt,
 * no retries (no retry lines for a request the user did not ask for), a short bound of its own;
 * only an interruption (Ctrl-C, or the login over) passes through (review28c F1).
 */
export async function promisesIssuer(
  api: ApiClient,
  tokenUrl: string,
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    const metadata = await serverMetadata(api, tokenUrl, {
      maxRetries: 0,
      timeoutMs: ISSUER_HINT_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
    });
    return (
      metadata !== null &&
      !isOtherIssuer(metadata) &&
      metadata.authorization_response_iss_parameter_supported === true
    );
  } catch (error) {
    if (error instanceof InterruptedError || signal?.aborted) throw error;
    return false;
  }
}
