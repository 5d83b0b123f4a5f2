/**
 * Redirect URIs of OAuth clients (RFC 8252 for native apps): what may be registered, shared by
 * the sandbox (which enforces it) and `svc plan` (which checks a file before anything is sent).
 */

import { isLoopbackHost, normalHttpUrl } from './loopback.js';

/** Why a redirect URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https (or http on loopback)';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return 'may use http only on a loopback host (127.0.0.1, [::1], localhost)';
  if (url.hash !== '' || uri.includes('#')) return 'must not contain a fragment';
  if (url.username !== '' || url.password !== '') return 'must not contain user information';
  // Matched only literally, `https://*.example.com/cb` would register a host no browser reaches.
  if (url.hostname.includes('*'))
    return 'has a wildcard in its host: wildcards are not supported; register each redirect URI';
  return undefined;
}

/**
 * The redirect URIs of one client that repeat an earlier one, as WHATWG URL writes them (scheme
 * and host case, a default port, `/./`): `HTTPS://A.EXAMPLE:443/cb` is `https://a.example/cb`,
 * and the browser goes to the same place for both. Each as `[index, problem]`, the problem
 * naming the earlier spelling.
 */
export function repeatedRedirectUris(uris: readonly string[]): Array<[number, string]> {
  const first = new Map<string, number>();
  const repeats: Array<[number, string]> = [];
  uris.forEach((uri, i) => {
    const normal = normalHttpUrl(uri);
    const earlier = first.get(normal);
    if (earlier === undefined) {
      first.set(normal, i);
      return;
    }
    const problem =
      uris[earlier] === uri
        ? `repeats redirect_uris.${earlier}`
        : `is redirect_uris.${earlier} ${JSON.stringify(uris[earlier])} spelled another way (both are ${normal})`;
    repeats.push([i, `${problem}; register each redirect URI once`]);
  });
  return repeats;
}

/**
 * Exact match, except that a loopback http redirect may use any port (RFC 8252 §7.3): native
 * apps listen on an ephemeral port chosen at run time.
 */
export function redirectUriMatches(registered: string, given: string): boolean {
  if (registered === given) return true;
  let r: URL;
  let g: URL;
  try {
    r = new URL(registered);
    g = new URL(given);
  } catch {
    return false;
  }
  if (r.protocol !== 'http:' || g.protocol !== 'http:' || !isLoopbackHost(r.hostname)) return false;
  if (g.hash !== '' || given.includes('#') || g.username !== '' || g.password !== '') return false;
  return r.hostname === g.hostname && r.pathname === g.pathname && r.search === g.search;
}

/** Where svc's loopback receiver listens (src/auth/loopback.ts): any port, this path. */
export const SVC_REDIRECT_EXAMPLE = 'http://127.0.0.1/callback';

/**
 * Whether a client with these redirect URIs can be used by `svc oauth authorize` / `svc login`:
 * svc redirects to http://127.0.0.1:PORT/callback, so one registered URI must match that.
 */
export function acceptsSvcRedirect(redirectUris: readonly string[]): boolean {
  return redirectUris.some((registered) => redirectUriMatches(registered, 'http://127.0.0.1:1/callback'));
}
