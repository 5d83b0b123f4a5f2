import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isZeroDecimal, jsonDepth, notAsWritten, pathLabel } from '../../api/json-text.js';
import { isSecretField } from '../../api/secret-names.js';
import { notUtf8 } from '../../api/utf8.js';
import { DomainError } from '../domain/errors.js';
import { ApiProblem } from '../problem.js';

/** The media types of every body but those of the routes that declare their own (`consumes`). */
export const JSON_MEDIA_TYPES = ['application/json', 'application/merge-patch+json'];

/** The size limit of a JSON body (Fastify's bodyLimit); 413 payload_too_large over it. */
export const BODY_LIMIT = 1024 * 1024;

/** JSON bodies nest at most this deep (objects and arrays alike). */
export const MAX_JSON_DEPTH = 64;

/**
 * application/json and application/merge-patch+json (RFC 7396) bodies: the depth check, then
 * Fastify's own parser, then what could not be stored as written (unstorable: numbers, keys given twice) (prototype-poisoning protection included: a `__proto__` key, or a
 * `constructor` object with a `prototype` key, is refused — said so by prototypeKeyRefusal, as
 * Fastify calls any refusal "not valid JSON"). The size limit is Fastify's bodyLimit (413
 * payload_too_large).
 */
export function registerJsonBodies(app: FastifyInstance): void {
  type Done = (error: Error | null, body?: unknown) => void;
  // Fastify's own parser is the callback form (request, text, done).
  const parse = app.getDefaultJsonParser('error', 'error') as (
    request: FastifyRequest,
    body: string,
    done: Done,
  ) => void;
  app.removeContentTypeParser('application/json');
  const parser = (request: FastifyRequest, bytes: Buffer, done: Done) => {
    // Read as bytes: a body that is not UTF-8 (RFC 8259 §8.1; the reference: "UTF-8 JSON") is
    // refused naming its first bad byte, never decoded with U+FFFD stored in its place.
    const bad = notUtf8(bytes);
    if (bad !== undefined) {
      const hex = bad.byte.toString(16).toUpperCase().padStart(2, '0');
      done(
        new DomainError(
          'invalid_request',
          `the body is not UTF-8 (byte 0x${hex} at offset ${bad.offset}); send it as UTF-8`,
        ),
        undefined,
      );
      return;
    }
    const body = bytes.toString('utf8');
    // A request whose route takes no body (a DELETE) sent with the reference's common
    // Content-Type header has nothing to parse; Fastify's parser would refuse the empty text
    // (FST_ERR_CTP_EMPTY_JSON_BODY). A route that takes a body is still told it needs one.
    if (body === '' && request.routeOptions.schema?.body === undefined) {
      done(null, undefined);
      return;
    }
    // Scanned once without recursion: a body nested thousands of levels deep is refused before
    // anything parses, validates, fingerprints, merges or serialises it (each of which recurses,
    // and would overflow the stack, or store a record that no later read could serialise).
    if (jsonDepth(body) > MAX_JSON_DEPTH) {
      done(
        new DomainError('body_too_deep', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`),
        undefined,
      );
      return;
    }
    parse(request, body, (error, parsed) => {
      if (error) done(prototypeKeyRefusal(body) ?? error, undefined);
      else done(unstorable(body) ?? null, parsed);
    });
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parser);
  app.addContentTypeParser('application/merge-patch+json', { parseAs: 'buffer' }, parser);

  // Fastify parses any body it has a parser for on any route: a form (registered for the OAuth
  // endpoints) or text/plain would reach a JSON route's handler. A route takes the media types
  // its schema declares in `consumes` (the OAuth form endpoints, which answer other types in
  // RFC 6749's shape themselves), and JSON otherwise; this runs after authentication and before
  // parsing, so no idempotency or validation check answers for a body of the wrong type.
  app.addHook('preParsing', async (request) => {
    if (request.is404 || request.routeOptions.schema?.consumes) return;
    const length = request.headers['content-length'];
    const hasBody =
      request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    if (!hasBody || request.method === 'GET' || request.method === 'HEAD') return;
    const type = mediaType(request.headers['content-type']);
    if (!JSON_MEDIA_TYPES.includes(type)) {
      throw new ApiProblem(
        415,
        'unsupported_media_type',
        `the body must be ${JSON_MEDIA_TYPES.join(' or ')}, not ${type || '(none)'}`,
      );
    }
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8') {
      throw new ApiProblem(
        415,
        'unsupported_media_type',
        `the body must be UTF-8 JSON, not charset=${charset}; send it as UTF-8 (charset=utf-8 or none)`,
      );
    }
  });
}

/**
 * The refusal of valid JSON that Fastify's parser refuses for a prototype key (secure-json-parse
 * with onProtoPoisoning/onConstructorPoisoning 'error'): 400 invalid_request naming the first such
 * key, breadth first, and the fix; undefined when the text is not valid JSON after all.
 */
export function prototypeKeyRefusal(text: string): DomainError | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  let level: Array<[string, unknown]> = [['', parsed]];
  while (level.length > 0) {
    const next: Array<[string, unknown]> = [];
    for (const [at, node] of level) {
      if (node === null || typeof node !== 'object') continue;
      const own = (o: object, key: string) => Object.hasOwn(o, key);
      const ctor = (node as Record<string, unknown>).constructor;
      const key = own(node, '__proto__')
        ? '__proto__'
        : own(node, 'constructor') && ctor !== null && typeof ctor === 'object' && own(ctor, 'prototype')
          ? 'constructor.prototype'
          : undefined;
      if (key !== undefined) {
        const where = at === '' ? '' : ` at ${at}`;
        return new DomainError(
          'invalid_request',
          `the body has a ${key} key${where}, which the platform refuses (it could poison object prototypes); remove it`,
          [{ field: at === '' ? key : `${at}.${key}`, message: 'is not accepted; remove it' }],
        );
      }
      for (const [k, v] of Object.entries(node)) {
        next.push([Array.isArray(node) ? `${at}[${k}]` : at === '' ? k : `${at}.${k}`, v]);
      }
    }
    level = next;
  }
  return undefined;
}

/**
 * The refusal of a body the platform cannot store as written, the first one found:
 * - a number: it keeps numbers as doubles, so 9007199254740993 would be stored as
 *   9007199254740992 and 1e400 as Infinity (read back as null);
 * - a key given twice in one object: JSON parsers disagree on which one counts (the last here, the
 *   first elsewhere), so what one side checked may not be what the other stored.
 * 400 invalid_request naming its path, as a strict platform refuses what it cannot store rather
 * than store another value; undefined when the body is as it will be stored.
 */
export function unstorable(text: string): DomainError | undefined {
  const found = notAsWritten(text);
  if (found === undefined) return undefined;
  if (found.kind === 'twice') {
    const field = pathLabel([...found.path, found.key]);
    return new DomainError('invalid_request', `${field} is given twice; send it once`, [
      { field, message: 'is given twice; send it once' },
    ]);
  }
  const field = pathLabel(found.path);
  // A number under a secret's name is not repeated (svc now sends it as typed: attack27b F3).
  const last = found.path[found.path.length - 1];
  const secret = typeof last === 'string' && isSecretField(last);
  const why =
    found.becomes === 'infinite'
      ? 'is beyond the range of the numbers the platform stores'
      : found.becomes === '0' && !isZeroDecimal(found.raw)
        ? 'is too small for the numbers the platform stores (it would be 0)'
        : found.becomes === '0'
          ? 'is a zero with a sign, which the platform stores without it (it would be 0)'
          : `has more digits than the platform stores${secret ? '' : ` (it would be ${found.becomes})`}`;
  return new DomainError(
    'invalid_request',
    `${field} is ${secret ? 'a number' : found.raw}, which ${why}; send it as a string`,
    [{ field, message: `${why}; send it as a string` }],
  );
}

/** The charset parameter of a Content-Type, in lower case without quotes, or undefined. */
function charsetOf(header: string | undefined): string | undefined {
  const found = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(header ?? '');
  return found ? found[2]!.toLowerCase() : undefined;
}

/** `Application/JSON; charset=utf-8` → `application/json`. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}
