// Edges of src/webhooks/signature.ts that test/webhooks/signature.test.ts leaves open: the
// header's size limits, a header found in a file, the malformed result of verifySignature, and
// every hint explainMismatch gives.
import { describe, expect, it } from 'vitest';
import {
  explainMismatch,
  MalformedHeaderError,
  parseSignatureHeader,
  signatureFromHeaderText,
  signatureHeader,
  verifySignature,
} from '../../src/webhooks/signature.js';

const T = 1_700_000_000;
const SIG = 'c'.repeat(64);
const SECRET = 'whsec_edges_0123456789';

const parseError = (header: string) => {
  try {
    parseSignatureHeader(header);
  } catch (error) {
    return {
      name: (error as Error).name,
      message: (error as Error).message,
      is: error instanceof MalformedHeaderError,
    };
  }
  throw new Error('parsed');
};

describe('parseSignatureHeader limits', () => {
  it('reads a header of 8192 characters and refuses one of 8193', () => {
    const base = `t=${T},v1=${SIG},x=`;
    const at = (n: number) => base + 'y'.repeat(n - base.length);
    expect(parseSignatureHeader(at(8192))).toEqual({ timestamp: T, signatures: [SIG] });
    expect(parseError(at(8193))).toEqual({
      name: 'MalformedHeaderError',
      message: 'the signature header is longer than 8192 characters',
      is: true,
    });
  });

  it('reads 16 v1 signatures and refuses 17', () => {
    const many = (n: number) => [`t=${T}`, ...Array.from({ length: n }, () => `v1=${SIG}`)].join(',');
    expect(parseSignatureHeader(many(16)).signatures).toHaveLength(16);
    expect(parseError(many(17)).message).toBe('the header has more than 16 v1 signatures');
  });

  it.each([
    [`x-svc-signature:t=${T},v1=${SIG}`],
    [`X-SVC-Signature :  t=${T},v1=${SIG}`],
    [`  t = ${T} ,  v1 = ${SIG}  `],
    [`t=${T},v1=${SIG},`.slice(0, -1)],
  ])('reads %j', (header) => {
    expect(parseSignatureHeader(header)).toEqual({ timestamp: T, signatures: [SIG] });
  });

  it.each([
    [`x-svc-signatures: t=${T},v1=${SIG}`, 'the header has no t= timestamp'],
    [`my-x-svc-signature: t=${T},v1=${SIG}`, 'the header has no t= timestamp'],
    [
      `t=${T},v1=${'d'.repeat(40)}`,
      `v1 signature 1 is not 64 hexadecimal digits (HMAC-SHA256): it has 40, got "${'d'.repeat(40)}"`,
    ],
    [
      `t=${T},v1=${'d'.repeat(41)}`,
      `v1 signature 1 is not 64 hexadecimal digits (HMAC-SHA256): it has 41, got "${'d'.repeat(41)}"`,
    ],
    // review-d 4: 64 characters, all shown, and the one that is no hex digit named by its place.
    [
      `t=${T},v1=${'a'.repeat(63)}Z`,
      `v1 signature 1 is not 64 hexadecimal digits (HMAC-SHA256): character 64 is "Z", got "${'a'.repeat(63)}Z"`,
    ],
  ])('refuses %j: %s', (header, message) => {
    expect(parseError(header).message).toBe(message);
  });
});

describe('signatureFromHeaderText', () => {
  it.each([
    [`t=${T},v1=${SIG}`, { header: `t=${T},v1=${SIG}` }],
    [`t=${T},v1=${SIG}\n\n  \n`, { header: `t=${T},v1=${SIG}\n\n  \n` }],
    [
      `POST /hooks HTTP/1.1\r\nHost: x\r\n  X-SVC-Signature: t=${T},v1=${SIG}\r\nContent-Length: 2\r\n`,
      { header: `  X-SVC-Signature: t=${T},v1=${SIG}` },
    ],
    ['POST /hooks HTTP/1.1\nHost: x\n', { problem: 'it has 2 lines and none is an X-SVC-Signature header' }],
    [
      // Joined as HTTP joins repeated lines (and listen verified them): the header then has two t=.
      `x-svc-signature: t=1,v1=${SIG}\nX-SVC-Signature : t=2,v1=${SIG}\n`,
      { header: `t=1,v1=${SIG}, t=2,v1=${SIG}` },
    ],
    ['Host: x\nX-SVC-Signatures: t=1\n', { problem: 'it has 2 lines and none is an X-SVC-Signature header' }],
  ])('%j', (text, expected) => {
    expect(signatureFromHeaderText(text)).toEqual(expected);
  });
});

describe('verifySignature', () => {
  it('skips unreadable v1 values and numbers the one that matched among every v1 of the header', () => {
    const [good, other] = [SECRET, 'whsec_other_000000'].map(
      (s) => signatureHeader(s, T, '{}').split('v1=')[1],
    );
    const header = `t=${T},v1=zz,v1=${other},v1=,v1=${good}`;
    expect(verifySignature('{}', header, SECRET, { nowSeconds: T })).toEqual({
      valid: true,
      reason: 'valid',
      timestamp: T,
      matched: 4,
      age: 0,
      skipped: [1, 3],
    });
    expect(parseError(`t=${T},v1=zz,v1=`).message).toBe(
      'v1 signature 1 is not 64 hexadecimal digits (HMAC-SHA256): character 1 is "z", got "zz"',
    );
  });

  it('reports a malformed header with its message, never throwing', () => {
    expect(verifySignature('{}', 't=x', SECRET)).toEqual({
      valid: false,
      reason: 'malformed_header',
      timestamp: null,
      message: 't must be a Unix timestamp in whole seconds, got "x"',
    });
  });

  it('says the first v1 that matched when several do', () => {
    const header = signatureHeader([SECRET, SECRET], T, '{}');
    expect(verifySignature('{}', header, SECRET, { nowSeconds: T })).toMatchObject({
      valid: true,
      matched: 1,
    });
    const second = signatureHeader(['whsec_other_000000', SECRET, SECRET], T, '{}');
    expect(verifySignature('{}', second, SECRET, { nowSeconds: T })).toMatchObject({
      valid: true,
      matched: 2,
    });
  });

  it('uses the real clock by default', () => {
    const now = Math.floor(Date.now() / 1000);
    const fresh = verifySignature('{}', signatureHeader(SECRET, now, '{}'), SECRET);
    expect(fresh.valid).toBe(true);
    expect(Math.abs(fresh.age!)).toBeLessThanOrEqual(2);
    expect(verifySignature('{}', signatureHeader(SECRET, now - 400, '{}'), SECRET).reason).toBe(
      'timestamp_outside_tolerance',
    );
  });
});

describe('explainMismatch', () => {
  const header = (body: string, secret = SECRET) => signatureHeader(secret, T, body);
  const GENERIC =
    "check that the secret is this webhook's (rotated recently?) and that the body is the raw request body, byte for byte";

  it.each([
    [
      'a secret with whitespace that matches without it',
      '{"a":1}',
      header('{"a":1}'),
      ` ${SECRET}\t`,
      'the secret has surrounding whitespace (beyond one final newline, which svc removes) and matches without it; write it without (printf %s "$SECRET" > FILE)',
    ],
    [
      'a secret with whitespace that does not match either way',
      '{"a":1}',
      header('{"a":1}', 'whsec_someone_else_000'),
      `${SECRET} `,
      'the secret has surrounding whitespace (beyond one final newline, which svc removes); a signing secret never does',
    ],
    [
      'a payload with a final newline',
      '{"a":1}\n',
      header('{"a":1}'),
      SECRET,
      'the payload matches without its final newline (added by echo or an editor?); pass the raw body exactly as received',
    ],
    [
      'a payload with a final CRLF',
      'plain\r\n',
      header('plain'),
      SECRET,
      'the payload matches without its final newline (added by echo or an editor?); pass the raw body exactly as received',
    ],
    ['a newline in the middle is not a final one', 'pla\nin', header('plain'), SECRET, GENERIC],
    [
      'a re-formatted JSON object',
      '{\n  "a": 1\n}',
      header('{"a":1}'),
      SECRET,
      'the payload is JSON re-formatted from what was signed; verify the raw request body, not a parsed and re-serialised one',
    ],
    [
      'a re-formatted JSON array',
      ' [1, 2]',
      header('[1,2]'),
      SECRET,
      'the payload is JSON re-formatted from what was signed; verify the raw request body, not a parsed and re-serialised one',
    ],
    ['compact JSON that simply does not match', '{"a":1}', header('{"a":2}'), SECRET, GENERIC],
    ['text that only looks like JSON', '{not json', header('{not json}'), SECRET, GENERIC],
    ['JSON that re-formats to another signed text', '{"a": 1}', header('{"a":2}'), SECRET, GENERIC],
  ])('%s', (_name, body, signed, secret, hint) => {
    expect(explainMismatch(Buffer.from(body), signed, secret)).toBe(hint);
  });

  it('has nothing to say about a malformed header', () => {
    expect(explainMismatch(Buffer.from('{}'), 'nonsense', SECRET)).toBeUndefined();
  });

  it('tries every v1 of a rotated header', () => {
    const rotated = signatureHeader(['whsec_old_secret_0000', SECRET], T, '{"a":1}');
    expect(explainMismatch(Buffer.from('{"a":1}\n'), rotated, SECRET)).toBe(
      'the payload matches without its final newline (added by echo or an editor?); pass the raw body exactly as received',
    );
  });
});
