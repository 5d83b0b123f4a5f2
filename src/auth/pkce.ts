import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * PKCE (RFC 7636) with S256 only, and the `state` parameter. The verifier is 32 random bytes in
 * base64url (43 characters, 256 bits — the RFC's recommendation); the state is 32 random bytes
 * too, well over the 128 bits a guess would have to beat.
 */

export function createCodeVerifier(): string {
  return randomBytes(32).toString('base64url');
}

/** BASE64URL(SHA256(ASCII(code_verifier))), RFC 7636 §4.2. */
export function codeChallengeS256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function createState(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time string comparison (the state echoed back by the browser). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
