import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import {
  computeSignature,
  explainMismatch,
  parseSignatureHeader,
  signatureHeader,
  signaturesEqual,
  verifySignature,
} from '../../src/webhooks/signature.js';

const T = 1_700_000_000;
const stripe = Stripe.webhooks;

/** Stripe's verifier: true, or the message of its StripeSignatureVerificationError. */
function stripeVerifies(payload: string, header: string, secret: string, nowSeconds: number): true | string {
  try {
    return stripe.signature!.verifyHeader(payload, header, secret, 300, undefined, nowSeconds * 1000) as true;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('parseSignatureHeader', () => {
  const sig = 'a'.repeat(64);
  it.each([
    [`t=${T},v1=${sig}`, { timestamp: T, signatures: [sig] }],
    [
      ` t=${T} , v1=${sig.toUpperCase()} ,v1=${'b'.repeat(64)},v0=zz`,
      { timestamp: T, signatures: [sig, 'b'.repeat(64)] },
    ],
    [`X-SVC-Signature: t=${T},v1=${sig}`, { timestamp: T, signatures: [sig] }],
  ])('reads %j', (header, expected) => {
    expect(parseSignatureHeader(header)).toEqual(expected);
  });

  it.each([
    ['', 'the signature header is empty'],
    ['   ', 'the signature header is empty'],
    [`v1=${sig}`, 'the header has no t= timestamp'],
    [`t=${T}`, 'the header has no v1= signature'],
    [`t=${T},v0=${sig}`, 'the header has no v1= signature'],
    [`t=${T},t=${T},v1=${sig}`, 'the header has more than one t='],
    [`t=soon,v1=${sig}`, 't must be a Unix timestamp in whole seconds, got "soon"'],
    [`t=-5,v1=${sig}`, 't must be a Unix timestamp in whole seconds, got "-5"'],
    [`t=${T},v1=abc`, 'v1 signature 1 is not 64 hexadecimal digits (HMAC-SHA256): it has 3, got "abc"'],
    [`t=${T},,v1=${sig}`, 'element 2 of the header is empty (stray comma?)'],
    [`t=${T};v1=${sig}`, `t must be a Unix timestamp in whole seconds, got "${T};v1=${sig}"`],
    [`t=${T},${sig}`, `element 2 of the header ("${sig}") is not key=value`],
    [`t=${T},=${sig}`, `element 2 of the header ("=${sig}") is not key=value`],
    [`t=${T},\n`, 'element 2 of the header is empty (stray comma?)'],
    [`t=${T},\u0000\n\u0000`, 'element 2 of the header ("\\u0000\\n\\u0000") is not key=value'],
  ])('refuses %j: %s', (header, message) => {
    expect(() => parseSignatureHeader(header)).toThrow(message);
  });
});

describe('verifySignature', () => {
  const secret = 'whsec_test_secret';
  const body = Buffer.from('{"id":"evt_1","type":"webhook.test"}');
  const header = signatureHeader(secret, T, body);

  it.each([
    ['now', T, { valid: true, reason: 'valid', timestamp: T, matched: 1, age: 0 }],
    ['300 s later (the edge)', T + 300, { valid: true, reason: 'valid', age: 300 }],
    ['300 s earlier (future edge)', T - 300, { valid: true, reason: 'valid', age: -300 }],
    ['301 s later', T + 301, { valid: false, reason: 'timestamp_outside_tolerance', age: 301 }],
    [
      '301 s earlier (from the future)',
      T - 301,
      { valid: false, reason: 'timestamp_outside_tolerance', age: -301 },
    ],
  ])('checks the timestamp in both directions: %s', (_label, now, expected) => {
    expect(verifySignature(body, header, secret, { nowSeconds: now })).toMatchObject(expected);
  });

  it('turns the timestamp check off with tolerance 0, as Stripe does', () => {
    expect(
      verifySignature(body, header, secret, { nowSeconds: T + 10 ** 6, toleranceSeconds: 0 }).valid,
    ).toBe(true);
  });

  it('tries every v1 (secret rotation) and says which matched', () => {
    const rotated = signatureHeader(['whsec_new', secret], T, body);
    expect(verifySignature(body, rotated, secret, { nowSeconds: T })).toMatchObject({
      valid: true,
      matched: 2,
    });
    expect(verifySignature(body, rotated, 'whsec_new', { nowSeconds: T })).toMatchObject({
      valid: true,
      matched: 1,
    });
    expect(verifySignature(body, rotated, 'whsec_other', { nowSeconds: T }).reason).toBe(
      'signature_mismatch',
    );
  });

  it('checks the signature before the timestamp', () => {
    expect(verifySignature(body, header, 'wrong', { nowSeconds: T + 10_000 }).reason).toBe(
      'signature_mismatch',
    );
  });

  it('signs the raw bytes: a body that is not UTF-8, a trailing newline, a re-serialised JSON all differ', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    expect(verifySignature(bytes, signatureHeader(secret, T, bytes), secret, { nowSeconds: T }).valid).toBe(
      true,
    );
    const withNewline = Buffer.concat([body, Buffer.from('\n')]);
    expect(verifySignature(withNewline, header, secret, { nowSeconds: T }).reason).toBe('signature_mismatch');
  });

  it('compares with a length check and timingSafeEqual', () => {
    expect(signaturesEqual('ab', 'ab')).toBe(true);
    expect(signaturesEqual('ab', 'abc')).toBe(false);
    expect(signaturesEqual('ab', 'ac')).toBe(false);
  });

  it('is HMAC-SHA256 of "t.body"', () => {
    expect(computeSignature(secret, T, body)).toBe(
      createHmac('sha256', secret).update(`${T}.${body.toString()}`).digest('hex'),
    );
  });

  it.each([
    [
      'a secret with trailing whitespace',
      `${secret} `,
      body,
      'the secret has surrounding whitespace (beyond one final newline, which svc removes) and matches without it',
    ],
    [
      'a payload with an added newline',
      secret,
      Buffer.from(`${body}\n`),
      'the payload matches without its final newline',
    ],
    [
      'a pretty-printed payload',
      secret,
      Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2)),
      'the payload is JSON re-formatted from what was signed',
    ],
    ['another secret', 'whsec_other', body, "check that the secret is this webhook's"],
  ])('explains the usual mistakes: %s', (_label, usedSecret, usedBody, hint) => {
    expect(explainMismatch(usedBody, header, usedSecret)).toContain(hint);
  });
});

describe('agreement with Stripe-style verifiers (the stripe package)', () => {
  const secretArb = fc.string({ minLength: 1, maxLength: 60 }).filter((s) => !/\s/.test(s));
  const payloadArb = fc.string({ minLength: 1, maxLength: 400 });
  const timeArb = fc.integer({ min: 1_000_000_000, max: 4_000_000_000 });

  it('accepts every header Stripe makes, and rejects it for another payload or secret', () => {
    fc.assert(
      fc.property(
        secretArb,
        payloadArb,
        timeArb,
        fc.integer({ min: -300, max: 300 }),
        (secret, payload, t, skew) => {
          const header = stripe.generateTestHeaderString({ payload, secret, timestamp: t });
          expect(
            verifySignature(Buffer.from(payload), header, secret, { nowSeconds: t + skew }),
          ).toMatchObject({
            valid: true,
          });
          expect(verifySignature(Buffer.from(`${payload}x`), header, secret, { nowSeconds: t }).reason).toBe(
            'signature_mismatch',
          );
          expect(verifySignature(Buffer.from(payload), header, `${secret}x`, { nowSeconds: t }).reason).toBe(
            'signature_mismatch',
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('makes headers Stripe accepts (one v1, or two during a rotation)', () => {
    fc.assert(
      fc.property(secretArb, secretArb, payloadArb, timeArb, (secret, previous, payload, t) => {
        expect(stripeVerifies(payload, signatureHeader(secret, t, payload), secret, t)).toBe(true);
        const rotated = signatureHeader([secret, previous], t, payload);
        expect(stripeVerifies(payload, rotated, secret, t)).toBe(true);
        expect(stripeVerifies(payload, rotated, previous, t)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees on valid / mismatch / too old for random combinations', () => {
    fc.assert(
      fc.property(
        secretArb,
        payloadArb,
        timeArb,
        fc.constantFrom('same', 'other-secret', 'other-payload'),
        fc.integer({ min: 0, max: 900 }),
        (secret, payload, t, change, age) => {
          const header = signatureHeader(secret, t, payload);
          const usedSecret = change === 'other-secret' ? `${secret}!` : secret;
          const usedPayload = change === 'other-payload' ? `${payload} ` : payload;
          const ours = verifySignature(Buffer.from(usedPayload), header, usedSecret, { nowSeconds: t + age });
          const theirs = stripeVerifies(usedPayload, header, usedSecret, t + age);
          expect(ours.valid).toBe(theirs === true);
          if (ours.reason === 'signature_mismatch') expect(theirs).toMatch(/No signatures found matching/);
          if (ours.reason === 'timestamp_outside_tolerance')
            expect(theirs).toBe('Timestamp outside the tolerance zone');
        },
      ),
      { numRuns: 2000 },
    );
  });
});
