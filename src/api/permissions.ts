import { type BUILTIN_TENANT_ROLES, type EventType, ORG_ADMIN } from './constants.js';

/**
 * The permission catalog and the built-in roles' permission sets: plain values shared by the
 * operation table (operations.ts), the sandbox, its OpenAPI document (x-permission-catalog,
 * x-role-permissions) and the tests. The reference names a few permissions (exception.read,
 * rule.write.fx, …) and leaves the catalog "not shown"; this is the sandbox's.
 */
export const PERMISSION_CATALOG: Readonly<Record<string, string>> = {
  'account.read': 'Read accounts',
  'account.write': 'Create, update and delete accounts',
  'reconciliation.read': 'Read reconciliations',
  'reconciliation.write': 'Create, update and delete reconciliations',
  'exception.read': 'Read exceptions',
  'exception.write':
    'Create, update, comment on, resolve and delete exceptions (assigning, and resolving a kind with its own resolve permission, take their own)',
  'exception.assign': 'Assign exceptions to members of the team, and change or remove an assignment',
  'exception.override': 'Override exception assignments: change or remove an assignment already made',
  'exception.resolve': 'Resolve (and reopen) exceptions of every kind',
  'exception.resolve.fx_difference': 'Resolve FX-difference exceptions',
  'rule.read': 'Read reconciliation rules',
  'rule.write': 'Create, change and delete reconciliation rules of every kind',
  'rule.write.fx': 'Create and change FX reconciliation rules (kind fx)',
  'evidence_pack.read': 'Read evidence packs',
  'evidence_pack.write': 'Create, update and delete evidence packs',
  'report.generate': 'Generate compliance reports',
  'audit_trail.read': 'Read the audit trail',
  'ai_copilot.use': 'Use every AI copilot',
  'ai_copilot.use.fx': 'Use the FX AI copilot',
  'role.read': "List roles and users' role assignments",
  'role.manage': 'Create, change and delete custom roles (only with permissions the caller holds)',
  'role.assign': 'Assign and revoke roles (only roles whose permissions the caller holds)',
  'oauth_client.manage': 'Register and manage OAuth clients',
  'webhook.read':
    "Read webhooks, their deliveries and dead-letter queues (a delivery's payload also takes its data's read permission)",
  'webhook.manage':
    "Create, change and delete webhooks, rotate their secrets, send test events, replay and discard deliveries (creating one or rotating its secret, a standing credential, takes webhook.manage held without an end date; pointing a webhook at data takes that data's read permission held without an end date; replaying a delivery takes it held now, a just-in-time grant too)",
  'api_key.manage': 'Issue, list and revoke API keys (only keys whose authority the caller holds)',
  'tenant.read':
    'List every tenant of the organisation: an organisation permission, granted by org_admin only (org_role), never by a tenant role',
};

export const ALL_PERMISSIONS: readonly string[] = Object.keys(PERMISSION_CATALOG);

/**
 * Permissions of the organisation, not of a tenant: cross-tenant listing is decided by a user's
 * org_role (org_admin), so no tenant role holds them — not tenant_admin, not a custom role (a
 * tenant custom role carrying one is refused, as it would grant nothing).
 */
export const ORGANIZATION_PERMISSIONS: readonly string[] = ['tenant.read'];

/** The permissions a tenant role may hold: the catalog without the organisation's. */
export const TENANT_PERMISSIONS: readonly string[] = ALL_PERMISSIONS.filter(
  (p) => !ORGANIZATION_PERMISSIONS.includes(p),
);

/** Where a permission applies: the catalog's `scope`, as a role's. */
export const permissionScope = (permission: string): 'tenant' | 'organization' =>
  ORGANIZATION_PERMISSIONS.includes(permission) ? 'organization' : 'tenant';

/** Why a tenant role cannot carry this permission, or undefined when it can. */
export function organizationPermissionRefusal(permission: string): string | undefined {
  return ORGANIZATION_PERMISSIONS.includes(permission)
    ? `${permission} is an organisation permission (org_admin): no tenant role can grant it; an organisation administrator sets org_role`
    : undefined;
}

const VIEWER = ['account.read', 'reconciliation.read', 'exception.read'];
const ANALYST = [...VIEWER, 'exception.write'];

/** Built-in roles: the reference's catalog (meaning and key permissions), plus org_admin. */
export const BUILTIN_ROLE_DEFINITIONS: Readonly<
  Record<
    (typeof BUILTIN_TENANT_ROLES)[number] | typeof ORG_ADMIN,
    { description: string; permissions: readonly string[] }
  >
> = {
  tenant_admin: { description: 'Full administrative access', permissions: TENANT_PERMISSIONS },
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

/** What API keys act with in their tenant (publishable: read-only; service role: everything). */
export const API_KEY_ROLES = { publishable: 'tenant_viewer', service_role: 'tenant_admin' } as const;

/**
 * The permission that reads the data each event kind carries (null: the kind carries no tenant
 * data). A webhook sends its kinds' data to its URL, so choosing that URL or those kinds, replaying
 * a stored delivery, or reading a delivery's payload takes this permission, as reading the records
 * does (src/api/channel-holds.ts, channelRefusal): webhook.manage and webhook.read alone read no data.
 */
export const EVENT_READ_PERMISSIONS: Readonly<Record<EventType, string | null>> = {
  'exception.sla.breached': 'exception.read',
  'exception.created': 'exception.read',
  'exception.assigned': 'exception.read',
  'exception.resolved': 'exception.read',
  'reconciliation.completed': 'reconciliation.read',
  'reconciliation.failed': 'reconciliation.read',
  'webhook.test': null,
};

/** The read permissions of these event kinds' data, sorted, each once (a kind not in the table: none known). */
export function eventReadPermissions(kinds: Iterable<string>): string[] {
  const needed = [...kinds]
    .map((k) => EVENT_READ_PERMISSIONS[k as EventType])
    .filter((p): p is string => typeof p === 'string');
  return [...new Set(needed)].sort();
}
