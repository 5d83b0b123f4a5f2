/** Reads a JWT's claims without verifying it (for display: expiry, scopes, subject). */
export function decodeJwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return claims && typeof claims === 'object' && !Array.isArray(claims)
      ? (claims as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The `exp` claim as an ISO time, when the token is a JWT that has one. */
export function jwtExpiry(token: string): string | undefined {
  const exp = decodeJwtClaims(token)?.exp;
  return typeof exp === 'number' ? isoTimeOf(exp * 1000) : undefined;
}

/**
 * `ms` written as an ISO time (api/time.ts's isoTime reads one), or undefined for a time no date can hold (past ±8.64e15 ms: a JWT `exp` of
 * 1e13, an `expires_in` of 1e300), which toISOString throws on (review23a F8: a RangeError
 * in the middle of a refresh, its mark left).
 */
export function isoTimeOf(ms: number): string | undefined {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
