import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HEADERS, OAUTH_FULL_ACCESS_SCOPE } from '../../api/constants.js';
import { holdsPermission } from '../domain/roles.js';
import { ApiProblem, forbidden } from '../problem.js';
import type { SandboxState } from '../state.js';
import { verifyJwt } from '../tokens.js';
import type { Principal } from '../types.js';

const KEY_ROLES = { publishable: ['tenant_viewer'], service_role: ['tenant_admin'] } as const;

/**
 * Resolves a bearer credential: a sandbox JWT (HS256, a `tenants` claim) — user tokens and
 * OAuth access tokens alike — or an API key (`svc_pk_…` publishable, `svc_sk_…` service role).
 */
export function authenticate(state: SandboxState, token: string, issuer: string): Principal {
  if (token.startsWith('svc_pk_') || token.startsWith('svc_sk_')) {
    const key = state.identity.findApiKey(token);
    if (!key) throw new ApiProblem(401, 'invalid_token', 'unknown or revoked API key');
    const tenant = state.identity.tenantsById.get(key.tenant_id);
    return {
      kind: key.kind === 'publishable' ? 'publishable_key' : 'service_role_key',
      subject: key.id,
      user: null,
      tenantIds: [key.tenant_id],
      orgId: tenant?.org_id ?? null,
      scopes: null,
      expiresAtMs: null,
      fixedRoles: [...KEY_ROLES[key.kind]],
      clientId: null,
      tokenId: key.id,
      justification: key.justification,
    };
  }
  const check = verifyJwt(token, state.jwtSecret, Math.floor(state.clock.now() / 1000), issuer);
  if (!check.ok) {
    if (check.reason === 'expired')
      throw new ApiProblem(401, 'token_expired', 'the access token has expired');
    throw new ApiProblem(401, 'invalid_token', 'the access token is not valid for this sandbox');
  }
  const claims = check.claims;
  if (state.isTokenRevoked(claims))
    throw new ApiProblem(401, 'invalid_token', 'the access token was revoked');
  const user = state.identity.users.get(claims.sub) ?? null;
  if (!user) throw new ApiProblem(401, 'invalid_token', 'the token names an unknown user');
  const scope = typeof claims.scope === 'string' ? claims.scope : undefined;
  return {
    kind: scope === undefined ? 'jwt' : 'oauth_access_token',
    subject: user.id,
    user,
    tenantIds: claims.tenants.map((t) => t.id),
    orgId: user.org_id,
    scopes: scope === undefined ? null : scope.split(' ').filter(Boolean),
    expiresAtMs: claims.exp * 1000,
    fixedRoles: null,
    clientId: typeof claims.client_id === 'string' ? claims.client_id : null,
    tokenId: claims.jti,
  };
}

/** The caller's active roles in a tenant: the key's roles, or the user's live assignments. */
export function rolesIn(state: SandboxState, principal: Principal, tenantId: string): string[] {
  if (!principal.tenantIds.includes(tenantId)) return [];
  if (principal.fixedRoles) return principal.fixedRoles;
  return principal.user ? state.identity.rolesOf(principal.user.id, tenantId) : [];
}

/**
 * The scopes a scope-limited credential lacks for a route. `admin` grants everything; a route
 * that declares no scopes needs `admin`; `[]` lets any access token in. `{param}` in a scope is
 * filled from the path (`read:{surface}` on /v1/:surface).
 */
export function missingScopes(granted: string[], required: string[] | undefined, params: unknown): string[] {
  if (granted.includes(OAUTH_FULL_ACCESS_SCOPE)) return [];
  const values = (params ?? {}) as Record<string, unknown>;
  const needed = (required ?? [OAUTH_FULL_ACCESS_SCOPE]).map((scope) =>
    scope.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? '')),
  );
  return needed.filter((scope) => !granted.includes(scope));
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiProblem(401, 'invalid_token', 'Authorization must be "Bearer <token>"');
  return match[1];
}

/**
 * Per route (see FastifyContextConfig): authenticate, check X-Tenant-Id against the
 * credential's tenants, then the caller's roles and scopes.
 */
export function registerAuth(app: FastifyInstance, state: SandboxState, issuer: () => string): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('tenant', null);
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config ?? {};
    request.principal = null;
    request.tenant = null;
    if (config.auth === 'public' || request.routeOptions.url === undefined) return;
    const token = bearer(request);
    if (!token)
      throw new ApiProblem(401, 'unauthenticated', 'send a credential in Authorization: Bearer <token>');
    const principal = authenticate(state, token, issuer());
    request.principal = principal;
    if (principal.kind === 'service_role_key') {
      state.recordSecurityEvent({
        kind: 'service_role_call',
        actor: principal.subject,
        org_id: principal.orgId,
        tenant_ids: principal.tenantIds,
        request_id: request.id,
        detail: `${request.method} ${request.url.split('?')[0]}; justification: ${principal.justification ?? '(none)'}`,
      });
    }

    const mode = config.tenant ?? 'required';
    const header = request.headers[HEADERS.tenant];
    const tenantId = typeof header === 'string' && header !== '' ? header : undefined;
    if (mode !== 'none') {
      if (!tenantId && mode === 'required') {
        throw new ApiProblem(400, 'tenant_header_required', 'this endpoint needs the X-Tenant-Id header');
      }
      if (tenantId) {
        const tenant = state.identity.tenantsById.get(tenantId);
        if (!tenant || !principal.tenantIds.includes(tenantId)) {
          throw forbidden('tenant_forbidden', `tenant ${tenantId} is not one of your credential's tenants`);
        }
        request.tenant = tenant;
      }
    }
    if (config.roles && request.tenant) {
      const held = rolesIn(state, principal, request.tenant.id);
      const allowed =
        held.some((r) => config.roles!.includes(r)) ||
        holdsPermission(state, principal, request.tenant.id, config.permissions);
      if (!allowed) {
        const alternatives = config.permissions ? ` or permission ${config.permissions.join(' or ')}` : '';
        throw forbidden(
          'insufficient_role',
          `this needs role ${config.roles.join(' or ')}${alternatives} in tenant ${request.tenant.slug}; you have ${held.join(', ') || 'no role'}`,
        );
      }
    }
    if (principal.scopes !== null) {
      const missing = missingScopes(principal.scopes, config.scopes, request.params);
      if (missing.length > 0) {
        throw forbidden('insufficient_scope', `the access token lacks scope ${missing.join(' ')}`);
      }
    }
  });
}
