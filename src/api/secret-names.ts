/**
 * The names of fields and query parameters that hold a secret, and a URL with their values
 * masked: the rule svc's --debug trace masks by (src/http/redact.ts) and the sandbox's audit
 * trail applies to a webhook's URL, so what either shows of a URL hides the same things.
 *
 * A name is read as words (split on `_`, `-`, `.`, spaces and camelCase): `client_secret`,
 * `accessToken`, `X-Amz-Signature`, `sig`, `pwd` hold a secret; `tokenizer`, `secretary`,
 * `keyboard` do not (a secret word must be a whole word, or end a word glued without a
 * separator: `accesstoken`, `clientsecret`).
 */

export const MASK = '[redacted]';

/** Words that say a value is a secret, whole or at the end of a glued word (`accesstoken`). */
const SECRET_WORDS =
  /(secret|token|password|passwd|authorization|apikey|verifier|assertion|credential|signature|hmac)s?$/;
/** Words that say so only standing alone: too short to be read inside another word. */
const SECRET_SHORT_WORDS = new Set(['pwd', 'sig', 'sas', 'auth', 'credentials', 'secrets', 'tokens']);
/** `key` as the last word (`private_key`, `apiKey`); `code` alone or as device_code, user_code. */
const LAST_WORD_KEY = new Set(['key', 'keys']);
const CODE_NAME = /^((device|user)[_-]?)?code$/i;
/** Names that contain a secret word but hold something else (times, lifetimes, kinds, paths). */
const NOT_SECRET_FIELD =
  /^(idempotency_key|token_type|expires_in|code_challenge_method|code_challenge)$|_(at|seconds|count|file|type)$/i;
// In form bodies and query strings, `state` travels beside the authorization code.
const SECRET_PARAM = /^(code|state)$/i;

/** The words of a name: `X-Amz-Signature` → x, amz, signature; `accessToken` → access, token. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter((word) => word !== '');
}

export function isSecretField(name: string): boolean {
  const words = nameWords(name);
  if (words.length === 0 || NOT_SECRET_FIELD.test(words.join('_'))) return false;
  if (CODE_NAME.test(words.join('_'))) return true;
  if (LAST_WORD_KEY.has(words[words.length - 1] as string)) return true;
  return words.some((word) => SECRET_SHORT_WORDS.has(word) || SECRET_WORDS.test(word));
}

function isSecretParam(name: string): boolean {
  return isSecretField(name) || SECRET_PARAM.test(name);
}

export function redactParams(params: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const [key, value] of params) out.append(key, isSecretParam(key) ? MASK : value);
  return out;
}

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** A query string's secret values masked in its own text: every other byte kept as it is. */
function redactQueryText(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      const name = pair.slice(0, equals);
      return isSecretParam(decodedName(name)) ? `${name}=${MASK}` : pair;
    })
    .join('&');
}

/**
 * A URL given as text (a webhook's) with its secrets masked in place: the user name and
 * password, every secret-named query parameter's value, and a fragment that carries parameters
 * (`#access_token=…`) whole; every other byte is kept as stored. Text that is no URL is kept.
 */
export function redactUrlText(text: string): string {
  if (!URL.canParse(text)) return text;
  const hashAt = text.indexOf('#');
  const beforeHash = hashAt < 0 ? text : text.slice(0, hashAt);
  const fragment = hashAt < 0 ? '' : text.slice(hashAt + 1);
  const queryAt = beforeHash.indexOf('?');
  const head = queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt < 0 ? undefined : beforeHash.slice(queryAt + 1);
  let out = redactUserInfo(head);
  if (query !== undefined) out += `?${redactQueryText(query)}`;
  if (hashAt >= 0) out += `#${fragment.includes('=') ? MASK : fragment}`;
  return out;
}

/** `scheme://user:password@host/path` with the user name and password masked. */
function redactUserInfo(head: string): string {
  const match = /^([a-z][a-z0-9+.-]*:[/\\]{2})([^/\\]*)(.*)$/is.exec(head);
  if (!match) return head;
  const [, scheme, authority = '', path] = match;
  const at = authority.lastIndexOf('@');
  if (at < 0) return head;
  const info = authority.slice(0, at);
  const colon = info.indexOf(':');
  const user = colon < 0 ? info : info.slice(0, colon);
  const masked = `${user ? MASK : ''}${colon < 0 ? '' : `:${info.slice(colon + 1) ? MASK : ''}`}`;
  return `${scheme}${masked}${authority.slice(at)}${path}`;
}

export function redactUrl(url: URL): string {
  return redactUrlText(url.href);
}
