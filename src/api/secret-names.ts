/**
 * The names of fields and query parameters that hold a secret, and a URL with their values
 * masked: the rule svc's --debug trace masks by (src/http/redact.ts) and the sandbox's audit
 * trail applies to a webhook's URL, so what either shows of a URL hides the same things.
 */

export const MASK = '[redacted]';

const SECRET_FIELD =
  /(secret|token|password|passwd|authorization|api[_-]?key|verifier|assertion|credential|signature|^key$|_key$|^(device_|user_)?code$)/i;
/** Names that contain a secret-looking word but hold something else (times, lifetimes, kinds, paths). */
const NOT_SECRET_FIELD =
  /^(idempotency_key|token_type|expires_in|code_challenge_method|code_challenge)$|_(at|seconds|count|file|type)$/i;
// In form bodies and query strings, `state` travels beside the authorization code.
const SECRET_PARAM = /^(code|state)$/i;

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name) && !NOT_SECRET_FIELD.test(name);
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

/** redactUrl of a URL given as text (a webhook's), which is kept as it is when it is no URL. */
export function redactUrlText(text: string): string {
  if (!URL.canParse(text)) return text;
  return redactUrl(new URL(text));
}
