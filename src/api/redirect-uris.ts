/**
 * Redirect URIs of OAuth clients (RFC 8252 for native apps): what may be registered, shared by
 * the sandbox (which enforces it) and `svc plan` (which checks a file before anything is sent).
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

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
  return undefined;
}
