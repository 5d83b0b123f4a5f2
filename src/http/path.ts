/**
 * Builds an API path with every interpolated value percent-encoded as one path segment, so an
 * id such as `../admin` or `a/b?c` can never change which endpoint is called.
 *
 *   path`/v1/users/${userId}/roles/${roleId}`
 */
export function path(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    const text = String(value);
    if (text === '' || text === '.' || text === '..') {
      throw new TypeError(`invalid path parameter ${JSON.stringify(text)}`);
    }
    out += encodeURIComponent(text) + (strings[i + 1] ?? '');
  });
  return out;
}

/** Joins a base URL (which may carry a path prefix such as /api) and an absolute API path. */
export function joinUrl(baseUrl: string, apiPath: string): URL {
  if (/^https?:\/\//i.test(apiPath)) return new URL(apiPath);
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const [pathname, search] = splitOnce(apiPath.startsWith('/') ? apiPath : `/${apiPath}`, '?');
  base.pathname = prefix + pathname;
  base.search = search === undefined ? '' : `?${search}`;
  base.hash = '';
  return base;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
