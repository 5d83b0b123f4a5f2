import { randomBytes } from 'node:crypto';

/**
 * PKCE (RFC 7636) with S256 only, and the `state` parameter. The verifier is 32 random bytes in
 * base64url (43 characters, 256 bits — the RFC's recommendation); the state is 32 random bytes
 * too, well over the 128 bits a guess would have to beat. The challenge and the constant-time
 * comparison live in src/api/pkce.ts, shared with the sandbox's token endpoint.
 */
export { codeChallengeS256, sameSecret } from '../api/pkce.js';

export function createCodeVerifier(): string {
  return randomBytes(32).toString('base64url');
}

export function createState(): string {
  return randomBytes(32).toString('base64url');
}
