import { UsageError } from '../errors.js';
import { credentialKind } from './redact.js';

/**
 * The command-line argument a path parameter comes from, named by the path segment before it
 * (`/v1/roles/${id}` → ROLE), as the commands and the contract name their arguments.
 */
const ARGUMENT_AFTER: Record<string, string> = {
  users: 'USER',
  roles: 'ROLE',
  webhooks: 'WEBHOOK',
  deliveries: 'DELIVERY',
  dlq: 'ENTRY',
  tenants: 'TENANT',
  'api-keys': 'KEY',
  clients: 'CLIENT',
  v1: 'SURFACE',
};

function argumentName(before: string): string {
  return ARGUMENT_AFTER[before.replace(/\/+$/, '').split('/').pop() ?? ''] ?? 'ID';
}

/**
 * Builds an API path with every interpolated value percent-encoded as one path segment, so an
 * id such as `../admin` or `a/b?c` can never change which endpoint is called. An empty value,
 * `.` or `..` is not an id (in a URL path they name another endpoint): a usage error (exit 2)
 * naming the argument, wherever an id goes into a path; so is an id a table shortened (`wh_0195…`).
 *
 *   path`/v1/users/${userId}/roles/${roleId}`
 */
export function path(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    const text = String(value);
    if (text.trim() === '' || text === '.' || text === '..') {
      const name = argumentName(strings[i] ?? '');
      throw new UsageError(
        `${name} must be an id, not ${text.trim() === '' ? 'empty' : JSON.stringify(text)}`,
        {
          code: 'invalid_id',
          hint: '"." and ".." are not ids: in a URL path they would name another endpoint',
        },
      );
    }
    if (text.endsWith('…')) {
      // What a table printed after cutting an id to fit: sent as it is, it would be a 404.
      throw new UsageError(
        `${argumentName(strings[i] ?? '')} ${JSON.stringify(text)} is an id shortened to fit a table`,
        {
          code: 'invalid_id',
          hint: 'list again with --wide (or --json, or in a pipe) to see ids whole',
        },
      );
    }
    refuseCredentialAsId(argumentName(strings[i] ?? ''), text);
    out += encodeURIComponent(text) + (strings[i + 1] ?? '');
  });
  return out;
}

/**
 * A credential pasted where an id belongs (the API key instead of its id, a webhook's signing
 * secret, a token) is a usage error before it is sent: in a URL it would stay in proxy and
 * server access logs. `hint` may name the right id when the caller can find it.
 */
export function refuseCredentialAsId(name: string, text: string, hint?: string): void {
  const kind = credentialKind(text);
  if (kind === undefined) return;
  const whose = kind === 'the API key itself' && name === 'KEY' ? 'its id' : `a ${name} id`;
  throw new UsageError(`that is ${kind}, not ${whose}`, {
    code: 'credential_as_id',
    hint:
      hint ??
      `give the ${name}'s id instead; svc did not send the secret (in a URL it would stay in proxy and server logs)`,
  });
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
