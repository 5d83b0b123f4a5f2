/**
 * The audit trail's plain values, shared by the CLI and the sandbox (no schema code): what an
 * entry can say happened, and to what. An action is `family.verb`; a filter on the family alone
 * (`role`, `webhook`) matches every action of it.
 */
export const AUDIT_ACTIONS = [
  'role.assigned',
  'role.assignment_updated',
  'role.revoked',
  'role.created',
  'role.updated',
  'role.deleted',
  'api_key.issued',
  'api_key.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.secret_restored',
  'webhook.delivery_replayed',
  'webhook.dlq_entry_discarded',
  'oauth_client.created',
  'oauth_client.updated',
  'oauth_client.deleted',
  'oauth_client.secret_rotated',
  'oauth_client.authorized',
  'oauth_client.token_revoked',
  'webhook.test_sent',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_TARGET_TYPES = ['user', 'role', 'api_key', 'webhook', 'oauth_client'] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** The families of AUDIT_ACTIONS (`role`, `api_key`, …). */
export const AUDIT_ACTION_FAMILIES = [...new Set(AUDIT_ACTIONS.map((a) => a.split('.')[0]!))];

export const AUDIT_PAGE = { min: 1, max: 200, default: 50 } as const;
