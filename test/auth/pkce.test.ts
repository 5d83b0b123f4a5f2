import { describe, expect, it } from 'vitest';
import { codeChallengeS256, createCodeVerifier, createState, sameSecret } from '../../src/auth/pkce.js';

describe('PKCE (RFC 7636) and state', () => {
  it('matches RFC 7636 Appendix B', () => {
    expect(codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('makes verifiers from 32 random bytes, base64url: 43 characters of the unreserved set, never twice', () => {
    const verifiers = Array.from({ length: 200 }, createCodeVerifier);
    for (const v of verifiers) {
      expect(v).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(v, 'base64url')).toHaveLength(32);
      expect(codeChallengeS256(v)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    expect(new Set(verifiers).size).toBe(verifiers.length);
  });

  it('makes states of at least 128 bits (256)', () => {
    const states = Array.from({ length: 200 }, createState);
    for (const s of states) expect(Buffer.from(s, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(new Set(states).size).toBe(states.length);
  });

  it.each([
    ['abc', 'abc', true],
    ['abc', 'abd', false],
    ['abc', 'abcd', false],
    ['', '', true],
  ])('compares %j and %j in constant time → %s', (a, b, same) => {
    expect(sameSecret(a, b)).toBe(same);
  });
});
