import { BUILTIN_TENANT_ROLES, ORG_ADMIN } from '../../api/constants.js';
import type { RoleKind } from '../../api/roles.js';

/**
 * The permission catalog: every permission a role can grant. The reference names a few
 * (exception.read, rule.write.fx, …) and leaves the catalog "not shown"; this is the sandbox's,
 * published in the OpenAPI document as x-permission-catalog.
 */
export const PERMISSION_CATALOG: Readonly<Record<string, string>> = {
  'account.read': 'Read accounts',
  'reconciliation.read': 'Read reconciliations',
  'reconciliation.write': 'Create and update reconciliations',
  'exception.read': 'Read exceptions',
  'exception.write': 'Create, update and comment on exceptions',
  'exception.assign': 'Assign exceptions to members of the team',
  'exception.override': 'Override exception assignments',
  'exception.resolve': 'Resolve exceptions of every kind',
  'exception.resolve.fx_difference': 'Resolve FX-difference exceptions',
  'rule.read': 'Read reconciliation rules',
  'rule.write': 'Create and change reconciliation rules of every kind',
  'rule.write.fx': 'Create and change FX reconciliation rules',
  'evidence_pack.read': 'Read evidence packs',
  'report.generate': 'Generate compliance reports',
  'audit_trail.read': 'Read the audit trail',
  'ai_copilot.use': 'Use every AI copilot',
  'ai_copilot.use.fx': 'Use the FX AI copilot',
  'role.read': "List roles and users' role assignments",
  'role.manage': 'Create, change and delete custom roles',
  'role.assign': 'Assign and revoke roles (only roles whose permissions the caller holds)',
  'oauth_client.manage': 'Register and manage OAuth clients',
  'webhook.read': 'Read webhooks and their deliveries',
  'webhook.manage': 'Test webhooks and replay deliveries',
  'api_key.manage': 'Issue API keys',
  'tenant.read': 'List tenants; across the organisation for org_admin',
};

/** Every permission of the catalog. */
export const ALL_PERMISSIONS = Object.keys(PERMISSION_CATALOG);
const ALL = ALL_PERMISSIONS;
const VIEWER = ['account.read', 'reconciliation.read', 'exception.read'];
const ANALYST = ['account.read', 'reconciliation.read', 'exception.read', 'exception.write'];

/** Built-in roles: the reference's catalog (meaning and key permissions), plus org_admin. */
const BUILTIN_DEFINITIONS: Record<string, { description: string; permissions: string[] }> = {
  tenant_admin: { description: 'Full administrative access', permissions: ALL },
  tenant_reviewer: {
    description: 'Senior analyst with override rights',
    permissions: [...ANALYST, 'exception.override'],
  },
  tenant_lead: {
    description: 'Team lead with assignment rights',
    permissions: [...ANALYST, 'exception.assign'],
  },
  tenant_analyst: { description: 'Day-to-day reconciliation work', permissions: ANALYST },
  tenant_rule_author: { description: 'Rule authoring', permissions: ['rule.read', 'rule.write'] },
  tenant_ai_prompter: { description: 'AI copilot user', permissions: ['ai_copilot.use'] },
  tenant_compliance: {
    description: 'Compliance officer',
    permissions: ['evidence_pack.read', 'report.generate'],
  },
  tenant_auditor: {
    description: 'Audit trail access, read-only on all data',
    permissions: [...VIEWER, 'audit_trail.read', 'rule.read', 'evidence_pack.read'],
  },
  tenant_viewer: { description: 'Read-only access', permissions: VIEWER },
  [ORG_ADMIN]: {
    description: 'Organisation administrator: cross-tenant listing',
    permissions: ['tenant.read'],
  },
};

export interface Role {
  id: string;
  name: string;
  description: string;
  kind: RoleKind;
  scope: 'tenant' | 'organization';
  permissions: string[];
  tenant_id: string | null;
  created_at: string;
  updated_at: string;
  created_by: string;
  deleted_at: string | null;
}

const BUILTIN_CREATED = '2024-01-01T00:00:00Z';

export const BUILTIN_ROLES: readonly Role[] = [...BUILTIN_TENANT_ROLES, ORG_ADMIN].map((name) => ({
  id: name,
  name,
  description: BUILTIN_DEFINITIONS[name]!.description,
  kind: 'builtin',
  scope: name === ORG_ADMIN ? 'organization' : 'tenant',
  permissions: [...BUILTIN_DEFINITIONS[name]!.permissions].sort(),
  tenant_id: null,
  created_at: BUILTIN_CREATED,
  updated_at: BUILTIN_CREATED,
  created_by: 'system',
  deleted_at: null,
}));
