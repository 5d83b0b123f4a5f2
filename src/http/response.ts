import { isUtf8 } from 'node:buffer';
import { keepNumbersAsTheyCame } from '../api/numbers-as-they-came.js';
import { redactUrlReference } from '../api/secret-names.js';
import { SvcError, type SvcErrorOptions } from '../errors.js';
import type { Headers } from './client.js';
import { header } from './headers.js';
import { isSafeMethod } from './options.js';

/**
 * Answers are checked before they are believed, once, here: a redirect is an error (never
 * followed, so the credential never goes elsewhere), a 2xx that should carry a document must
 * carry a JSON object or array, and no answer is read past a size cap.
 */

/** The default cap on one answer's size; SVC_MAX_RESPONSE_BYTES changes it. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * What a 2xx answer must carry: `json` (the default) a JSON object or array; `optional` JSON or
 * nothing at all; `raw` anything; `text` anything, whose caller prints the text as it came and
 * never the parsed value's numbers (`svc api`), so they are not noted (keepNumbersAsTheyCame:
 * most of the cost of a large answer); `judged` a JSON object or array, but a change's answer
 * that is not one (text, a web page, nothing) is returned as it came for the caller to judge
 * (Transport: a 2xx to a change is an unknown outcome, never its failure). A DELETE's is always
 * judged so. A 204 or 205 carries nothing whatever is expected.
 */
export type ExpectedBody = 'json' | 'optional' | 'raw' | 'text' | 'judged';

/** An answer svc cannot believe: a redirect, or a body that is not what the operation returns. Exit 1. */
export class BadResponseError extends SvcError {
  constructor(message: string, options: SvcErrorOptions = {}) {
    super('failure', message, { code: 'bad_response', ...options });
  }
}

/** An answer larger than the cap; svc stopped reading it and does not ask again. Exit 1. */
export class ResponseTooLargeError extends SvcError {
  constructor(message: string, options: SvcErrorOptions = {}) {
    super('failure', message, { code: 'response_too_large', ...options });
  }
}

const NOT_THE_API = 'is the base URL the API, not a web page or a proxy?';

/** `64 MiB`, `1.5 KiB`, `312 bytes`. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  // Down, never up: 1048575 bytes is not "1024 KiB" (attack27b F8).
  return unit === 0 ? `${bytes} bytes` : `${Math.floor(value * 10) / 10} ${units[unit]}`;
}

/** A limit, exactly: `2 KiB` only when it is 2048 bytes, else `2,047 bytes` (attack27b F8). */
export function exactBytes(bytes: number): string {
  const units: Array<[string, number]> = [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ];
  for (const [unit, size] of units) if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  return `${bytes.toLocaleString('en')} bytes`;
}

export function tooLarge(method: string, url: URL, limit: number): ResponseTooLargeError {
  return new ResponseTooLargeError(
    `the answer to ${method} ${url.pathname} is larger than ${exactBytes(limit)}; svc stopped reading it`,
    {
      hint: 'raise the limit with SVC_MAX_RESPONSE_BYTES (in bytes) if this answer is expected to be that large',
    },
  );
}

/**
 * Reads a body to the end, or throws ResponseTooLargeError as soon as it passes `limit` bytes.
 * A body that is not UTF-8 is also kept as its bytes (`progress.notUtf8`): its text has U+FFFD
 * in place of what it held, and `svc api` writes the bytes as they came.
 */
export async function readCapped(
  body: AsyncIterable<Buffer | Uint8Array>,
  limit: number,
  onTooLarge: () => Error,
  progress: { bytes: number; notUtf8?: Buffer },
): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) {
    progress.bytes += chunk.length;
    if (progress.bytes > limit) throw onTooLarge();
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  }
  const bytes = Buffer.concat(chunks, progress.bytes);
  if (!isUtf8(bytes)) progress.notUtf8 = bytes;
  return bytes.toString('utf8');
}

/** 3xx: never followed. The error names the status and where the server wanted svc to go. */
/**
 * What a same-origin redirect says of the base URL (review16 R10): when the redirected path is the
 * request's API path under another prefix (`/api/v1/tenants` for `/v1/tenants`), that prefix is
 * the base path to use, named as a whole base URL, unless masking would hide part of it; otherwise
 * the rule in general — the base URL takes the API's prefix, never the path of one request.
 */
function movedBaseHint(redirected: string, url: URL, baseUrl: string, setting: string): string {
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const apiPath = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : undefined;
  if (apiPath && apiPath !== '/' && redirected.endsWith(apiPath)) {
    const prefix = redirected.slice(0, -apiPath.length);
    // A prefix that had to be masked is no base URL to offer (review16e E5): the general words.
    if (
      prefix !== basePath &&
      !prefix.endsWith('/') &&
      redactUrlReference(prefix || '/') === (prefix || '/')
    ) {
      const shown = prefix || '/';
      return `if the API is under ${shown} on this server, use ${url.origin}${prefix === '' ? '' : shown} as the base URL ${setting}`;
    }
  }
  return `if the API is under another path on this server, put that prefix (not the path of one request) in the base URL ${setting}`;
}

export function redirectError(
  method: string,
  url: URL,
  status: number,
  headers: Headers,
  baseUrl: string,
  /** `-p NAME ` of a profile named by -p or SVC_PROFILE (profileFlag), which the hint's command repeats. */
  profileFlag = '',
): BadResponseError | undefined {
  if (status < 300 || status >= 400) return undefined;
  const location = header(headers, 'location');
  let target: URL | undefined;
  try {
    target = location ? new URL(location, url) : undefined;
  } catch {
    target = undefined;
  }
  // The same origin is the base URL's already: what differs is the path (a prefix, a trailing
  // slash), named without its query and its path parameters (`;jsessionid=…`: a servlet's session,
  // review15 R15-3), which may carry what is not the user's to see and are not where an API lives,
  // and masked as --debug masks a URL (a credential in the path itself).
  const same = target !== undefined && target.origin === url.origin;
  const bare = target?.pathname.replace(/;[^/]*/g, '');
  const path = bare === undefined ? undefined : redactUrlReference(bare);
  const where = !target
    ? 'a redirect without a usable Location'
    : same
      ? `a redirect to ${path} on the same server`
      : `a redirect to ${target.host}`;
  const setting = `(--base-url, SVC_BASE_URL or \`svc ${profileFlag}config set base_url\`)`;
  const hint = !target
    ? 'check the base URL'
    : !same
      ? `if ${target.origin} is the API, use it as the base URL ${setting}`
      : path === url.pathname
        ? "the server sends this path back to itself: report the redirect to the server's operator"
        : `${movedBaseHint(bare!, url, baseUrl, setting)}; otherwise report the redirect to the server's operator`;
  return new BadResponseError(
    `the server answered ${status} (${where}) to ${method} ${url.pathname}; svc never follows redirects, so nothing was sent there`,
    { hint },
  );
}

function mediaType(headers: Headers): string | undefined {
  const type = header(headers, 'content-type');
  const bare = type?.split(';')[0]?.trim().toLowerCase();
  return bare === '' ? undefined : bare;
}

const isJsonType = (type: string) =>
  type === 'application/json' || type.endsWith('+json') || type.endsWith('/json');

function describeJson(value: unknown): string {
  if (value === null) return 'JSON null';
  if (Array.isArray(value)) return 'a JSON array';
  return `a JSON ${typeof value}`;
}

/**
 * The body of a 2xx answer as the caller expects it, or a BadResponseError naming what came
 * back instead. `raw` answers keep the lenient reading (JSON when it parses, else the text).
 */
export function checkedBody<T>(
  method: string,
  url: URL,
  status: number,
  headers: Headers,
  text: string,
  expect: ExpectedBody,
): T {
  if (status === 204 || status === 205) return undefined as T;
  if (expect === 'raw' || expect === 'text') return lenientJson<T>(text, expect === 'raw');
  // A change's 2xx (a DELETE's; a POST's or PATCH's the caller judges) said the change was
  // accepted, whatever its body: what it is (none, text/plain "OK", a web page, JSON that is no
  // object) is Transport's to judge (delete-answer.ts; review20d), an unknown outcome or done,
  // never the refusal a request that failed gets (session 20), after which the user makes it twice.
  const judged = method === 'DELETE' || (expect === 'judged' && !isSafeMethod(method));
  // A DELETE's 2xx with no bytes is one without a body, as a 204 is (review19d F3).
  if (text === '' || (judged && text.trim() === '')) {
    if (expect === 'optional' || judged) return undefined as T;
    throw notADocument(method, url, status, 'an empty body');
  }
  const type = mediaType(headers);
  if (type !== undefined && !isJsonType(type)) {
    if (judged) return text as T;
    throw notADocument(method, url, status, `${type}, not JSON`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (judged) return text as T;
    throw notADocument(
      method,
      url,
      status,
      type === undefined
        ? 'a body that is not JSON'
        : `JSON that is cut off or malformed (${formatBytes(Buffer.byteLength(text))})`,
    );
  }
  if (value === null || typeof value !== 'object') {
    if (judged) return text as T;
    throw notADocument(method, url, status, `${describeJson(value)}, not a document`);
  }
  keepNumbersAsTheyCame(text, value);
  return value as T;
}

export function notADocument(method: string, url: URL, status: number, what: string): BadResponseError {
  const safe = isSafeMethod(method);
  return new BadResponseError(
    `the server answered ${status} with ${what}, to ${method} ${url.pathname}${
      safe ? '' : '; nothing was written, and svc cannot tell whether the change was made'
    }`,
    { hint: safe ? NOT_THE_API : `check before trying again (${NOT_THE_API})` },
  );
}

export function lenientJson<T>(text: string, noteNumbers = true): T {
  if (text === '') return undefined as T;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text as T;
  }
  if (noteNumbers) keepNumbersAsTheyCame(text, value);
  return value as T;
}
