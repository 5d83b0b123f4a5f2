/**
 * secretProblem (src/system/secret-form.ts) judges a one-time secret by what follows its kind's
 * prefix. The sandbox's secrets are a prefix and base64url, whose alphabet holds `_`: a greedy
 * prefix took `svc_pk_Ab_Cd_` whole, or left `x` / `na` after it, and refused keys the platform had
 * just made (a created key said "not shown"; about one in a few hundred, seen in a full run).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { secretProblem } from '../../src/system/secret-form.js';

describe('secretProblem', () => {
  it.each([
    'svc_pk_AbcdefGhijKlmnOpqr_',
    'svc_sk_AbcdefGhijKlmnOpqr_x',
    'svc_sk_AbcdefGhijKlmnOpqr_na',
    'svc_sk_AbcdefGhijKlmnOpqr_none',
    'whsec_AbcdefGhijKlmnOpqrStuv_xX-',
    'svc_cs_Abcdef_Ghij_Klmn_Opqr_',
  ])('takes %s: base64url may end in `_` and what follows it', (secret) => {
    expect(secretProblem(secret)).toBeUndefined();
  });

  it("takes every key and secret of the sandbox's forms (a prefix, then base64url)", () => {
    for (let i = 0; i < 5000; i++) {
      for (const prefix of ['svc_pk_', 'svc_sk_', 'svc_cs_', 'whsec_']) {
        const secret = `${prefix}${randomBytes(24).toString('base64url')}`;
        expect([secret, secretProblem(secret)]).toEqual([secret, undefined]);
      }
    }
  });

  it.each([
    ['whsec_', 'it is a prefix with nothing after it'],
    ['whsec_****************', 'it is masked (only "*" after whsec_)'],
    ['whsec_REDACTED', 'it is a mask word, not a secret'],
    ['sk_live_', 'it is a prefix with nothing after it'],
    ['sk_live_****************', 'it is masked (only "*" after sk_live_)'],
    ['***', 'it is masked (only "*")'],
  ])('refuses %s: %s', (secret, problem) => {
    expect(secretProblem(secret)).toBe(problem);
  });
});
