/**
 * Masks credentials in anything svc prints about HTTP traffic: header values, JSON or form
 * fields whose names say they hold a secret, query parameters, and — belt and braces — any
 * occurrence of a secret value the caller registered (the bearer token, a client secret).
 */

const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-svc-signature',
]);

const SECRET_FIELD =
  /(secret|token|password|passwd|authorization|api[_-]?key|verifier|assertion|credential|signature)/i;
// An authorization code travels in form bodies and query strings; in JSON, `code` is an error code.
const SECRET_PARAM = /^(code|state)$/i;
const NOT_SECRET_FIELD =
  /^(idempotency_key|token_type|token_lifetime_seconds|refresh_token_lifetime_seconds|expires_in|secret_rotated_at|code_challenge_method)$/i;

export const MASK = '[redacted]';

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name) && !NOT_SECRET_FIELD.test(name);
}

export function redactHeader(name: string, value: string): string {
  if (!SECRET_HEADERS.has(name.toLowerCase())) return value;
  const scheme = /^(Bearer|Basic|Token)\s+/i.exec(value)?.[0];
  return scheme ? `${scheme}${MASK}` : MASK;
}

export function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      out[key] =
        isSecretField(key) && v !== null && v !== undefined && typeof v !== 'object' ? MASK : redactValue(v);
    }
    return out;
  }
  return value;
}

/** Redacts a body given as text: JSON objects field by field, form bodies parameter by parameter. */
export function redactBody(text: string, contentType: string | undefined): string {
  if (text === '') return text;
  if (contentType?.includes('application/x-www-form-urlencoded')) {
    return redactParams(new URLSearchParams(text)).toString();
  }
  try {
    return JSON.stringify(redactValue(JSON.parse(text)));
  } catch {
    return text;
  }
}

export function redactParams(params: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const [key, value] of params)
    out.append(key, isSecretField(key) || SECRET_PARAM.test(key) ? MASK : value);
  return out;
}

export function redactUrl(url: URL): string {
  if (url.search === '' && url.username === '' && url.password === '') return url.toString();
  const copy = new URL(url.toString());
  copy.username = copy.username ? MASK : '';
  copy.password = copy.password ? MASK : '';
  copy.search = redactParams(copy.searchParams).toString();
  return copy.toString();
}

/** Replaces every registered secret value, wherever it occurs in `text`. */
export function scrubSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 8) out = out.split(secret).join(MASK);
  }
  return out;
}
