// Over 300 lines: the header's reading, signing, verifying and the mismatch hints that retry the
// usual mistakes are one scheme, shared by the CLI and the sandbox; split, each would restate it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { notUtf8 } from '../api/utf8.js';
import { quoted } from '../output/format.js';
import { notUtf8Words, unusualEncoding } from '../system/input.js';
import { trimBytes } from '../system/secret-text.js';

/**
 * Webhook signatures, used by the CLI (`svc webhooks verify|sign|listen`) and by the sandbox's
 * delivery engine alike. The scheme is the reference's, which is Stripe's:
 *
 *   X-SVC-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of `${t}.${rawBody}`>[,v1=<…>]
 *
 * Several v1 values may appear (a secret being rotated signs with the old and the new secret);
 * a header is valid when any of them matches. Modelled on stripe-node's `Webhooks`: every v1 is
 * tried, comparison is constant-time (length check, then crypto.timingSafeEqual), the clock is
 * injectable, and failures explain the usual mistakes.
 */

export const SIGNATURE_HEADER = 'x-svc-signature';
export const SIGNATURE_SCHEME = 'v1';
/** How the platform's signing secrets start (Stripe's convention); part of the HMAC key. */
export const SECRET_PREFIX = 'whsec_';
/** Seconds a signature's timestamp may differ from the verifier's clock, into the past or the future. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type Secret = string | Buffer;

export interface ParsedHeader {
  timestamp: number;
  /** Every readable v1 signature, lower-cased hex, in header order. */
  signatures: string[];
  /** Which v1 of the header (1-based) were skipped as unreadable, when any were. */
  skipped?: number[];
}

/** Why a header could not be read: the message names what is wrong with it. */
export class MalformedHeaderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedHeaderError';
  }
}

export type VerifyReason =
  | 'valid'
  | 'signature_mismatch'
  | 'timestamp_outside_tolerance'
  | 'malformed_header';

export interface VerifyResult {
  valid: boolean;
  reason: VerifyReason;
  /** The header's t, when it could be read; null otherwise. */
  timestamp: number | null;
  /** Which v1 of the header matched (1-based, counting every v1), when one did. */
  matched?: number;
  /** Which v1 of the header were skipped, not being 64 hex digits (as Stripe skips them). */
  skipped?: number[];
  /** Seconds between the timestamp and the verifier's clock (positive: in the past). */
  age?: number;
  /** For a malformed header: what is wrong with it. */
  message?: string;
}

const HEX_SIGNATURE = /^[0-9a-fA-F]{64}$/;
const MAX_HEADER_LENGTH = 8192;
const MAX_SIGNATURES = 16;

/**
 * Reads `t=…,v1=…[,v1=…]`. Unknown schemes (e.g. `v0`) are ignored, and so is a v1 that is not
 * 64 hex digits next to one that is, as Stripe does (it can only fail to match); anything that
 * would make the result ambiguous or shows a damaged header (no t, two t, a t that is not plain
 * digits, no readable v1, an empty element) is a MalformedHeaderError naming the problem. Where
 * this differs from the stripe package: test/webhooks/stripe-shapes.test.ts.
 */
export function parseSignatureHeader(header: string): ParsedHeader {
  let text = header.trim();
  // Accept a whole header line, as copied from a request dump.
  const named = /^x-svc-signature\s*:\s*/i.exec(text);
  if (named) text = text.slice(named[0].length);
  if (text === '') throw new MalformedHeaderError('the signature header is empty');
  if (text.length > MAX_HEADER_LENGTH)
    throw new MalformedHeaderError(`the signature header is longer than ${MAX_HEADER_LENGTH} characters`);
  let timestamp: number | undefined;
  const signatures: string[] = [];
  const skipped: number[] = [];
  let unreadable: string | undefined;
  const elements = text.split(',');
  elements.forEach((raw, index) => {
    const element = raw.trim();
    const where = `element ${index + 1} of the header`;
    const eq = element.indexOf('=');
    if (eq <= 0) {
      throw new MalformedHeaderError(
        element === ''
          ? `${where} is empty (stray comma?)`
          : `${where} (${quoted(element)}) is not key=value`,
      );
    }
    const key = element.slice(0, eq).trim();
    const value = element.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined) throw new MalformedHeaderError('the header has more than one t=');
      if (!/^\d{1,12}$/.test(value)) {
        throw new MalformedHeaderError(`t must be a Unix timestamp in whole seconds, got ${quoted(value)}`);
      }
      timestamp = Number(value);
    } else if (key === SIGNATURE_SCHEME) {
      const number = signatures.length + skipped.length + 1;
      if (HEX_SIGNATURE.test(value)) signatures.push(value.toLowerCase());
      else {
        skipped.push(number);
        unreadable ??= `v1 signature ${number} is not 64 hexadecimal digits (HMAC-SHA256): ${notHex(value)}, got ${quoted(value)}`;
      }
    }
  });
  if (timestamp === undefined) throw new MalformedHeaderError('the header has no t= timestamp');
  if (signatures.length === 0)
    throw new MalformedHeaderError(unreadable ?? 'the header has no v1= signature');
  if (signatures.length + skipped.length > MAX_SIGNATURES)
    throw new MalformedHeaderError(`the header has more than ${MAX_SIGNATURES} v1 signatures`);
  return skipped.length > 0 ? { timestamp, signatures, skipped } : { timestamp, signatures };
}

/** Why a v1 value is no signature: its first character that is no hex digit, by place, or its length. */
function notHex(value: string): string {
  const characters = [...value];
  const bad = characters.findIndex((c) => !/^[0-9a-f]$/i.test(c));
  return bad >= 0
    ? `character ${bad + 1} is ${JSON.stringify(characters[bad])}`
    : `it has ${characters.length}`;
}

/** The 1-based number, among every v1 of the header, of its `index`-th readable one. */
function v1Number(parsed: ParsedHeader, index: number): number {
  let number = index + 1;
  for (const s of parsed.skipped ?? []) if (s <= number) number++;
  return number;
}

/** What a verifier says about v1 values it skipped: "v1 signature 1 skipped: not 64 hexadecimal digits". */
export function skippedText(skipped: number[]): string {
  return `v1 signature${skipped.length > 1 ? 's' : ''} ${skipped.join(', ')} skipped: not 64 hexadecimal digits`;
}

/**
 * The signature header in a file: the value alone (`t=…,v1=…`), its header line, or a request
 * head or header dump with one X-SVC-Signature line among others (what `svc webhooks listen
 * --capture` writes). A problem says what the file lacks.
 */
export function signatureFromHeaderText(text: string): { header: string } | { problem: string } {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length <= 1) return { header: text };
  const named = lines.filter((line) => /^x-svc-signature\s*:/i.test(line.trim()));
  if (named.length === 1) return { header: named[0]! };
  // Several lines are one header, joined as HTTP joins them (and as listen verified the request).
  if (named.length > 1)
    return { header: named.map((line) => line.trim().replace(/^x-svc-signature\s*:\s*/i, '')).join(', ') };
  return { problem: `it has ${lines.length} lines and none is an X-SVC-Signature header` };
}

/**
 * Why a body's raw bytes differ from its bytes once decoded as UTF-8 text (what stripe-node
 * hashes for a Buffer: TextDecoder drops a leading byte-order mark and turns bytes that are not
 * UTF-8 into U+FFFD): "starts with a UTF-8 byte-order mark", "is not UTF-8 (byte 0xE9 at offset
 * 28)"; undefined when they are the same bytes.
 */
export function bodyAsTextDiffers(body: Buffer): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'starts with a UTF-8 byte-order mark';
  const bad = notUtf8(body);
  return bad === undefined ? undefined : `is ${notUtf8Words(bad).replace(/; save it as UTF-8$/, '')}`;
}

/**
 * How far a signature's timestamp is from the verifier's clock, in words (`age` as VerifyResult
 * has it, positive in the past): what `verify` and `listen` both say, never a bare signed number.
 */
export function clockOffsetText(age: number): string {
  return age >= 0
    ? `${age} s before the verifier's clock`
    : `${-age} s after the verifier's clock (in the future)`;
}

/** Throws for an empty secret (see computeSignature): never a verdict made with no key. */
export function refuseEmpty(secret: Secret): void {
  if (secret.length === 0) throw new Error('refusing to sign or verify with an empty webhook secret');
}

/**
 * Hex HMAC-SHA256 of `${timestamp}.${body}` with the secret (its UTF-8 bytes when a string). An
 * empty secret is refused outright: an HMAC with the empty key is one anybody can make, so a
 * signature made or checked with it proves nothing (`listen --webhook` once judged requests with
 * it while it set the webhook up). Every reader of a secret refuses an empty one before this.
 */
export function computeSignature(secret: Secret, timestamp: number, body: Buffer | string): string {
  refuseEmpty(secret);
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/**
 * A header value for the body: one v1 per secret (the current secret first, then any secret
 * being rotated out), all over the same timestamp.
 */
export function signatureHeader(
  secrets: Secret | Secret[],
  timestamp: number,
  body: Buffer | string,
): string {
  const list = Array.isArray(secrets) ? secrets : [secrets];
  return [
    `t=${timestamp}`,
    ...list.map((s) => `${SIGNATURE_SCHEME}=${computeSignature(s, timestamp, body)}`),
  ].join(',');
}

/** Constant-time equality of two hex signatures (a length check first, as timingSafeEqual needs). */
export function signaturesEqual(expectedHex: string, givenHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'utf8');
  const given = Buffer.from(givenHex, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export interface VerifyOptions {
  /** Seconds, both directions; 0 turns the timestamp check off (as in Stripe's libraries). */
  toleranceSeconds?: number;
  /** The verifier's clock in Unix seconds (default: now). */
  nowSeconds?: number;
}

/**
 * Verifies a header against the raw body. The signature is checked first (a timestamp means
 * nothing until it is known to be signed), then the timestamp against the tolerance.
 * Never throws for what the request holds: every outcome is a VerifyResult. An empty secret is
 * refused outright (it throws), before the header is even read.
 */
export function verifySignature(
  body: Buffer | string,
  header: string,
  secret: Secret,
  options: VerifyOptions = {},
): VerifyResult {
  refuseEmpty(secret);
  let parsed: ParsedHeader;
  try {
    parsed = parseSignatureHeader(header);
  } catch (error) {
    return {
      valid: false,
      reason: 'malformed_header',
      timestamp: null,
      message: error instanceof Error ? error.message : String(error),
    };
  }
  const expected = computeSignature(secret, parsed.timestamp, body);
  // Compare with every v1 (no early exit), so timing does not tell which one matched.
  let matched = 0;
  parsed.signatures.forEach((candidate, i) => {
    if (signaturesEqual(expected, candidate) && matched === 0) matched = v1Number(parsed, i);
  });
  const skipped = parsed.skipped ? { skipped: parsed.skipped } : {};
  if (matched === 0)
    return { valid: false, reason: 'signature_mismatch', timestamp: parsed.timestamp, ...skipped };
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const age = now - parsed.timestamp;
  if (tolerance > 0 && Math.abs(age) > tolerance) {
    return {
      valid: false,
      reason: 'timestamp_outside_tolerance',
      timestamp: parsed.timestamp,
      matched,
      age,
      ...skipped,
    };
  }
  return { valid: true, reason: 'valid', timestamp: parsed.timestamp, matched, age, ...skipped };
}

/**
 * For a mismatch: the usual mistakes, checked by trying the likely fixes (each costs one HMAC).
 * Returns a hint for the user, or undefined when none of them explains it.
 */
export function explainMismatch(body: Buffer, header: string, secret: Secret): string | undefined {
  let parsed: ParsedHeader;
  try {
    parsed = parseSignatureHeader(header);
  } catch {
    return undefined;
  }
  const matches = (s: Secret, b: Buffer | string) => {
    // A likely fix that leaves no key (a secret of whitespace only) explains nothing.
    if (s.length === 0) return false;
    const expected = computeSignature(s, parsed.timestamp, b);
    return parsed.signatures.some((candidate) => signaturesEqual(expected, candidate));
  };
  const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  // A secret file saved with a byte-order mark (Notepad) or in UTF-16 (PowerShell 5's `>`).
  const unusual = unusualEncoding(key);
  if (unusual) {
    const plain = unusual.text.replace(/\r?\n$/, '');
    return matches(Buffer.from(plain, 'utf8'), body)
      ? `the secret is ${unusual.encoding} and matches once read as plain UTF-8 text: save it as plain UTF-8 (printf %s "$SECRET" > FILE)`
      : `the secret is ${unusual.encoding}; a signing secret is plain UTF-8 text: save it so (printf %s "$SECRET" > FILE)`;
  }
  const trimmedSecret = trimBytes(key);
  if (trimmedSecret.length !== key.length) {
    return matches(trimmedSecret, body)
      ? 'the secret has surrounding whitespace (beyond one final newline, which svc removes) and matches without it; write it without (printf %s "$SECRET" > FILE)'
      : 'the secret has surrounding whitespace (beyond one final newline, which svc removes); a signing secret never does';
  }
  // The platform signs with the whole secret: a receiver that kept only what follows whsec_.
  const prefix = Buffer.from(SECRET_PREFIX);
  if (!key.subarray(0, prefix.length).equals(prefix) && matches(Buffer.concat([prefix, key]), body)) {
    return `the secret matches with the ${SECRET_PREFIX} prefix in front of it: the platform signs with the whole secret as given, prefix included`;
  }
  const differs = bodyAsTextDiffers(body);
  if (differs && matches(secret, new TextDecoder('utf-8').decode(body))) {
    return `the payload ${differs}, and the signature matches it decoded as UTF-8 text (as stripe-node does): the signer hashed text, not the raw body; the platform signs the raw bytes`;
  }
  const text = body.toString('utf8');
  if (/\r?\n$/.test(text) && matches(secret, text.replace(/\r?\n$/, ''))) {
    return 'the payload matches without its final newline (added by echo or an editor?); pass the raw body exactly as received';
  }
  if (text.trim().startsWith('{') || text.trim().startsWith('[')) {
    try {
      const compact = JSON.stringify(JSON.parse(text));
      if (compact !== text && matches(secret, compact)) {
        return 'the payload is JSON re-formatted from what was signed; verify the raw request body, not a parsed and re-serialised one';
      }
    } catch {
      // not JSON after all
    }
  }
  return "check that the secret is this webhook's (rotated recently?) and that the body is the raw request body, byte for byte";
}
