import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HEADERS } from '../../api/constants.js';
import { OPERATIONS } from '../../api/operations.js';
import { API_KEY_ROLES } from '../../api/permissions.js';
import { canonicalTenantRef, isTenantId } from '../../api/tenant-id.js';
import { keyStopped } from '../domain/api-keys.js';
import { authorizeOperation, namedTenant } from '../domain/authorization.js';
import { DomainError } from '../domain/errors.js';
import type { Tenant } from '../domain/identity.js';
import { ApiProblem } from '../problem.js';
import type { SandboxState } from '../state.js';
import { verifyJwt } from '../tokens.js';
import type { Principal } from '../types.js';

/**
 * Resolves a bearer credential: a sandbox JWT (HS256, a `tenants` claim) — user tokens and
 * OAuth access tokens alike — or an API key (`svc_pk_…` publishable, `svc_sk_…` service role).
 * It says who calls and which tenants the credential may name; never what the caller may do.
 */
export function authenticate(state: SandboxState, token: string, issuer: string): Principal {
  if (token.startsWith('svc_pk_') || token.startsWith('svc_sk_')) {
    const key = state.identity.findApiKey(token);
    if (!key) throw new ApiProblem(401, 'invalid_token', 'unknown or revoked API key');
    const tenant = state.identity.tenantsById.get(key.tenant_id);
    const stopped = keyStopped(state, key);
    // Not revoked: the key acts again once its issuer holds its role without an end date, so the
    // 401 says so in its details (state "stopped", the key's id and tenant, its issuer), for the
    // holder of the key to be told it still needs revoking (svc logout).
    if (stopped !== undefined)
      throw new ApiProblem(401, 'invalid_token', stopped, {
        details: [
          {
            field: 'api_key',
            message:
              'the key is stopped, not revoked: it acts again once its issuer holds its role without an end date',
            state: 'stopped',
            key_id: key.id,
            tenant_id: key.tenant_id,
            // What svc names the tenant by in the revoke command it prints, as for a live key.
            ...(tenant ? { tenant_slug: tenant.slug } : {}),
            issued_by: key.created_by,
          },
        ],
      });
    return {
      kind: key.kind === 'publishable' ? 'publishable_key' : 'service_role_key',
      subject: key.id,
      user: null,
      tenantIds: [key.tenant_id],
      orgId: tenant?.org_id ?? null,
      scopes: null,
      expiresAtMs: null,
      fixedRoles: [API_KEY_ROLES[key.kind]],
      clientId: null,
      clientTenantId: null,
      tokenId: key.id,
      justification: key.justification,
      // A user, or null: a key minted by the test controls has no issuer to follow.
      issuedBy: state.identity.users.has(key.created_by) ? key.created_by : null,
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
  const clientId = typeof claims.client_id === 'string' ? claims.client_id : null;
  let tenantIds = claims.tenants.map((t) => t.id);
  let clientTenantId: string | null = null;
  let scopes = scope === undefined ? null : scope.split(' ').filter(Boolean);
  if (clientId !== null) {
    // The client as it is now: a token of a client that is gone is no token; a client created
    // in a tenant acts there and nowhere else, whatever its token says; scopes taken from the
    // client since the token was issued are gone from the token too.
    const client = state.oauth.clients.get(clientId);
    if (!client)
      throw new ApiProblem(401, 'invalid_token', 'the OAuth client of this token no longer exists');
    clientTenantId = client.tenant_id;
    if (clientTenantId !== null) tenantIds = tenantIds.filter((id) => id === clientTenantId);
    if (scopes !== null) scopes = scopes.filter((s) => client.scopes.includes(s));
  }
  return {
    kind: scope === undefined ? 'jwt' : 'oauth_access_token',
    subject: user.id,
    user,
    tenantIds,
    orgId: user.org_id,
    scopes,
    expiresAtMs: claims.exp * 1000,
    fixedRoles: null,
    clientId,
    clientTenantId,
    tokenId: claims.jti,
  };
}

/**
 * The challenge of every 401 on /v1 (RFC 6750 §3): the realm alone when no bearer token came (no
 * header, or another scheme), with error="invalid_token" when one came and was refused.
 */
const CHALLENGE = 'Bearer realm="svc"';
const INVALID_TOKEN_CHALLENGE = `${CHALLENGE}, error="invalid_token"`;

function bearer(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const headers = { 'www-authenticate': CHALLENGE };
  if (!header)
    throw new ApiProblem(401, 'unauthenticated', 'send a credential in Authorization: Bearer <token>', {
      headers,
    });
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match)
    throw new ApiProblem(401, 'invalid_token', 'Authorization must be "Bearer <token>"', { headers });
  return match[1]!;
}

/** authenticate(), its refusals carrying the invalid_token challenge. */
function authenticateBearer(state: SandboxState, token: string, issuer: string): Principal {
  try {
    return authenticate(state, token, issuer);
  } catch (error) {
    if (!(error instanceof ApiProblem) || error.status !== 401) throw error;
    throw new ApiProblem(error.status, error.code, error.message, {
      details: error.details,
      headers: { ...error.headers, 'www-authenticate': INVALID_TOKEN_CHALLENGE },
    });
  }
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `/v1/roles/:id` as the OpenAPI document writes it: `/v1/roles/{id}`. */
export function openapiPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}');
}

/**
 * Every /v1 route names its operation (config.operation) in the authorization table; the
 * sandbox refuses to start when one does not, or when the table says another method or path.
 * Each call is then authenticated, its tenant checked against the credential, and the
 * operation authorized against live state (domain/authorization.ts).
 */
export function registerAuth(app: FastifyInstance, state: SandboxState, issuer: () => string): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('tenant', null);
  app.addHook('onRoute', (route) => {
    const operation = route.config?.operation;
    const methods = [route.method].flat().filter((m) => m !== 'HEAD');
    if (methods.length === 0) return; // the HEAD twin of a GET route
    const where = `route ${methods.join(',')} ${route.url}`;
    const rule = operation === undefined ? undefined : OPERATIONS[operation];
    if (rule) {
      if (!methods.includes(rule.method) || rule.path !== openapiPath(route.url))
        throw new Error(`${where} does not match operation ${operation} of the authorization table`);
      return;
    }
    // Outside the table: public routes only, and under /v1 only ones the document hides.
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    if (route.config?.auth !== 'public' || (route.url.startsWith('/v1/') && !hidden))
      throw new Error(`${where} names no operation of the authorization table`);
  });
  app.addHook('onRequest', async (request) => {
    request.principal = null;
    request.tenant = null;
    const operation = request.routeOptions.config?.operation;
    const rule = operation === undefined ? undefined : OPERATIONS[operation];
    if (!rule || rule.access === 'public') return;
    const principal = authenticateBearer(state, bearer(request), issuer());
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
    // Tenant ids are UUIDs, case-insensitive on input (RFC 9562): compared in lower case.
    const sent = headerValue(request, HEADERS.tenant);
    const header =
      sent === undefined || rule.tenant === 'none' ? undefined : tenantIdOf(sent, HEADERS.tenant);
    let tenant: Tenant | null = null;
    if (rule.tenant === 'path') {
      // Each tenant named is checked (and a foreign one logged) before the two are compared, so a
      // probe of another tenant is in the security events log whatever header comes with it.
      const fromPath = tenantIdOf((request.params as Record<string, string>).id!, 'id');
      tenant = namedTenant(state, principal, fromPath, request.id);
      if (header !== undefined && header !== fromPath) {
        namedTenant(state, principal, header, request.id);
        throw new ApiProblem(400, 'tenant_mismatch', 'X-Tenant-Id and the tenant in the path differ');
      }
    } else if (rule.tenant !== 'none' && header !== undefined) {
      tenant = namedTenant(state, principal, header, request.id);
    } else if (rule.tenant === 'header') {
      throw new ApiProblem(400, 'tenant_header_required', 'this endpoint needs the X-Tenant-Id header');
    }
    request.tenant = tenant;
    try {
      authorizeOperation(state, principal, operation!, rule, tenant);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'insufficient_scope') throw error;
      const scope = challengeScope(rule);
      throw new ApiProblem(403, error.code, error.message, {
        details: error.details,
        headers: {
          'www-authenticate': `${CHALLENGE}, error="insufficient_scope", scope="${scope}"`,
        },
      });
    }
  });
}

/**
 * A write's credential checked again where it acts, after the time a slow backend (latency, a
 * test's hold) spent on it: a key revoked or a token ended meanwhile acts no more (attack28b F7),
 * as a role's permissions are checked again in the handlers. Registered after registerLatency.
 */
export function registerCredentialRecheck(
  app: FastifyInstance,
  state: SandboxState,
  issuer: () => string,
): void {
  app.addHook('preHandler', async (request) => {
    if (request.principal === null || READS.has(request.method)) return;
    authenticateBearer(state, bearer(request), issuer());
  });
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A tenant reference of a call (X-Tenant-Id, or the path's `{id}`) as a canonical id. Tenants are
 * named by id there (the reference: `X-Tenant-Id: <tenant_id>`, a UUID): anything else, a slug
 * included, names no tenant, whoever's it may be, so the answer is about its shape alone (400, the
 * same to every caller, nothing logged) rather than "not one of your tenants" about the caller's own.
 */
function tenantIdOf(ref: string, field: string): string {
  if (isTenantId(ref)) return canonicalTenantRef(ref);
  const message = `${ref} is not a tenant id: tenants are named by their id (a UUID), in paths and in X-Tenant-Id; GET /v1/tenants lists each with its slug`;
  throw new ApiProblem(400, 'invalid_request', message, {
    details: [{ field, message: 'not a tenant id (a UUID)' }],
  });
}

/**
 * The `scope` of a 403 insufficient_scope challenge. RFC 6750 §3 reads it as the scope the request
 * needs, all of it required; any one of an operation's scopes allows it, so the challenge names
 * one (its first, or admin when it lists none), never the alternatives as if all were needed
 * (review28c F8).
 */
export function challengeScope(rule: { scopes: readonly string[] | 'any' }): string {
  return rule.scopes === 'any' || rule.scopes.length === 0 ? 'admin' : rule.scopes[0]!;
}
