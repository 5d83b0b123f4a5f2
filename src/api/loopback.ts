/**
 * Loopback hosts, as svc and the sandbox both mean them: the IP literals 127.0.0.0/8 and [::1],
 * and `localhost`. A name under `.localhost` is not one: RFC 6761 asks resolvers to answer it with
 * loopback, but Node asks the system resolver, which may not — so neither a credential over plain
 * HTTP nor an http redirect URI is allowed to it. Case does not matter (WHATWG URL lowers it anyway).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** `value` as an absolute http(s) URL, or undefined when it is not one. */
export function parseHttpUrl(value: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}

/**
 * `value` as WHATWG URL writes it (`HTTP://h:80/./a` is `http://h/a`), the form the sandbox
 * stores a webhook's target in; `value` itself when it is not an absolute http(s) URL. Two
 * spellings of one URL compare equal in this form.
 */
export function normalHttpUrl(value: string): string {
  return parseHttpUrl(value)?.href ?? value;
}
