import { pipeline, type Readable, Transform, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { Headers } from './send.js';

/**
 * Compressed answers. undici's request() hands the body over as it came (only fetch() decodes),
 * so svc decodes it itself, here, as a stream read through the same size cap as any answer: the
 * cap is on the decoded size, and a compression bomb stops there.
 *
 * svc asks for gzip, deflate and br rather than `identity`: it reads all three, JSON pages (long
 * `--all` listings, exports) travel several times smaller, and a server or proxy may compress
 * anyway (RFC 9110 12.5.3 lets it when no Accept-Encoding is sent), so decoding is needed either
 * way and is better exercised as the usual path than as a rare one.
 */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** More codings than this on one answer are refused (as undici's fetch and curl do). */
const MAX_CODINGS = 5;

/**
 * Each decoder starts at the first byte of its input, so an empty body (a HEAD's, a 204's, or an
 * empty 200 a gzip filter still labelled) decodes to an empty body, not "unexpected end of file".
 */
const DECODERS: Record<string, () => Transform> = {
  gzip: () => new Lazy(() => createGunzip()),
  'x-gzip': () => new Lazy(() => createGunzip()),
  // HTTP's `deflate` is zlib-wrapped (RFC 9110 8.4.1.2), but some servers send raw deflate: the
  // first two bytes say which.
  deflate: () =>
    new Lazy((first) =>
      first.length >= 2 && (first[0]! & 0x0f) === 8 && ((first[0]! << 8) | first[1]!) % 31 === 0
        ? createInflate()
        : createInflateRaw(),
    ),
  br: () => new Lazy(() => createBrotliDecompress()),
};

/**
 * An answer that has no body by definition (RFC 9110 6.4.1: a HEAD's, a 1xx, 204 or 304) is
 * never decoded, whatever its Content-Encoding says (a HEAD's carries a GET's headers).
 */
export function hasNoBody(method: string, status: number): boolean {
  return method === 'HEAD' || status < 200 || status === 204 || status === 304;
}

/** The answer's content codings in the order they were applied (`identity` left out), lower case. */
export function contentCodings(headers: Headers): string[] {
  const value = headers['content-encoding'];
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

/**
 * The body decoded (the codings undone in reverse order), or the reason it cannot be: a coding
 * svc does not read, named as the server wrote it.
 */
export function decodedBody(
  body: Readable,
  codings: string[],
): { body: AsyncIterable<Buffer | Uint8Array> } | { cannot: string } {
  if (codings.length === 0) return { body };
  const unknown = codings.find((coding) => !Object.hasOwn(DECODERS, coding));
  if (unknown !== undefined || codings.length > MAX_CODINGS) {
    const named = unknown ?? codings.join(', ');
    return { cannot: `a body in Content-Encoding ${JSON.stringify(named)}, which svc cannot decode` };
  }
  const decoders = [...codings].reverse().map((coding) => DECODERS[coding]!());
  // An error anywhere (the connection, a coding) destroys every stage and ends the read with it.
  const last = pipeline([body, ...decoders], () => {}) as unknown as Readable;
  return { body: last };
}

/** An error of a decoder (zlib, brotli): the body is not what its Content-Encoding says. */
export function isDecodeError(error: unknown): error is Error {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR'));
}

/** A decoder made at the first byte of its input (`make` sees the first chunk): none for no input. */
class Lazy extends Transform {
  #inner: Transform | undefined;
  readonly #make: (first: Buffer) => Transform;

  constructor(make: (first: Buffer) => Transform) {
    super();
    this.#make = make;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (chunk.length === 0) {
      callback();
      return;
    }
    if (!this.#inner) {
      const inner = this.#make(chunk);
      inner.on('data', (data: Buffer) => this.push(data));
      inner.on('error', (error) => this.destroy(error));
      this.#inner = inner;
    }
    this.#inner.write(chunk, () => callback());
  }

  override _flush(callback: TransformCallback): void {
    const inner = this.#inner;
    if (!inner) {
      callback();
      return;
    }
    inner.once('end', () => callback());
    inner.end();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#inner?.destroy();
    callback(error);
  }
}
