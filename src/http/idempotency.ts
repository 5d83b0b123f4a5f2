import { createHash, randomUUID } from 'node:crypto';

/** A fresh key for one logical operation; reused by every retry of that operation. */
export function newIdempotencyKey(): string {
  return `svc_${randomUUID()}`;
}

/**
 * A key derived from an operation's content (e.g. tenant + row of a bulk file), so running the
 * same operation again — in a re-run of the same file — is recognised by the server.
 */
export function deriveIdempotencyKey(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${part.length}:${part}`);
  return `svc_${hash.digest('base64url').slice(0, 40)}`;
}
