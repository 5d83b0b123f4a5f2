import type { Tenant, User } from './domain/identity.js';

/** Who is calling: a user's JWT or OAuth access token, or an API key. */
export interface Principal {
  kind: 'jwt' | 'oauth_access_token' | 'publishable_key' | 'service_role_key';
  /** The user id, or the API key id: scopes idempotency keys and names the actor in audit logs. */
  subject: string;
  user: User | null;
  /** The tenants the credential may act in (the JWT's tenants claim, or the key's tenant). */
  tenantIds: string[];
  orgId: string | null;
  /** OAuth scopes; null when the credential is not scope-limited. */
  scopes: string[] | null;
  expiresAtMs: number | null;
  /** Roles granted by the credential itself (API keys); users' roles come from their assignments. */
  fixedRoles: string[] | null;
  clientId: string | null;
  tokenId: string | null;
  /** A service-role key's justification, written to the security events log with each call. */
  justification?: string | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `public`: no credential needed. Default: a credential is required. */
    auth?: 'public' | 'required';
    /** Whether X-Tenant-Id is required (default), optional, or ignored. */
    tenant?: 'required' | 'optional' | 'none';
    /** The caller needs one of these roles in the tenant. */
    roles?: string[];
    /** …or a role (custom ones included) granting one of these permissions. */
    permissions?: string[];
    /**
     * A scope-limited credential (OAuth access token) needs all of these scopes (or `admin`);
     * `{param}` is filled from the path. Absent: only `admin`. `[]`: any access token.
     */
    scopes?: string[];
    /** false: a POST outside the idempotency rules (the OAuth token endpoint). */
    idempotent?: boolean;
    /** true: fault injection never applies (control endpoints, HTML pages). */
    faultFree?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
    tenant: Tenant | null;
    idempotency: { scope: string; fingerprint: string } | null;
    fault: 'fail' | 'drop' | null;
  }
}
