/**
 * Plain values shared by the CLI and the sandbox. Kept free of schema code so the CLI bundle
 * does not load TypeBox.
 */

export const SUBSCRIPTION_TIERS = ['free', 'pro', 'enterprise'] as const;
export type SubscriptionTier = (typeof SUBSCRIPTION_TIERS)[number];

/** The reference's built-in tenant roles, highest precedence first. */
export const BUILTIN_TENANT_ROLES = [
  'tenant_admin',
  'tenant_reviewer',
  'tenant_lead',
  'tenant_analyst',
  'tenant_rule_author',
  'tenant_ai_prompter',
  'tenant_compliance',
  'tenant_auditor',
  'tenant_viewer',
] as const;

/** The organisation-level role that grants cross-tenant listing. */
export const ORG_ADMIN = 'org_admin';

export const TENANT_PAGE = { min: 1, max: 200, default: 50 } as const;

/** Headers of the reference. */
export const HEADERS = {
  tenant: 'x-tenant-id',
  org: 'x-svc-org-id',
  requestId: 'x-request-id',
  signature: 'x-svc-signature',
} as const;

/** Names of the generic record surface (/v1/{surface}). */
export const SURFACE_PATTERN = /^[a-z][a-z0-9_]{1,62}$/;

/** Path segments under /v1 that belong to other resources, never to the generic surface. */
export const RESERVED_SURFACES = [
  'me',
  'tenants',
  'roles',
  'users',
  'webhooks',
  'oauth',
  'api_keys',
] as const;

/** Fields of a record that the platform owns; everything else in a record is the caller's data. */
export const RECORD_OWNED_FIELDS = [
  'id',
  'surface',
  'tenant_id',
  'created_at',
  'updated_at',
  'created_by',
  'soft_delete',
  'deleted_at',
  'purge_at',
] as const;
