import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * PKCE (RFC 7636) as both sides compute it: the CLI makes challenges from its verifiers, the
 * sandbox's token endpoint checks verifiers against stored challenges. S256 is the only method
 * (RFC 9700 §2.1.1: `plain` offers no protection against a leaked authorization request).
 */
export const PKCE_METHODS = ['S256'] as const;

/** BASE64URL(SHA256(ASCII(code_verifier))), RFC 7636 §4.2. */
export function codeChallengeS256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Constant-time string comparison (a verifier's challenge, a state echoed back by the browser). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
