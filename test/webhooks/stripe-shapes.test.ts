/**
 * Header shapes where a hand-written or re-written header could make `svc webhooks verify` and
 * the stripe package disagree (finding s10 receiver 7): the same header, body and secret through
 * both. The README's claim about agreeing with Stripe says exactly this table.
 */
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { computeSignature, verifySignature } from '../../src/webhooks/signature.js';

const T = 1_700_000_000;
const SECRET = 'whsec_demo_secret_value';
const BODY = '{"id":"evt_1","type":"webhook.test"}';
const S = computeSignature(SECRET, T, BODY);
const OTHER = computeSignature('whsec_other', T, BODY);

function stripe(header: string): 'valid' | 'rejected' {
  try {
    Stripe.webhooks.signature!.verifyHeader(BODY, header, SECRET, 0);
    return 'valid';
  } catch {
    return 'rejected';
  }
}

const svc = (header: string) => {
  const r = verifySignature(Buffer.from(BODY), header, SECRET, { toleranceSeconds: 0 });
  return r.valid ? 'valid' : r.reason;
};

describe('the same header through svc and the stripe package', () => {
  it.each<[string, string, string, 'valid' | 'rejected']>([
    ['the platform shape', `t=${T},v1=${S}`, 'valid', 'valid'],
    ['two v1 (a rotation)', `t=${T},v1=${OTHER},v1=${S}`, 'valid', 'valid'],
    ['v1 before t, an unknown scheme', `v0=abc,v1=${S},t=${T}`, 'valid', 'valid'],
    // Agreed now: an unreadable v1 next to a good one is skipped, as Stripe does.
    ['a junk v1 before the good one', `t=${T},v1=abc,v1=${S}`, 'valid', 'valid'],
    ['a junk v1 after the good one', `t=${T},v1=${S},v1=zz`, 'valid', 'valid'],
    ['only junk v1', `t=${T},v1=abc`, 'malformed_header', 'rejected'],
    ['the wrong signature', `t=${T},v1=${OTHER}`, 'signature_mismatch', 'rejected'],
    // svc stricter: shapes the platform never sends, refused with a message naming the element.
    ['a trailing comma', `t=${T},v1=${S},`, 'malformed_header', 'valid'],
    ['t twice (same value)', `t=${T},v1=${S},t=${T}`, 'malformed_header', 'valid'],
    ['t with a plus sign', `t=+${T},v1=${S}`, 'malformed_header', 'valid'],
    ['t with letters after it', `t=${T}abc,v1=${S}`, 'malformed_header', 'valid'],
    ['an element that is not key=value', `t=${T},junk,v1=${S}`, 'malformed_header', 'valid'],
    ['an empty element', `t=${T},,v1=${S}`, 'malformed_header', 'valid'],
    // svc looser: the same signature, written differently (hex case, spaces around elements).
    ['upper-case hex', `t=${T},v1=${S.toUpperCase()}`, 'valid', 'rejected'],
    ['a space after the comma', `t=${T}, v1=${S}`, 'valid', 'rejected'],
    // Stripe throws on an empty v1 ("secureCompare must receive two arguments"); svc skips it like any junk v1.
    ['an empty v1 next to the good one', `t=${T},v1=${S},v1=`, 'valid', 'rejected'],
  ])('%s', (_label, header, ours, theirs) => {
    expect([svc(header), stripe(header)]).toEqual([ours, theirs]);
  });
});
