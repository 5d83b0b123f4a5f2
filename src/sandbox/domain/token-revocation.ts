import type { SandboxState } from '../state.js';
import { verifyJwt } from '../tokens.js';
import { auditClientGrant } from './audit-trail.js';
import { DomainError } from './errors.js';
import type { OAuthClientRecord } from './oauth.js';

/**
 * Ends a token family: the refresh token that rotates through it and every access token issued
 * with it stop working at once (the auth plugin checks the family on every call).
 */
export function revokeTokenFamily(
  state: SandboxState,
  family: string,
  requestId: string,
  detail: string,
): void {
  if (!state.revokedTokenFamilies.has(family)) state.oauth.familiesRevoked++;
  state.revokedTokenFamilies.add(family);
  state.recordSecurityEvent({
    kind: 'oauth_token_family_revoked',
    actor: 'oauth',
    org_id: null,
    tenant_ids: [],
    request_id: requestId,
    detail,
  });
}

/**
 * RFC 7009 token revocation, for a client that has authenticated: a refresh token, or an access
 * token, issued to that client ends its whole family (§2.1: revoking a refresh token also
 * invalidates the access tokens of the same grant; revoking an access token may take its refresh
 * token along, and here does, so a leaked access token can be cut off with everything it came
 * with). A token this server does not know, or one already revoked or expired, is answered as
 * revoked (§2.2: "invalid tokens do not cause an error"). A token issued to another client is
 * refused, as §2.1 requires.
 */
export function revokeToken(
  state: SandboxState,
  client: OAuthClientRecord,
  token: string,
  issuer: string,
  requestId: string,
): void {
  const refresh = state.oauth.findRefreshToken(token);
  let owner: string | undefined;
  let family: string | undefined;
  let grant: { userId: string; scopes: string[] } | undefined;
  if (refresh) {
    owner = refresh.clientId;
    family = refresh.family;
    grant = { userId: refresh.userId, scopes: refresh.scopes };
  } else {
    const check = verifyJwt(token, state.jwtSecret, Math.floor(state.clock.now() / 1000), issuer);
    if (check.ok && typeof check.claims.client_id === 'string' && typeof check.claims.fam === 'string') {
      owner = check.claims.client_id;
      family = check.claims.fam;
      const scope = typeof check.claims.scope === 'string' ? check.claims.scope : '';
      if (typeof check.claims.sub === 'string') {
        grant = { userId: check.claims.sub, scopes: scope.split(' ').filter(Boolean) };
      }
    }
  }
  if (owner === undefined || family === undefined) return;
  if (owner !== client.client_id) {
    throw new DomainError('invalid_request', 'the token was not issued to this client');
  }
  if (state.revokedTokenFamilies.has(family)) return;
  revokeTokenFamily(state, family, requestId, `${client.client_id} revoked a token of its own (RFC 7009)`);
  if (grant) auditClientGrant(state.audit, client, { kind: 'token_revoked', ...grant }, requestId);
}

/**
 * Whether a user's grant to a client has ended: every token family issued to the client for the
 * user was revoked (RFC 7009 by the client, a refresh token or code presented twice). A webhook
 * set up through the client rests on that grant (webhook-owner.ts). False while one family is
 * not revoked (expiry alone does not end it), and for a pair that was never issued a token.
 */
export function grantRevoked(state: SandboxState, clientId: string, userId: string): boolean {
  const families = state.oauth.familiesOf(clientId, userId);
  return families.size > 0 && [...families].every((f) => state.revokedTokenFamilies.has(f));
}
