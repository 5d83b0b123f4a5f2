import type { OperationRule, RECORD_SURFACES } from './operations.js';

/**
 * Each operation of the authorization table (operations.ts) as the action a person asked for,
 * for refusals ("listing roles needs permission role.read …"): the operation ids are the API's
 * names, not words a user of the platform or of svc knows.
 */
const WORDS: Readonly<Record<string, string>> = {
  me_get: 'reading who you are',
  tenants_list: 'listing tenants',
  api_keys_create: 'issuing API keys',
  api_keys_list: 'listing API keys',
  api_keys_revoke: 'revoking API keys',
  oauth_clients_create: 'creating OAuth clients',
  oauth_clients_list: 'listing OAuth clients',
  oauth_clients_get: 'reading an OAuth client',
  oauth_clients_update: 'changing OAuth clients',
  oauth_clients_delete: 'deleting OAuth clients',
  oauth_clients_rotate_secret: 'rotating the secret of an OAuth client',
  oauth_tokens_issue: 'issuing OAuth tokens',
  oauth_tokens_revoke: 'revoking OAuth tokens',
  oauth_device_authorization: 'starting a device authorization',
  roles_list: 'listing roles',
  roles_create: 'creating custom roles',
  roles_get: 'reading a role',
  roles_update: 'changing custom roles',
  roles_delete: 'deleting custom roles',
  permissions_list: 'listing permissions',
  role_assignments_list: 'listing who holds roles',
  users_list: 'listing users',
  user_roles_list: 'reading the roles of a user',
  user_roles_assign: 'granting roles',
  user_roles_update: 'changing the expiry of a grant',
  user_roles_revoke: 'revoking roles',
  webhooks_list: 'listing webhooks',
  webhooks_create: 'creating webhooks',
  webhooks_get: 'reading a webhook',
  webhooks_update: 'changing webhooks',
  webhooks_delete: 'deleting webhooks',
  webhooks_rotate_secret: 'rotating the secret of a webhook',
  webhooks_restore_secret: 'restoring the previous secret of a webhook',
  webhooks_test: 'sending test events',
  webhook_deliveries_list: 'listing webhook deliveries',
  webhook_deliveries_get: 'reading a webhook delivery',
  webhook_deliveries_get_payload: 'reading the payload of a webhook delivery',
  webhook_deliveries_replay: 'replaying webhook deliveries',
  webhook_dlq_list: 'listing the dead-letter queue',
  webhook_dlq_get: 'reading a dead-letter entry',
  webhook_dlq_discard: 'discarding dead-letter entries',
};

/** A record surface's records, many and one (`evidence packs`, `an evidence pack`). */
const SURFACE_WORDS: Readonly<Record<keyof typeof RECORD_SURFACES, [string, string]>> = {
  accounts: ['accounts', 'an account'],
  reconciliations: ['reconciliations', 'a reconciliation'],
  exceptions: ['reconciliation exceptions', 'a reconciliation exception'],
  rules: ['reconciliation rules', 'a reconciliation rule'],
  evidence_packs: ['evidence packs', 'an evidence pack'],
  audit_trail: ['the audit trail', 'an audit trail entry'],
};

/** A record operation (`evidence_packs_get`) in words, or undefined. */
function recordWords(operationId: string): string | undefined {
  const match = /^(.+)_(list|get|create|update|delete)$/.exec(operationId);
  const surface = match && SURFACE_WORDS[match[1] as keyof typeof RECORD_SURFACES];
  if (!match || !surface) return undefined;
  const [many, one] = surface;
  const verb = match[2];
  if (verb === 'list') return match[1] === 'audit_trail' ? `reading ${many}` : `listing ${many}`;
  if (verb === 'get') return `reading ${one}`;
  return `${{ create: 'creating', update: 'changing', delete: 'deleting' }[verb!]} ${many}`;
}

/** The operation as the action asked for ("listing roles"); its id when the table does not know it. */
export function actionOf(operationId: string): string {
  return WORDS[operationId] ?? recordWords(operationId) ?? operationId;
}

/**
 * The 403 user_required refusal of an operation for users themselves only (operations.ts
 * `callers`), to an API key (`client` null) or to the token of the third-party OAuth client
 * `client`: what it would mint that outlives the client or the key (`mints`), or, for one that
 * mints nothing (listing and revoking keys), that users keep it to themselves. The sandbox refuses
 * with it and svc's plans predict it.
 */
export function callersRefusal(operationId: string, rule: OperationRule, client: string | null): string {
  const action = actionOf(operationId);
  if (client === null) {
    // Issuing keys with a key: keys cannot mint keys, which the words already say.
    return rule.mints === undefined || operationId === 'api_keys_create'
      ? `${action} is for users; API keys cannot do it`
      : `${action} is for users; API keys cannot do it: ${rule.mints} would outlive the key; ask a user to do it with their own login`;
  }
  const why =
    rule.mints !== undefined
      ? `${rule.mints} would outlive the client`
      : 'API keys are managed by users with their own login only';
  return (
    `${action} is for users themselves, not an OAuth client acting for one (this token is ${client}'s): ` +
    `${why}; ask the user to do it with their own login`
  );
}
