import type { StoredCredential } from '../config/store.js';
import { decodeJwtClaims } from './jwt.js';

/**
 * Who a credential acts as, as svc can tell without a request: what a running command compares
 * when the profile's login changes under it (./credentials.ts), and what a bulk run's journal is
 * owned by (../bulk/caller.ts).
 */

/** What a JWT access token says of its holder: its issuer and subject (the user); undefined when it is no JWT with a subject. */
export function jwtSubject(
  token: string,
): { iss: string; sub: string; claims: Record<string, unknown> } | undefined {
  const claims = decodeJwtClaims(token);
  const sub = claims?.sub;
  if (!claims || typeof sub !== 'string' || sub === '') return undefined;
  return { iss: typeof claims.iss === 'string' ? claims.iss : '', sub, claims };
}

/** The login a credential belongs to: its session id; an older credential's own token or kind. */
function sessionOf(credential: StoredCredential): string {
  return credential.session ?? (credential.type === 'token' ? `token:${credential.access_token}` : 'oauth');
}

/**
 * The identity of a JWT login: the API origin it is stored for, its issuer, its subject (the user),
 * the organization and the OAuth client it acts through (a third-party client's token is not the
 * user's own login). Not its tenants or scopes: those say what a token may do, not whose it is.
 * Undefined for an opaque credential (an API key): only the very same bytes are the same key.
 */
function identityOf(credential: StoredCredential): string | undefined {
  const jwt = jwtSubject(credential.access_token);
  if (jwt === undefined) return undefined;
  // Each claim as the token holds it, so that two values are one only when they are equal: an
  // organization (client, issuer) whose ids are numbers 1 and 2 is two, not one absent value.
  // JSON writes an absent claim as null.
  return JSON.stringify([
    credential.origin ?? null,
    jwt.claims.iss,
    jwt.sub,
    jwt.claims.org_id,
    jwt.claims.client_id,
  ]);
}

/**
 * What the profile holds now (`now`) against the login a command started with (`initial`):
 * - `login`: the same login — the same session (refreshes keep it), or the very same token stored
 *   again (`svc login --with-token` with the token the profile already held);
 * - `identity`: another login of the same identity (identityOf: a parallel CI job's
 *   `svc login --with-token` with a fresh token of the same user, base URL and organization);
 * - `other`: another identity — another user (`user`: the one the new token names), another
 *   issuer, origin, organization or client, or an API key where a user was (or the reverse).
 * The one rule of what stops a running command (attack21 F9).
 */
export function loginNow(
  initial: StoredCredential,
  now: StoredCredential,
): { same: 'login' | 'identity' } | { other: true; user: string | undefined } {
  const [was, is] = [jwtSubject(initial.access_token)?.sub, jwtSubject(now.access_token)?.sub];
  // Two users, even within one session (an identity provider that swapped the subject): never the same.
  if (was !== undefined && is !== undefined && was !== is) return { other: true, user: is };
  if (sessionOf(now) === sessionOf(initial)) return { same: 'login' };
  if (initial.type === 'token' && now.type === 'token' && now.access_token === initial.access_token)
    return { same: 'login' };
  const identity = identityOf(initial);
  if (identity !== undefined && identity === identityOf(now)) return { same: 'identity' };
  return { other: true, user: is !== was ? is : undefined };
}
