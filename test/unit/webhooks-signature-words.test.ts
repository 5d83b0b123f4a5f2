// What src/webhooks/signature.ts says to a user, word for word, where the other signature tests
// leave it open (found by the seventeenth session's mutation run): the clock offset, the skipped
// v1 values, why a body is not the text it decodes to, the hints explainMismatch gives for the
// secret's encoding, its missing whsec_ prefix and a body hashed as text, and the empty secret
// refused everywhere.
import { describe, expect, it } from 'vitest';
import { startListener } from '../../src/webhooks/listen.js';
import {
  bodyAsTextDiffers,
  clockOffsetText,
  computeSignature,
  explainMismatch,
  parseSignatureHeader,
  signatureFromHeaderText,
  signatureHeader,
  skippedText,
  verifySignature,
} from '../../src/webhooks/signature.js';

const T = 1_700_000_000;
const SECRET = 'whsec_words_0123456789';
const GENERIC =
  "check that the secret is this webhook's (rotated recently?) and that the body is the raw request body, byte for byte";
const v1Of = (secret: string, body: string) => signatureHeader(secret, T, body).split('v1=')[1]!;

describe('clockOffsetText', () => {
  it.each([
    [0, "0 s before the verifier's clock"],
    [7, "7 s before the verifier's clock"],
    [-5, "5 s after the verifier's clock (in the future)"],
  ])('%i', (age, text) => {
    expect(clockOffsetText(age)).toBe(text);
  });
});

describe('skippedText', () => {
  it('names one skipped v1, or several', () => {
    expect(skippedText([2])).toBe('v1 signature 2 skipped: not 64 hexadecimal digits');
    expect(skippedText([1, 3])).toBe('v1 signatures 1, 3 skipped: not 64 hexadecimal digits');
  });
});

describe('bodyAsTextDiffers', () => {
  it.each<[string, number[], string | undefined]>([
    ['a UTF-8 byte-order mark', [0xef, 0xbb, 0xbf, 0x7b, 0x7d], 'starts with a UTF-8 byte-order mark'],
    ['bytes that are not UTF-8', [0x7b, 0x22, 0xe9, 0x22, 0x7d], 'is not UTF-8 (byte 0xE9 at offset 2)'],
    ['a third byte 0xBF alone (no mark)', [0x41, 0x41, 0xbf], 'is not UTF-8 (byte 0xBF at offset 2)'],
    ['0xEF, then no 0xBB (no mark)', [0xef, 0x41, 0xbf], 'is not UTF-8 (byte 0xEF at offset 0)'],
    ['0xBB 0xBF without the 0xEF (no mark)', [0x41, 0xbb, 0xbf], 'is not UTF-8 (byte 0xBB at offset 1)'],
    ['0xEF 0xBB without the 0xBF (no mark)', [0xef, 0xbb, 0x41], 'is not UTF-8 (byte 0xEF at offset 0)'],
    ['plain UTF-8', [...Buffer.from('{"é":1}')], undefined],
  ])('%s', (_name, bytes, said) => {
    expect(bodyAsTextDiffers(Buffer.from(bytes))).toBe(said);
  });
});

describe('parseSignatureHeader', () => {
  it('says an element of blanks is empty (a stray comma), not that it lacks an =', () => {
    expect(() => parseSignatureHeader(`t=${T}, ,v1=${'a'.repeat(64)}`)).toThrow(
      'element 2 of the header is empty (stray comma?)',
    );
  });

  it('counts unreadable v1 values in the limit of 16', () => {
    const header = `t=${T},${Array.from({ length: 16 }, () => `v1=${'a'.repeat(64)}`).join(',')},v1=zz`;
    expect(() => parseSignatureHeader(header)).toThrow('the header has more than 16 v1 signatures');
  });
});

describe('verifySignature', () => {
  it('numbers a match before an unreadable v1 as 1', () => {
    const header = `t=${T},v1=${v1Of(SECRET, '{}')},v1=zz`;
    expect(verifySignature('{}', header, SECRET, { nowSeconds: T })).toEqual({
      valid: true,
      reason: 'valid',
      timestamp: T,
      matched: 1,
      age: 0,
      skipped: [2],
    });
  });
});

describe('signatureFromHeaderText', () => {
  it('joins several signature lines, indented or with no space after the colon', () => {
    const text = `  X-SVC-Signature:t=${T},v1=aa\nHost: x\nx-svc-signature: v1=bb\n`;
    expect(signatureFromHeaderText(text)).toEqual({ header: `t=${T},v1=aa, v1=bb` });
  });

  it('takes no other header whose value mentions the signature header', () => {
    expect(signatureFromHeaderText(`Host: x\nX-Note: x-svc-signature: t=${T}\n`)).toEqual({
      problem: 'it has 2 lines and none is an X-SVC-Signature header',
    });
  });
});

describe('explainMismatch', () => {
  const hint = (body: string | Buffer, signedBody: string, secret: string | Buffer, signer = SECRET) =>
    explainMismatch(Buffer.from(body), signatureHeader(signer, T, signedBody), secret);

  it('a secret saved with a byte-order mark, matching without it or not', () => {
    const marked = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${SECRET}\n`)]);
    expect(hint('{}', '{}', marked)).toBe(
      'the secret is UTF-8 with a byte-order mark and matches once read as plain UTF-8 text: save it as plain UTF-8 (printf %s "$SECRET" > FILE)',
    );
    expect(hint('{}', '{}', marked, 'whsec_someone_else_00')).toBe(
      'the secret is UTF-8 with a byte-order mark; a signing secret is plain UTF-8 text: save it so (printf %s "$SECRET" > FILE)',
    );
  });

  it('a secret of whitespace alone matches nothing once trimmed', () => {
    expect(hint('{}', '{}', '  \t ')).toBe(
      'the secret has surrounding whitespace (beyond one final newline, which svc removes); a signing secret never does',
    );
  });

  it('a secret without its whsec_ prefix, and one that has it already', () => {
    expect(hint('{}', '{}', SECRET.slice('whsec_'.length))).toBe(
      'the secret matches with the whsec_ prefix in front of it: the platform signs with the whole secret as given, prefix included',
    );
    expect(hint('{}', '{}', SECRET, `whsec_${SECRET}`)).toBe(GENERIC);
  });

  it('a body signed as decoded text rather than its raw bytes', () => {
    const marked = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]);
    expect(hint(marked, '{"a":1}', SECRET)).toBe(
      'the payload starts with a UTF-8 byte-order mark, and the signature matches it decoded as UTF-8 text (as stripe-node does): the signer hashed text, not the raw body; the platform signs the raw bytes',
    );
    const latin1 = Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]);
    expect(hint(latin1, '{"\ufffd"}', SECRET)).toBe(
      'the payload is not UTF-8 (byte 0xE9 at offset 2), and the signature matches it decoded as UTF-8 text (as stripe-node does): the signer hashed text, not the raw body; the platform signs the raw bytes',
    );
    // A body that is not UTF-8 but whose decoded text does not match either: no such hint.
    expect(hint(latin1, '{"x"}', SECRET)).toBe(GENERIC);
  });

  it('the final newline only, not the first one, and only when it explains the mismatch', () => {
    expect(hint('line1\nline2\n', 'line1\nline2', SECRET)).toBe(
      'the payload matches without its final newline (added by echo or an editor?); pass the raw body exactly as received',
    );
    expect(hint('{"a":1}\n', '{"a":2}', SECRET)).toBe(GENERIC);
  });

  it('re-formatted JSON only for an object or an array, found after leading blanks', () => {
    expect(hint(' {"a": 1}', '{"a":1}', SECRET)).toBe(
      'the payload is JSON re-formatted from what was signed; verify the raw request body, not a parsed and re-serialised one',
    );
    // A bare JSON number re-formats too, but is no re-serialised document.
    expect(hint(' 1', '1', SECRET)).toBe(GENERIC);
  });
});

describe('an empty secret', () => {
  const refusal = 'refusing to sign or verify with an empty webhook secret';

  it('is refused by signing, verifying and the listener, before anything is judged', async () => {
    expect(() => computeSignature('', T, '{}')).toThrow(refusal);
    expect(() => computeSignature(Buffer.alloc(0), T, '{}')).toThrow(refusal);
    expect(() => verifySignature('{}', 'nonsense', '')).toThrow(refusal);
    await expect(
      startListener({
        host: '127.0.0.1',
        port: 0,
        secret: '',
        toleranceSeconds: 300,
        maxBodyBytes: 1024,
        now: () => T * 1000,
        onDelivery: () => undefined,
      }),
    ).rejects.toThrow(refusal);
  });
});
