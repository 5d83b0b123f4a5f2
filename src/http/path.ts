import { controlIn, invisibleIn } from '../api/characters.js';
import { UsageError } from '../errors.js';
import { quoted } from '../output/format.js';
import { credentialKind } from './redact.js';

/**
 * The command-line argument a path parameter comes from, named by the path segment before it
 * (`/v1/roles/${id}` → ROLE), as the commands and the contract name their arguments, and the id
 * it takes in words (for a refusal: "not an audit entry id (aud_…)").
 */
const ARGUMENT_AFTER: Record<string, [argument: string, id: string]> = {
  users: ['USER', 'user'],
  roles: ['ROLE', 'role'],
  webhooks: ['WEBHOOK', 'webhook'],
  deliveries: ['DELIVERY', 'delivery'],
  dlq: ['ENTRY', 'dead-letter entry'],
  tenants: ['TENANT', 'tenant'],
  'api-keys': ['KEY', 'API key'],
  clients: ['CLIENT', 'OAuth client'],
  audit_trail: ['ID', 'audit entry'],
  v1: ['SURFACE', 'record surface'],
};

/** What the id of each kind looks like, where one prefix says it. */
const ID_SHAPE: Record<string, string> = {
  user: ' (usr_…)',
  role: ' or name',
  'API key': ' (key_…)',
  'audit entry': ' (aud_…)',
};

function argumentOf(before: string): [argument: string, id: string] {
  return ARGUMENT_AFTER[before.replace(/\/+$/, '').split('/').pop() ?? ''] ?? ['ID', 'record'];
}

function argumentName(before: string): string {
  return argumentOf(before)[0];
}

/** "an audit entry id (aud_…)": the id a kind of object is named by, in words. */
export function idInWords(kind: string): string {
  return `${/^(?:[aeioAEIO]|API)/.test(kind) ? 'an' : 'a'} ${kind} id${ID_SHAPE[kind] ?? ''}`;
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
    const invisible = invisibleIn(argumentName(strings[i] ?? ''), text);
    if (invisible) throw new UsageError(invisible, { code: 'invalid_id' });
    // A control character: no id holds one, and the server's "not found" drew `a\nb` as `a b`
    // (attack24c F5): refused, quoted and escaped as a header's value is (controlIn).
    const control = controlIn(argumentName(strings[i] ?? ''), text, 'type the id again; svc did not send it');
    if (control) throw new UsageError(control, { code: 'invalid_id' });
    refuseShortenedId(argumentName(strings[i] ?? ''), text);
    const kind = argumentOf(strings[i] ?? '')[1];
    refuseCredentialAsId(idInWords(kind), text, `give the ${kind}'s id instead; ${NOT_SENT}`);
    out += encodeURIComponent(text) + (strings[i + 1] ?? '');
  });
  return out;
}

/**
 * An id a table printed after cutting it to fit (`wh_0195…`), given back as `name`: a usage error
 * saying so, never looked up (sent or searched for as it is, it would be "not found").
 */
export function refuseShortenedId(name: string, text: string): void {
  if (!text.endsWith('…')) return;
  throw new UsageError(`${name} ${quoted(text)} is an id shortened to fit a table`, {
    code: 'invalid_id',
    hint: 'list again with --wide (or --json, or in a pipe) to see ids whole',
  });
}

const NOT_SENT = 'svc did not send the secret (in a URL it would stay in proxy and server logs)';

/**
 * A credential pasted where an id belongs (the API key instead of its id, a webhook's signing
 * secret, a token) is a usage error before it is sent: in a URL, path or query, it would stay in
 * proxy and server access logs. `wanted` says in words what was expected there (idInWords);
 * `hint` may name the right id when the caller can find it.
 */
export function refuseCredentialAsId(wanted: string, text: string, hint?: string): void {
  const kind = credentialKind(text);
  if (kind === undefined) return;
  const what = kind === 'the API key itself' && wanted.startsWith(idInWords('API key')) ? 'its id' : wanted;
  throw new UsageError(`that is ${kind}, not ${what}`, {
    code: 'credential_as_id',
    hint: hint ?? `give the id instead; ${NOT_SENT}`,
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
