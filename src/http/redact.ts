/**
 * Masks credentials in anything svc prints about HTTP traffic or errors, three ways:
 *
 * - by name: header values, JSON fields and form or query parameters whose names say they hold
 *   a secret (`key`, `secret`, `client_secret`, `access_token`, `code`, `code_verifier`, …);
 * - by shape: any value that looks like a credential wherever it sits in text — JWTs, svc's
 *   keys and secrets (`svc_sk_…`, `svc_pk_…`, `svc_cs_…`, `svc_rt_…`), webhook secrets
 *   (`whsec_…`), and whatever follows `Bearer ` or `Basic `;
 * - by value: every secret this process knows (the bearer token, a client secret read from a
 *   file, a key the server just issued), kept in a SecretRegistry.
 *
 * Past 300 lines, on purpose: the three ways (with the URL headers of a trace) and the registry that feeds the third are one
 * rule, applied together to every line a trace or an error shows.
 */

import { unicodeEscape } from '../api/characters.js';
import { eachJsonObject } from '../api/json-text.js';
import {
  isSecretField,
  MASK,
  redactParams,
  redactUrlReference,
  redactUrlsInText,
  redactUrlText,
  CREDENTIAL_SHAPES as SHAPES,
} from '../api/secret-names.js';

export { isSecretField, MASK, redactParams, redactUrl } from '../api/secret-names.js';

const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-svc-signature',
]);

/** Fields beside `code` that make it an error code, not an authorization code. */
const ERROR_SIBLINGS = ['message', 'error_description', 'detail', 'title', 'error'];

/** A header that carries a credential: a known one, or one named like a secret (X-Auth-Token). */
export function isSecretHeader(name: string): boolean {
  const lower = name.toLowerCase();
  const field = lower.replace(/-/g, '_');
  // `X-MFA-Code` is named as the field `mfa_code` is.
  return SECRET_HEADERS.has(lower) || isSecretField(field) || isSecretField(field.replace(/^x_/, ''));
}

/**
 * Headers whose value is or holds a URL (a redirect's `Location`, `Link: <…>; rel=next`,
 * `Refresh: 0; url=…`): its secret query values are masked by the request line's rule, since a
 * redirect can carry an authorization code or a `?token=` (review s14, secrets 1).
 */
const URL_HEADERS: Record<string, (value: string) => string> = {
  location: redactUrlReference,
  'content-location': redactUrlReference,
  link: (value) => value.replace(/<([^>]*)>/g, (_, url: string) => `<${redactUrlReference(url)}>`),
  refresh: (value) =>
    value.replace(
      /(url\s*=\s*['"]?)(.*)$/is,
      (_, head: string, url: string) => head + redactUrlReference(url),
    ),
};

export function redactHeader(name: string, value: string): string {
  const urls = URL_HEADERS[name.toLowerCase()];
  if (urls) return urls(value);
  // Any other header's URL (`X-Webhook-Url: https://…?token=…`) keeps all but its secrets.
  if (!isSecretHeader(name)) return redactUrlsInText(value);
  const scheme = /^(Bearer|Basic|Token)\s+/i.exec(value)?.[0];
  return scheme ? `${scheme}${MASK}` : MASK;
}

function isErrorCode(
  name: string,
  parentKey: string | undefined,
  hasSibling: (key: string) => boolean,
): boolean {
  if (name.toLowerCase() !== 'code') return false;
  if (parentKey !== undefined && /^(error|errors|details)$/i.test(parentKey)) return true;
  return ERROR_SIBLINGS.some(hasSibling);
}

/** Secret-named members that hold no secret as a whole: walked into, their secret fields masked. */
const WALKED_CONTAINERS = new Set(['credential']);

/**
 * Whether a member's value is masked, whole: its name holds a secret, unless it is an error's
 * code or a container walked into instead (WALKED_CONTAINERS). The one rule of redactValue and
 * the --debug trace (redactTracedBody).
 */
function masksMember(
  key: string,
  container: boolean,
  parentKey: string | undefined,
  hasSibling: (key: string) => boolean,
): boolean {
  return (
    isSecretField(key) &&
    !(container && WALKED_CONTAINERS.has(key)) &&
    !isErrorCode(key, parentKey, hasSibling)
  );
}

/** How deep redactValue walks; what is deeper is not shown (it is not walked, so not masked). */
export const MAX_REDACT_DEPTH = 200;

/**
 * Masks secret-named fields at any depth, as the --debug trace does: a scalar, or an object or a
 * list whole (`"passwords": [...]`), but a container the platform names `credential` (/v1/me's
 * kind, expiry and scopes), which is walked into. Past MAX_REDACT_DEPTH nothing is shown: an
 * answer nested thousands deep (any server's error) would overflow the stack (review s11 f).
 */
export function redactValue(value: unknown, parentKey?: string, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_REDACT_DEPTH) return `[nested deeper than ${MAX_REDACT_DEPTH} levels: not shown]`;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, parentKey, depth + 1));
  const record = value as Record<string, unknown>;
  // fromEntries defines each key as its own field: an assignment of `__proto__` would set the
  // copy's prototype instead, and the trace would lose a key the body really has.
  return Object.fromEntries(
    Object.entries(record).map(([key, v]) => {
      const masked =
        v !== null &&
        v !== undefined &&
        masksMember(key, typeof v === 'object', parentKey, (k) => k in record);
      return [key, masked ? MASK : redactValue(v, key, depth + 1)];
    }),
  );
}

/** A string member that is a URL: the --debug trace masks its secrets (redactUrlText). */
const URL_START = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Text that is a form: `name=value` pairs joined by `&`, every name percent-encoded (`a[b]` too). */
const FORM_TEXT = /^[A-Za-z0-9._~%+*[\]-]+(=[^&]*)?(&[A-Za-z0-9._~%+*[\]-]+(=[^&]*)?)*$/;

/**
 * A body for the --debug trace, sent or received, as it went over the wire but masked: JSON
 * field by field in its own text (every key, number and escape as it was: a trace that
 * re-encoded it would show a body other than the one sent, without a key given twice, 1.10 as
 * 1.1), forms parameter by parameter, and any other body — a JSON file with a typo, an answer
 * with bytes after its JSON, text, HTML — not at all, only its size. Where a value ends in text
 * that does not parse cannot be known (an unclosed quote, an escaped one, `password: x` in
 * YAML, a secret under an innocent name), so a pattern could mask part of a secret and show the
 * rest; the trace says it is not JSON and where the parser stopped (its message is not quoted:
 * it may hold a piece of the text). A leading byte-order mark is not part of the JSON.
 */
export function redactTracedBody(body: string | Buffer, contentType: string | undefined): string {
  const text = body.toString();
  if (text === '') return text;
  // A form by its Content-Type only when its text is one: JSON labelled as a form (an -H
  // Content-Type, a server's mislabelled answer) parsed as a form is one parameter named by the
  // whole text, which no secret name would match (review s11, leaks 2).
  if (contentType?.includes('application/x-www-form-urlencoded') && FORM_TEXT.test(text)) {
    return redactParams(new URLSearchParams(text)).toString();
  }
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const json = text.slice(bom.length);
  try {
    JSON.parse(json);
  } catch (error) {
    const at = /at position (\d+)/.exec((error as Error).message)?.[1];
    const where = at === undefined ? '' : ` (the parser stopped at character ${at})`;
    return `[${Buffer.byteLength(body)} bytes not shown: not JSON${where}, so a secret in it could not be masked]`;
  }
  const masks: Array<[number, number, string]> = [];
  // A secret-named member is masked whole, an object or a list too (`"credentials": {…}`); a
  // URL keeps all but its secrets (`?token=…`, a password), as an export's warning shows it.
  eachJsonObject(
    json,
    (members, keys, parentKey) => {
      for (const { key, start, end } of members) {
        const container = json[start] === '{' || json[start] === '[';
        if (masksMember(key, container, parentKey, (k) => keys.has(k))) {
          masks.push([start, end, JSON.stringify(MASK)]);
        }
      }
    },
    { containers: true },
  );
  // A URL in any string — a member's value, an item of a list (`redirect_uris`), inside a sentence
  // (a server's error echoing it) — keeps all but its secrets (s18 mask18 #4).
  for (const token of json.matchAll(/"(?:[^"\\]|\\.)*"/g)) {
    const raw = token[0];
    if (!/:(\/|\\\/){2}/.test(raw)) continue;
    const text = JSON.parse(raw) as string;
    const shown = URL_START.test(text) ? redactUrlText(text) : redactUrlsInText(text);
    if (shown !== text) masks.push([token.index, token.index + raw.length, JSON.stringify(shown)]);
  }
  masks.sort((a, b) => a[0] - b[0]);
  const parts = [bom];
  let from = 0;
  for (const [start, end, shown] of masks) {
    if (start < from) continue; // inside a member already masked whole
    parts.push(json.slice(from, start), shown);
    from = end;
  }
  parts.push(json.slice(from));
  return parts.join('');
}

/**
 * Whether a text holds a credential, for refusing one where it must not be written (an access
 * file, an export). Stricter than masking about what follows `Bearer`/`Basic`: masking hides any
 * long word there (a debug trace may show too little, never too much), but refusing "Basic
 * reconciliation feed" would turn an ordinary description away. A token here has what a
 * generated one has and an English word has not: a digit, a `+`, `/` or `=`, or a capital after a
 * small letter (base64 of `user:pass` is `dXNlcjpwYXNz`).
 */
export function holdsCredential(text: string): boolean {
  const shaped = SHAPES.slice(0, -1).some(([shape]) => new RegExp(shape.source).test(text));
  return shaped || SCHEME_TOKEN.test(text);
}

/**
 * What credential a text holds, in words for an error ("that is the API key itself, not its
 * id"); undefined when it holds none (holdsCredential).
 */
export function credentialKind(text: string): string | undefined {
  if (!holdsCredential(text)) return undefined;
  if (/svc_(?:sk|pk)_/.test(text)) return 'the API key itself';
  if (/svc_cs_/.test(text)) return 'a client secret';
  if (/svc_rt_/.test(text)) return 'a refresh token';
  if (/whsec_/.test(text)) return 'a webhook signing secret';
  return 'an access token';
}

/** `Bearer`/`Basic` (any case, as schemes are) and a token with a digit, `+/=` or an inner capital. */
const SCHEME_TOKEN =
  /\b(?:[Bb][Ee][Aa][Rr][Ee][Rr]|[Bb][Aa][Ss][Ii][Cc])\s+(?=[A-Za-z0-9\-._~+/]*(?:[0-9+/=]|[a-z][A-Z]))[A-Za-z0-9\-._~+/]{12,}=*/;

/** Registered secrets shorter than this are not scrubbed (they would mask ordinary words). */
const MIN_SECRET_LENGTH = 8;

/**
 * A secret as it may come back from a server that quotes what it received: as is, form-encoded
 * (the body of a token request), percent-encoded (a query), inside a JSON string (escaped `"`
 * and `\`, maybe `\/`, maybe non-ASCII as `\uXXXX`), with upper- or lower-case hex. A secret of
 * letters and digits has one spelling; one with `+ / = & %` has several.
 */
export function secretSpellings(secret: string): Set<string> {
  const form = new URLSearchParams({ s: secret }).toString().slice(2);
  const percent = encodeURIComponent(secret);
  const json = JSON.stringify(secret).slice(1, -1);
  // Each UTF-16 unit on its own (no `u` flag): a character past U+FFFF as its two surrogates' escapes.
  const jsonAscii = json.replace(/[\u007f-\uffff]/g, unicodeEscape);
  const lowerHex = (text: string) => text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
  return new Set([
    secret,
    form,
    lowerHex(form),
    percent,
    lowerHex(percent),
    json,
    json.replaceAll('/', '\\/'),
    jsonAscii,
    jsonAscii.replace(/\\u[0-9a-f]{4}/g, (hex) => `\\u${hex.slice(2).toUpperCase()}`),
  ]);
}

/**
 * Replaces every occurrence of each secret, in each of its spellings (secretSpellings).
 * Occurrences are found in the original text (overlaps included) and replaced together, so a
 * replacement can never complete another secret.
 */
export function scrubSecrets(text: string, secrets: Iterable<string>): string {
  const spans: Array<[number, number]> = [];
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    for (const spelling of secretSpellings(secret)) {
      for (let at = text.indexOf(spelling); at !== -1; at = text.indexOf(spelling, at + 1)) {
        spans.push([at, at + spelling.length]);
      }
    }
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  let end = -1;
  for (const [start, stop] of spans) {
    if (start > end) {
      if (end >= 0) out += MASK;
      out += text.slice(from, start);
    }
    end = Math.max(end, stop);
    from = end;
  }
  return `${out}${MASK}${text.slice(from)}`;
}

/** The one text redactor: registered secrets by value, then credential shapes. */
export function redactText(text: string, secrets: Iterable<string> = []): string {
  let out = scrubSecrets(text, secrets);
  for (const [shape, replacement] of SHAPES) out = out.replace(shape, replacement);
  return out;
}

/** Applies redactText to every string of a JSON-like value (and redactValue's masking by name). */
export function redactDeep(value: unknown, secrets: Iterable<string> = []): unknown {
  const known = [...secrets];
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactText(v, known);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, walk(inner)]));
    }
    return v;
  };
  return walk(redactValue(value));
}

/**
 * Secret-named fields that are meant to be shown to the user: masked in traces by name, but not
 * learnt as secret values, or svc could not print them. An RFC 8628 user code is typed by the
 * user on another device, so svc must show it (the device code, which polls, stays secret).
 */
const SHOWN_TO_USER = new Set(['user_code']);

/**
 * Every secret this process knows: credentials it sends, secrets it read from files or stdin,
 * and secret-named values it received. Traces, errors and messages are scrubbed of them all.
 */
export class SecretRegistry {
  readonly #values = new Set<string>();

  add(...values: Array<string | null | undefined>): void {
    for (const value of values) {
      if (typeof value === 'string' && value.length >= MIN_SECRET_LENGTH) this.#values.add(value);
    }
  }

  /**
   * Registers the string values of secret-named fields of a received document. Walked with a
   * stack of its own, not by recursion: an answer nested thousands deep (any server's) would
   * overflow the call stack (review s11, leaks: `svc api` crashed on 5,000 levels).
   */
  learn(document: unknown, parentKey?: string): void {
    const pending: Array<[unknown, string | undefined]> = [[document, parentKey]];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const [node, parent] = next;
      if (Array.isArray(node)) {
        for (const item of node) pending.push([item, parent]);
        continue;
      }
      if (!node || typeof node !== 'object') continue;
      const record = node as Record<string, unknown>;
      for (const [key, value] of Object.entries(record)) {
        if (typeof value !== 'string') pending.push([value, key]);
        else if (
          isSecretField(key) &&
          !SHOWN_TO_USER.has(key) &&
          !isErrorCode(key, parent, (k) => k in record)
        )
          this.add(value);
      }
    }
  }

  /**
   * Registers what a request sends under a secret's name — fields of its JSON or form body,
   * headers named like credentials (`svc api -H 'X-Auth-Token: …'`) — so an answer that echoes
   * them back is masked too.
   */
  learnRequest(body: unknown, headers: Record<string, string> = {}): void {
    if (body && typeof body === 'object') this.learn(body);
    for (const [name, value] of Object.entries(headers)) {
      if (isSecretHeader(name)) this.add(value, /^\S+\s+(\S.*)$/.exec(value)?.[1]);
    }
  }

  values(): string[] {
    return [...this.#values];
  }

  redact(text: string): string {
    return redactText(text, this.#values);
  }
}
