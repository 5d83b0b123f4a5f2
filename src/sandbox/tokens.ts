import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** HS256 JSON Web Tokens (RFC 7519) — the sandbox's user credentials. */

export interface JwtClaims {
  iss: string;
  sub: string;
  aud: string;
  iat: number;
  exp: number;
  jti: string;
  /** The tenants the token may act in, with the holder's role in each when issued. */
  tenants: Array<{ id: string; role: string }>;
  org_id?: string | null;
  [claim: string]: unknown;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

export function signJwt(claims: JwtClaims, secret: Buffer): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = createHmac('sha256', secret).update(`${HEADER}.${payload}`).digest('base64url');
  return `${HEADER}.${payload}.${signature}`;
}

export type JwtCheck =
  | { ok: true; claims: JwtClaims }
  | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

/**
 * Whether a segment is strict unpadded base64url (RFC 7515 §2): only [A-Za-z0-9_-], no `=`, and
 * no trailing bits the encoding would not set. Node's decoder accepts all of those and ignores
 * them, so without this check `<token>=` and other spellings of one signature would pass.
 */
function isStrictBase64url(segment: string): boolean {
  return (
    /^[A-Za-z0-9_-]*$/.test(segment) && Buffer.from(segment, 'base64url').toString('base64url') === segment
  );
}

export function verifyJwt(token: string, secret: Buffer, nowSeconds: number, issuer: string): JwtCheck {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every(isStrictBase64url)) return { ok: false, reason: 'malformed' };
  const [header, payload, signature] = parts as [string, string, string];
  let alg: unknown;
  let claims: JwtClaims;
  try {
    alg = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')).alg;
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  // Only HS256: never "none", never an algorithm the token chooses for itself.
  if (alg !== 'HS256') return { ok: false, reason: 'signature' };
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'signature' };
  if (
    typeof claims !== 'object' ||
    claims === null ||
    claims.iss !== issuer ||
    typeof claims.sub !== 'string'
  ) {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds) return { ok: false, reason: 'expired' };
  if (!Array.isArray(claims.tenants)) return { ok: false, reason: 'malformed' };
  return { ok: true, claims };
}

export function randomId(prefix: string, bytes = 12): string {
  return `${prefix}_${randomBytes(bytes).toString('hex')}`;
}
