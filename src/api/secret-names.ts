/**
 * Over 300 lines on purpose: this is the one rule of what svc masks in a name and in a URL shown as
 * a label, and its parts (names, shapes, the path rules, the fail-safe reading) call one another.
 *
 * The names of fields and query parameters that hold a secret, and a URL with their values
 * masked: the rule svc's --debug trace masks by (src/http/redact.ts) and the sandbox's audit
 * trail applies to a webhook's URL, so what either shows of a URL hides the same things. A URL
 * carries a secret exactly when redactUrlText masks something in it: `svc export` and `svc plan
 * --out` write a file holding one 0600 and say so. That covers a credential in the path too
 * (Slack, Discord, Teams and Zapier webhooks, a random-looking key after `/hooks/` (Mattermost,
 * Rocket.Chat), a Telegram bot token, a random last segment: redactPathCredential), and a query
 * value shaped as a random key under any name but a paging cursor's (randomValue, the same shape).
 *
 * A name holds a secret when a secret word appears anywhere in it (`client_secret`, `api_key_v2`,
 * `password1`, `sessionToken2`, `X-Api-Key-V2`), or when it has a short secret word standing
 * alone (read as words, split on `_`, `-`, `.`, spaces and camelCase: `sig`, `sas`, `pwd`,
 * `auth`, `otp`, `totp`, `pin`), or is a one-time code's or a session id's (CODE_NAME, SESSION_NAME,
 * the same in a URL, a header and a JSON field). Masking a harmless `tokenizer` or `secretary` too is the price: a rule that
 * read only whole words let `api_key_v2` and `password1` through (review s11, leaks 1).
 */

export const MASK = '[redacted]';

/**
 * Credential shapes, masked wherever they stand whatever their name (--debug, and a webhook URL in
 * the audit trail); the part kept (a scheme or a kind prefix) says what was masked.
 */
export const CREDENTIAL_SHAPES: Array<[RegExp, string]> = [
  // A JWS/JWT: base64url of a JSON header ("{" → "eyJ"), payload and signature.
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, MASK],
  [/\b(svc_(?:sk|pk|cs|rt|at)_)[A-Za-z0-9_-]{16,}/g, `$1${MASK}`],
  [/\b(whsec_)[A-Za-z0-9_+/=-]{16,}/g, `$1${MASK}`],
  // RFC 6750 b64token after the scheme (case-insensitive, as schemes are). Kept last:
  // holdsCredential uses the shapes above with a stricter one of its own instead.
  [/\b(Bearer|Basic)(\s+)(?!\[redacted\])[A-Za-z0-9\-._~+/]{12,}=*/gi, `$1$2${MASK}`],
];

/** Secret words, wherever they stand in a name (`api_key_v2`, `secretkey`, `password1`). */
const SECRET_ANYWHERE =
  /(secret|token|password|passwd|passphrase|authorization|(api|access|auth|private|signing)[_-]?key|verifier|assertion|credential|signature|hmac)/i;
/** Words that say so only standing alone: too short to be read inside another word. */
const SECRET_SHORT_WORDS = new Set([
  'pwd',
  'sig',
  'sas',
  'auth',
  'otp',
  'totp',
  'hotp',
  'pin',
  'passcode',
  'tok',
  'bearer',
]);
/**
 * `key` as the last word (`private_key`, `apiKey`); `code` alone or as a one-time code's name
 * (device_code, user_code, mfa_code, verification_code, recovery_codes: attack21b F5).
 */
const LAST_WORD_KEY = new Set(['key', 'keys']);
const CODE_NAME =
  /^((device|user|mfa|otp|totp|sms|email|verification|confirmation|security|recovery|backup|one_time|2fa)[_-]?)?code$|^(mfa|recovery|backup)[_-]?codes$/i;
/**
 * A session id under any of its names (`session_id`, `X-Session-Id`, `sessionId`, `X-Session`,
 * `;jsessionid=`, `PHPSESSID`, `sid`): whoever holds it's login (review15 R15-3), in a URL, a
 * header or a JSON field alike (attack21b F5: only a URL's was masked). Read on the name's words.
 */
const SESSION_NAME = /^((.+_)?session(_?id)?|(j|php)?sess(ion)?_?id|sid)$/;
/**
 * Names that contain a secret word but hold something else (times, lifetimes, kinds, paths), and
 * an authorization server's metadata (RFC 8414, RFC 8628, OpenID Connect Discovery): its endpoints
 * (`token_endpoint`), URLs masked by the URL rules where shown, and what it supports
 * (`token_endpoint_auth_methods_supported`). Learnt as secrets, the endpoints turned every request
 * line to them into `* POST [redacted]` (attack25b L2). Those names only (OAUTH_METADATA_NAME),
 * not every name ending so: `client_secret_endpoint`, `api_key_endpoint` and `password_supported`
 * are secret by their words (review25c L2).
 */
const NOT_SECRET_FIELD =
  /^(idempotency_key|token_type|token_type_hint|expires_in|code_challenge_method|code_challenge)$|_(at|seconds|count|file|type)$/i;
/** The metadata names (on the name's words joined by `_`) that hold a secret word and no secret. */
const OAUTH_METADATA_NAME =
  /^((authorization|token|revocation|introspection|device_authorization|registration|userinfo|end_session|pushed_authorization_request|backchannel_authentication)_endpoint(_auth_(methods|signing_alg_values)_supported)?|(id_token|userinfo|request_object|authorization)_(signing|encryption)_(alg|enc)_values_supported|backchannel_authentication_request_signing_alg_values_supported|authorization_response_iss_parameter_supported|require_pushed_authorization_requests)$/;
// The names masked in a URL's query or a form only: there `state` travels beside the
// authorization code, while a JSON field or header named `state` is a record's (a webhook's, a
// reconciliation's) and masking it would hide what a trace is read for; `k`, `access`, `sign`,
// `hash` and `ticket`, a whole query name, are a key, a signature or a login ticket (attack25b M5),
// while as a JSON field's word (`access_level`, `ticket_id`) they are not. Every other name is one
// list for URLs, forms, headers and JSON fields: isSecretField.
const SECRET_PARAM = /^(state|k|access|sign|hash|ticket)$/i;
/**
 * A query parameter that is a position in a list (a paging cursor, svc's own `?cursor=`): opaque
 * and often random-looking, but whoever holds it can read only what the request's credential
 * can, so its value is not judged by its shape (randomValue). Read on the name's words. A name
 * with a secret word (`page_token`, `pageToken`, `continuation_token`) is masked by its name first.
 */
const PAGING_NAME =
  /^((next|prev|previous|page|start|end|before|after)_)?cursor$|^(page|after|before|starting_after|ending_before|start_after|end_before|continuation|marker|next_marker|offset|next|prev|previous|page_after|page_before|next_page)$/;

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
  const joined = words.join('_');
  if (words.length === 0 || NOT_SECRET_FIELD.test(joined) || OAUTH_METADATA_NAME.test(joined)) return false;
  if (CODE_NAME.test(joined) || SESSION_NAME.test(joined)) return true;
  if (LAST_WORD_KEY.has(words[words.length - 1] as string)) return true;
  return SECRET_ANYWHERE.test(name) || words.some((word) => SECRET_SHORT_WORDS.has(word));
}

/**
 * A query or form parameter that holds a secret: by its name, or, whatever its name (`?k=`,
 * `?accesskey=`, a name no list knows), by a value shaped like a random credential (randomValue),
 * unless the name says it is a paging cursor (PAGING_NAME). `value` as it stands in the URL
 * (percent-encoded) or decoded alike.
 */
function isSecretParam(name: string, value: string): boolean {
  if (isSecretField(name) || SECRET_PARAM.test(name)) return true;
  return !PAGING_NAME.test(nameWords(name).join('_')) && randomValue(value);
}

/**
 * A value shaped like a random credential (attack25b M5): the rule of a path's last segment
 * (RANDOM_SEGMENT: 20 or more letters, digits, `_` and `-` mixing upper case, lower case and
 * digits, or 32 or more hex digits), on the value as the server reads it (percent-decoded), a
 * base64 value's `+` and `/` read as base64url's `-` and `_`, its `=` padding dropped. Not this
 * shape, so kept (review25c M1: they were masked, and plan rows of two such URLs read alike):
 * - words joined by `_`, `-`, `+` (a space) or `.` (`Production_EU_West_2`, `Q4-Revenue-Report-2026`,
 *   `Meeting+Room+42+Today`): every part a word, a number, or letters then digits (WORDY_PART);
 * - a lowercase prefix and `_` before an id's shape (ID_REST: `rec_01HQ3K…`, a ULID; digits; a
 *   UUID): `sk_live_…`, `ghp_…` or `gqp_ZHiy…` with any other rest is judged whole.
 * Ids, times, words, slugs and numbers are not this shape either. Hex of 32 or more digits stays
 * masked, even of an id's or a digest's length (a UUID without dashes, a commit SHA): a 128- or
 * 256-bit key is written so as often, and a masked id costs only its reading, a shown key the key.
 */
function randomValue(value: string): boolean {
  const text = percentDecoded(value).replace(/=+$/, '');
  if (wordy(text)) return false;
  // A prefix is an id's only before an id's shape (review25e H1: kept before any rest not random by
  // itself, it showed about 1 in 130 random 22-character keys, `gqp_ZHiyGuvJcjJ_9ucKrg`); read on
  // the value as written, so base64's `/` is no prefix's `_`.
  const prefixed = /^[a-z][a-z0-9]{0,9}_(.+)$/.exec(text);
  if (prefixed && ID_REST.test(prefixed[1] as string)) return false;
  return RANDOM_SEGMENT.test(text.replace(/\+/g, '-').replace(/\//g, '_'));
}

/** What follows an id's prefix: a ULID (Crockford base32, 26), digits, or a UUID. */
const ID_REST = /^(?:[0-9A-HJKMNP-TV-Z]{26}|\d+|[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12})$/;

/**
 * A part of words joined by `_`, `-`, `+`, `.` or a space: capitals then lower case then digits
 * (`EU`, `West`, `Q4`, `Production`, `2026`), or digits then at most two letters (`3rd`). A random
 * key's parts mix their cases and digits in any order, so a long one is not this shape.
 */
const WORDY_PART = /^(?:[A-Z]*[a-z]*\d*|\d+[a-z]{0,2})$/;

/** Two or more parts joined by `_`, `-`, `+`, `.` or a space, each a word (WORDY_PART). */
function wordy(text: string): boolean {
  const parts = text.split(/[_\-+. ]/);
  return parts.length >= 2 && parts.every((part) => part !== '' && WORDY_PART.test(part));
}

export function redactParams(params: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const [key, value] of params) out.append(key, isSecretParam(key, value) ? MASK : value);
  return out;
}

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/**
 * A query string's secret values masked in its own text: every other byte kept as it is.
 * `failSafe`: every value, and a pair with no `=` whole (it may be a key: `?Zx81…`).
 */
function redactQueryText(query: string, failSafe = false): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (failSafe && pair !== '') return equals < 0 ? MASK : `${pair.slice(0, equals)}=${MASK}`;
      // A bare value (`?Zx81…`): a key given without a name when it is shaped as one.
      if (equals < 0) return randomValue(pair) ? MASK : pair;
      const name = pair.slice(0, equals);
      return isSecretParam(decodedName(name), pair.slice(equals + 1)) ? `${name}=${MASK}` : pair;
    })
    .join('&');
}

/** A path's parameters (`/a;jsessionid=…/b`) with their secret values masked, as the query's are. */
function redactPathParams(path: string): string {
  return path.replace(/;([^;/=]*)=([^;/]*)/g, (pair, name: string, value: string) =>
    isSecretParam(decodedName(name), value) ? `;${name}=${MASK}` : pair,
  );
}

/**
 * A URL given as text (a webhook's) with its secrets masked in place: the user name and
 * password, a credential in the path (redactPathCredential), every secret-named query or path
 * parameter's value and every one shaped as a random key (isSecretParam), and a fragment that carries parameters
 * (`#access_token=…`) whole; every other byte is kept as stored. Text that does not parse as a
 * URL (a port out of range, a space in its host), or that the parser reads otherwise than its
 * bytes (a tab or line break it drops: `?to\nken=`), is masked fail-safe, by text: every query
 * value, the user name and password, and the path rules (s18 mask18 #1: its query was kept whole).
 */
export function redactUrlText(text: string): string {
  return redactUrlReference(text, !URL.canParse(text) || /[\t\n\r]/.test(text));
}

/** `scheme://…` in a sentence, up to a space or quote; punctuation ending the sentence is not its. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/**
 * Text with every URL in it masked as redactUrlText masks one: a server's error that echoes a
 * webhook's URL (`url https://…?token=… is not reachable`), in the error line and the --debug
 * trace alike (s18 mask18 #4).
 */
export function redactUrlsInText(text: string): string {
  return text.replace(URL_IN_TEXT, (found) => {
    const url = found.replace(/[.,;:!?)]+$/, '');
    return `${redactUrlText(url)}${found.slice(url.length)}`;
  });
}

/**
 * A URL reference, absolute or relative (`/v1/me?token=…`, `?code=…`, as a `Location` header
 * may carry it), masked as redactUrlText masks a URL: user name and password, a path credential,
 * secret-named query and path parameter values, a fragment with parameters, credential shapes.
 * Every other byte is kept. `failSafe`: every query value masked, whatever its name, and text
 * before the first slash read as a host when there is no `scheme://` (`hooks.slack.com/…`).
 */
export function redactUrlReference(
  text: string,
  // A reference that does not parse even against a base (`https://h:99999/…` in a Location).
  failSafe = !URL.canParse(text, 'http://base.invalid/') || /[\t\n\r]/.test(text),
): string {
  const hashAt = text.indexOf('#');
  const beforeHash = hashAt < 0 ? text : text.slice(0, hashAt);
  const fragment = hashAt < 0 ? '' : text.slice(hashAt + 1);
  const queryAt = beforeHash.indexOf('?');
  const head = queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt < 0 ? undefined : beforeHash.slice(queryAt + 1);
  const path = redactEscapedCredential(head, failSafe);
  let out = redactPathParams(redactUserInfo(redactPathCredential(path, failSafe), failSafe));
  if (query !== undefined) out += `?${redactQueryText(query, failSafe)}`;
  if (hashAt >= 0) out += `#${fragment.includes('=') ? MASK : fragment}`;
  // A credential under a harmless name (`?jwt=eyJ…`, `?k=whsec_…`) by its shape (leaks11 5).
  for (const [shape, replacement] of CREDENTIAL_SHAPES) out = out.replace(shape, replacement);
  return out;
}

/**
 * A URL's text before its query cut into `scheme://` (or nothing), authority and path. Without a
 * `scheme://` the authority is empty (a relative reference), or fail-safe what follows a scheme
 * and slashes if any (`https:/h:99999/x`, `//h/x`, `h.example/x`) up to the next slash.
 */
function splitHead(head: string, failSafe: boolean): { scheme: string; authority: string; path: string } {
  const match = /^([a-z][a-z0-9+.-]*:[/\\]{2})([^/\\]*)(.*)$/is.exec(head);
  if (match) return { scheme: match[1] as string, authority: match[2] as string, path: match[3] as string };
  const bare = failSafe ? /^((?:[a-z][a-z0-9+.-]*:(?=[/\\]))?[/\\]*)([^/\\]*)(.*)$/is.exec(head) : null;
  return bare
    ? { scheme: bare[1] as string, authority: bare[2] as string, path: bare[3] as string }
    : { scheme: '', authority: '', path: head };
}

/** The host of an authority as the URL parser reads it (`HOOKS.SLACK%2Ecom.:443` → hooks.slack.com). */
function hostOf(authority: string): string {
  const text = authority.replace(/^.*@/s, '').replace(/[\t\n\r]/g, '');
  let host: string;
  try {
    host = new URL(`http://${text}`).hostname;
  } catch {
    host = text.replace(/:\d*$/, '');
  }
  return host.replace(/\.$/, '').toLowerCase();
}

/**
 * A URL's percent-encoded characters as they are (`/%C3%BCn%C3%AF` → `/ünï`). A run of escapes that
 * is no UTF-8 stays as it is.
 */
export function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * A path credential written with escapes (`/hooks/…j%68`, `whsec%5F…`, a JWT's dots as `%2E`) is
 * one to the server, which decodes them, and to a secret file's name, decoded to be read (s18
 * mask18 #3): the path rules and credential shapes read the path decoded too, and every segment
 * holding what they mask there is masked whole here.
 */
function redactEscapedCredential(head: string, failSafe: boolean): string {
  if (!head.includes('%')) return head;
  const { scheme, authority, path } = splitHead(head, failSafe);
  const parts = path.split(/([/\\])/); // segments at even places, separators between
  const decoded = parts.map((part, i) => (i % 2 === 0 ? percentDecoded(part) : part));
  const whole = decoded.join('');
  if (whole === path) return head;
  const prefix = `${scheme}${authority}`;
  let masked = redactPathCredential(`${prefix}${whole}`, failSafe).slice(prefix.length);
  for (const [shape, replacement] of CREDENTIAL_SHAPES) masked = masked.replace(shape, replacement);
  if (masked === whole) return head;
  // The span that differs, from the first difference to the last.
  let start = 0;
  while (whole[start] === masked[start]) start++;
  let end = whole.length;
  for (let m = masked.length; end > start && m > start && whole[end - 1] === masked[m - 1]; m--) end--;
  let at = 0;
  const out = parts.map((part, i) => {
    const from = at;
    at += (decoded[i] as string).length;
    return i % 2 === 0 && at > start && from < Math.max(end, start + 1) ? MASK : part;
  });
  return `${prefix}${out.join('')}`;
}

/**
 * Webhook hosts that carry the credential in the URL's path (findings s14 secrets #3): the host,
 * and the path up to the credential with the credential after it. Slack `/services/T…/B…/SECRET`,
 * and any other path of its host (`/workflows/T…/A…/N…/SECRET`, `/triggers/…`) all of it after
 * its first segment, whatever the secret's shape (review17c C1: a secret with no digit was shown);
 * Discord `/api[/v10]/webhooks/ID/TOKEN[/slack]`, Zapier `/hooks/catch/N/ID/`, Microsoft Teams (Office 365 connectors)
 * `…/IncomingWebhook/HEX/GUID[/V2…]`, all of it after IncomingWebhook.
 */
const PATH_CREDENTIAL_HOSTS: Array<[host: RegExp, path: RegExp]> = [
  [/^hooks\.slack(-gov)?\.com$/, /^(\/services\/[^/]+\/[^/]+\/)([^/]+)/i],
  [/^hooks\.slack(-gov)?\.com$/, /^(\/[^/]+\/)(.+)/],
  [/^((ptb|canary)\.)?discord(app)?\.com$/, /^(\/api(?:\/v\d+)?\/webhooks\/[^/]+\/)([^/]+)/i],
  [/^hooks\.zapier\.com$/, /^(\/hooks\/catch\/[^/]+\/)([^/]+)/i],
  [
    /(^|\.)webhook\.office\.com$|^outlook\.office(365)?\.com$/,
    /^(\/webhook(?:b2)?\/[^/]+\/IncomingWebhook\/)(.+)/i,
  ],
];
/**
 * On any host, a last path segment shaped like a random credential: 20 or more letters, digits,
 * `_` and `-` mixing upper case, lower case and digits, or 32 or more hex digits (letters and
 * digits both). Prefixed ids (`wh_0123…`), UUIDs, slugs and words are not this shape.
 */
const RANDOM_SEGMENT =
  /^(?=[^A-Z]*[A-Z])(?=[^a-z]*[a-z])(?=\D*\d)[\w-]{20,}$|^(?=\D*\d)(?=.*[a-f])[\da-f]{32,}$|^(?=\D*\d)(?=.*[A-F])[\dA-F]{32,}$/;

/**
 * On any host, the last path segment after a `hooks` segment when it may be a key: 20 or more
 * letters and digits only (no `-`, `_` or `.` joining words) with at least one digit or mixing
 * upper and lower case, or 26 lowercase letters from Mattermost's alphabet (no `l`, no `v`); and
 * the second of two segments after `hooks` when it is 40 or more letters and digits. That is every
 * incoming-webhook key of Mattermost (`/hooks/<26 of ybndrfg8ejkmcpqxot1uwisza345h769>`, one in
 * about 120 with a single digit or none: review17 F1) and every token of Rocket.Chat
 * (`/hooks/ID/<48 of Meteor's 55 letters and digits>`, one in about 1,900 with no digit: review17c
 * C1) — review16 R5. Words, versions and names (`/hooks/v2`, `/hooks/github`,
 * `/hooks/reconciliation-exceptions`, `/hooks/reconciliationexceptions`,
 * `/git/hooks/post-receive-2`, `/hooks/release2024`) are not this shape (review16e E4: masking
 * them made svc export warn of a secret that is not there and made two webhooks read alike); a
 * word that is (a 20-letter name with a digit, a 20-letter CamelCase name) is masked: a shown key
 * is worse than a hidden word. Zapier's short catch-hook id is known by its host instead.
 */
const HOOKS_SEGMENT = /(?:^|\/)hooks\/(?:[^/]+\/)*?([\w-]+)\/*$/i;
/** `/hooks/ID/TOKEN`: the token, the second of two segments after `hooks` (hookKey's idBefore). */
const HOOKS_ID_TOKEN = /(?:^|\/)hooks\/[^/]+\/([^/]+)\/*$/i;
export function hookKey(segment: string, idBefore = false): boolean {
  return (
    /^(?=\D*\d)[A-Za-z0-9]{20,}$|^(?=[^A-Z]*[A-Z])(?=[^a-z]*[a-z])[A-Za-z0-9]{20,}$|^[a-km-uw-z]{26}$/.test(
      segment,
    ) ||
    (idBefore && /^[A-Za-z0-9]{40,}$/.test(segment))
  );
}
/**
 * On any host, a credential known by the segments before it, wherever it stands: a Telegram bot
 * token (`/bot<id>:<secret>/sendMessage`: the bot's id kept, its secret masked, review16 R5), an
 * IFTTT Maker key (`/trigger/EVENT/with/key/<key>`: review17c C1, 22 of `[A-Za-z0-9_-]`, often no
 * digit). Not credential shapes: they are no svc credential, and a URL holding one is a webhook's.
 */
const KEYED_SEGMENTS = [/(\/bot\d{5,}:)([A-Za-z0-9_-]{30,})(?=\/|$)/, /(\/with\/key\/)([^/]+)/i];

/** A URL's text before its query (absolute or a relative reference) with a path credential masked. */
function redactPathCredential(head: string, failSafe = false): string {
  const parts = splitHead(head, failSafe);
  const authority = `${parts.scheme}${parts.authority}`;
  const { path } = parts;
  // Positions are kept: a backslash is a slash to an http(s) URL's parser.
  const slashed = path.replace(/\\/g, '/');
  const host = hostOf(parts.authority);
  const masked = (start: number, end: number) =>
    `${authority}${path.slice(0, start)}${MASK}${path.slice(end)}`;
  // The host's own shapes first, then those known on any host: group 1 what comes before, 2 the credential.
  const shapes = [
    ...PATH_CREDENTIAL_HOSTS.filter(([hostShape]) => hostShape.test(host)).map(([, pathShape]) => pathShape),
    ...KEYED_SEGMENTS,
  ];
  for (const shape of shapes) {
    const found = shape.exec(slashed);
    if (!found) continue;
    const start = found.index + (found[1] as string).length;
    return masked(start, start + (found[2] as string).length);
  }
  // The last segment a person reads as last: not a trailing `.` or `..` (`/KEY/..`: the parser
  // drops KEY, the text still holds it), without its `;parameters` (`/KEY;v=1`).
  const trimmed = slashed.replace(/(?:\/+(?:\.|%2e){1,2})*\/*$/i, '');
  const start = trimmed.lastIndexOf('/') + 1;
  const last = trimmed.slice(start).replace(/;.*$/s, '');
  const end = start + last.length;
  const hook = HOOKS_SEGMENT.exec(trimmed.slice(0, end));
  const idBefore = HOOKS_ID_TOKEN.exec(trimmed.slice(0, end))?.[1] === last;
  if (!RANDOM_SEGMENT.test(last) && !(hook && hook[1] === last && hookKey(last, idBefore))) return head;
  return masked(start, end);
}

/** `scheme://user:password@host/path` with the user name and password masked. */
function redactUserInfo(head: string, failSafe = false): string {
  const { scheme, authority, path } = splitHead(head, failSafe);
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
