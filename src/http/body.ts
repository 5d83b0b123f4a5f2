import { controlIn, nonAsciiIn } from '../api/characters.js';
import { bodyText, bodyTextWith } from '../api/json-as-written.js';
import { UsageError } from '../errors.js';
import type { RequestOptions } from './client.js';
import { isSafeMethod } from './options.js';

/**
 * The request body of an operation: a form (the OAuth token endpoint), raw bytes (svc api
 * --input), or JSON — as the user wrote it when svc has the text (json-as-written.ts) — where
 * every POST carries its idempotency key in the body (as the reference says) as well as in the Idempotency-Key header, chosen once for all retries. A
 * DELETE, PATCH or PUT carries its key in the header only (the sandbox's choice where the
 * reference is silent; a server that ignores it leaves svc to say what a retry found).
 */
export function encodeBody(
  options: RequestOptions,
  defaultKey: string | false | undefined,
): {
  body: string | Buffer | undefined;
  contentType: string | undefined;
  idempotencyKey: string | undefined;
} {
  if (options.form) {
    // Forms go to the OAuth endpoints that take them (token, device authorization, revocation),
    // which authenticate the client in the form, never by bearer token; every bearer-token
    // endpoint of the API takes JSON, and refuses a form with 415.
    if (options.auth !== false)
      throw new Error(`a form is only for OAuth endpoints (auth: false), not ${options.path}`);
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(options.form)) if (value !== undefined) params.set(key, value);
    return {
      body: params.toString(),
      contentType: 'application/x-www-form-urlencoded',
      idempotencyKey: undefined,
    };
  }
  if (options.raw) {
    return {
      body: options.raw.data,
      contentType: options.raw.contentType,
      idempotencyKey: options.idempotencyKey || undefined,
    };
  }
  if (defaultKey === false) {
    const body = options.body === undefined ? undefined : bodyText(options.body);
    return {
      body,
      contentType: body === undefined ? undefined : 'application/json',
      idempotencyKey: undefined,
    };
  }
  // A DELETE, PATCH or PUT carries its key in the Idempotency-Key header only.
  const headerOnly = options.method !== 'POST' && !isSafeMethod(options.method);
  if (options.body === undefined) {
    if (headerOnly)
      return { body: undefined, contentType: undefined, idempotencyKey: defaultKey || undefined };
    const key = options.method === 'POST' ? defaultKey : undefined;
    return key
      ? {
          body: JSON.stringify({ idempotency_key: key }),
          contentType: 'application/json',
          idempotencyKey: key,
        }
      : { body: undefined, contentType: undefined, idempotencyKey: undefined };
  }
  let text: string | undefined;
  let key = (headerOnly ? defaultKey : options.idempotencyKey) || undefined;
  if (
    options.method === 'POST' &&
    options.body !== null &&
    typeof options.body === 'object' &&
    !Array.isArray(options.body)
  ) {
    const record = options.body as Record<string, unknown>;
    if (Object.hasOwn(record, 'idempotency_key')) {
      // The body's own key, of any type, is sent as given (the server decides); only a string
      // can also be the header's, and no key of svc's goes beside one that is not.
      const given = record.idempotency_key;
      key = typeof given === 'string' ? sendableKey(given) : undefined;
    } else {
      key = defaultKey;
      // The user's text as written (svc api --input, -F, records --data), the key put in it.
      if (key !== undefined) text = bodyTextWith(record, 'idempotency_key', key);
    }
  }
  return { body: text ?? bodyText(options.body), contentType: 'application/json', idempotencyKey: key };
}

/**
 * A body's own `idempotency_key` (svc api -f/--input, records --data), which goes in the
 * Idempotency-Key header too, under the rule of every value svc puts in a header: no control
 * character (undici refused it, "cannot reach … is the server running?") and ASCII (nonAsciiIn:
 * `ké` went as one Latin-1 byte). Refused before this request is sent.
 */
function sendableKey(key: string): string {
  const what = "the body's idempotency_key";
  const problem =
    controlIn(what, key, 'give the key without it; svc did not send it') ??
    nonAsciiIn(what, key, 'give the key in ASCII; svc did not send it');
  if (problem !== undefined) throw new UsageError(problem, { code: 'invalid_header' });
  return key;
}
