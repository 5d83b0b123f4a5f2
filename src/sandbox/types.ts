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
  /** The tenant the OAuth client was created in (its tokens act only there); null otherwise. */
  clientTenantId: string | null;
  tokenId: string | null;
  /** A service-role key's justification, written to the security events log with each call. */
  justification?: string | null;
  /** The user who issued an API key (null: minted by the test controls): nobody grants themselves a role through a key they issued. */
  issuedBy?: string | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The operationId: for /v1 routes, a row of the authorization table (src/api/operations.ts),
     * which says what a call needs; elsewhere the operationId the OpenAPI document shows.
     */
    operation?: string;
    /** `public`: no credential needed (every route outside the table must say so). */
    auth?: 'public';
    /** false: a POST outside the idempotency rules (the OAuth endpoints). */
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
