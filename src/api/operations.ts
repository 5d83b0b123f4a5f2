// Over 300 lines on purpose: the authorization table is one list of plain rows, read top to
// bottom; splitting it would hide an operation from the one place that names them all.
import { OAUTH_FULL_ACCESS_SCOPE } from './constants.js';
import { TENANT_PERMISSIONS } from './permissions.js';

/**
 * The authorization table: every /v1 operation of the platform, by operationId, with what a
 * call needs. The sandbox enforces it (src/sandbox/plugins/auth.ts), its OpenAPI document
 * publishes it (x-svc-authorization on each operation, x-oauth-scopes), and the authorization
 * matrix test derives its expectations from that document. Adding an operation is one row here
 * and a route whose config names the operationId (the sandbox refuses to start otherwise).
 *
 * Plain values only, so the CLI may import it without loading schema code.
 */

/** Where the tenant of a call comes from. */
export type TenantSource =
  /** X-Tenant-Id, required. */
  | 'header'
  /** X-Tenant-Id, optional; when sent it must be one of the credential's tenants. */
  | 'optional'
  /** The path parameter `id` (X-Tenant-Id, when also sent, must name the same tenant). */
  | 'path'
  /** Not tenant-scoped. */
  | 'none';

export interface OperationRule {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** The path as the OpenAPI document writes it (`/v1/roles/{id}`). */
  readonly path: string;
  /** `public`: no bearer credential (the OAuth endpoints authenticate the client themselves). */
  readonly access: 'public' | 'authenticated';
  /**
   * The permission (from the catalog) the caller's live roles must grant in the tenant, checked
   * on every call; null: any authenticated caller (what the operation shows is then limited to
   * the caller's live memberships).
   */
  readonly permission: string | null;
  readonly tenant: TenantSource;
  /**
   * OAuth access tokens: the scopes that allow the operation besides `admin` (which allows every
   * operation the user's roles allow); `any`: every access token. Scopes only narrow what the
   * user's live roles allow; they never add to it.
   */
  readonly scopes: readonly string[] | 'any';
  /**
   * `users`: users themselves only — refused to API keys (keys cannot manage keys, so a leaked key
   * cannot make itself permanent) and to third-party OAuth clients' tokens (an integration cannot
   * turn its revocable, delegated access into a key that outlives the client). Every operation
   * that mints or re-points a standing credential is one: an API key, an OAuth client, its secret,
   * its redirect URIs and scopes, a webhook's signing secret (see `mints`).
   */
  readonly callers: 'any' | 'users';
  /**
   * For a `users` operation that mints or re-points a standing credential: what, as its refusal
   * says it ("<mints> would outlive the client" / "the key"). Absent: the operation mints nothing
   * and is kept to users all the same (listing and revoking API keys).
   */
  readonly mints?: string;
  /** The caller must hold a live role in at least one tenant (403 no_tenant_membership otherwise). */
  readonly membership: boolean;
}

type Row = Omit<OperationRule, 'access' | 'callers' | 'membership'> &
  Partial<Pick<OperationRule, 'access' | 'callers' | 'membership'>>;

/**
 * A row that mints or re-points a standing credential (`what`): for users themselves only, so
 * nothing made through a third-party client's token or an API key outlives that client or key
 * (attack17 A4: an admin-scope client, another integration's secret and redirect URI, a
 * webhook's signing secret, all left behind by a revoked vendor).
 */
const minting = (what: string, row: Row): OperationRule =>
  authenticated({ ...row, callers: 'users', mints: what });

const authenticated = (row: Row): OperationRule => ({
  access: 'authenticated',
  callers: 'any',
  membership: false,
  ...row,
});
const publicRow = (method: OperationRule['method'], path: string): OperationRule => ({
  method,
  path,
  access: 'public',
  permission: null,
  tenant: 'none',
  scopes: 'any',
  callers: 'any',
  membership: false,
});

/**
 * The record surfaces of a tenant (the reference's generic /v1/{surface} pattern, with the
 * surfaces the platform has): each with the permission to read and to write it, and the OAuth
 * scope that lets integrations read it. `write: null` is a read-only surface (POST, PATCH and
 * DELETE answer 405). Any other name under /v1 is 404.
 */
export const RECORD_SURFACES: Readonly<
  Record<string, { read: string; write: string | null; readScope: string | null; description: string }>
> = {
  accounts: { read: 'account.read', write: 'account.write', readScope: null, description: 'Accounts' },
  reconciliations: {
    read: 'reconciliation.read',
    write: 'reconciliation.write',
    readScope: 'read:reconciliations',
    description: 'Reconciliations',
  },
  exceptions: {
    read: 'exception.read',
    write: 'exception.write',
    readScope: 'read:exceptions',
    description: 'Reconciliation exceptions',
  },
  rules: { read: 'rule.read', write: 'rule.write', readScope: null, description: 'Reconciliation rules' },
  evidence_packs: {
    read: 'evidence_pack.read',
    write: 'evidence_pack.write',
    readScope: null,
    description: 'Evidence packs',
  },
  audit_trail: {
    read: 'audit_trail.read',
    write: null,
    readScope: null,
    description:
      'The audit trail (read-only: role grants, expiry changes and revocations, custom-role changes, API keys, webhook and OAuth client changes)',
  },
};

function surfaceRows(): Record<string, OperationRule> {
  const rows: Record<string, OperationRule> = {};
  for (const [surface, s] of Object.entries(RECORD_SURFACES)) {
    const read = { permission: s.read, tenant: 'header' as const, scopes: s.readScope ? [s.readScope] : [] };
    rows[`${surface}_list`] = authenticated({ method: 'GET', path: `/v1/${surface}`, ...read });
    rows[`${surface}_get`] = authenticated({ method: 'GET', path: `/v1/${surface}/{id}`, ...read });
    if (s.write === null) continue;
    const write = { permission: s.write, tenant: 'header' as const, scopes: [] };
    rows[`${surface}_create`] = authenticated({ method: 'POST', path: `/v1/${surface}`, ...write });
    rows[`${surface}_update`] = authenticated({ method: 'PATCH', path: `/v1/${surface}/{id}`, ...write });
    rows[`${surface}_delete`] = authenticated({ method: 'DELETE', path: `/v1/${surface}/{id}`, ...write });
  }
  return rows;
}

const webhook = (method: OperationRule['method'], path: string, permission: string) =>
  authenticated({ method, path: `/v1/webhooks${path}`, permission, tenant: 'header', scopes: [] });

export const OPERATIONS: Readonly<Record<string, OperationRule>> = {
  me_get: authenticated({
    method: 'GET',
    path: '/v1/me',
    permission: null,
    tenant: 'optional',
    scopes: 'any',
  }),
  tenants_list: authenticated({
    method: 'GET',
    path: '/v1/tenants',
    permission: null,
    tenant: 'optional',
    scopes: ['read:tenants'],
    membership: true,
  }),
  api_keys_create: minting('an API key', {
    method: 'POST',
    path: '/v1/tenants/{id}/api-keys',
    permission: 'api_key.manage',
    tenant: 'path',
    scopes: [],
  }),
  api_keys_list: authenticated({
    method: 'GET',
    path: '/v1/tenants/{id}/api-keys',
    permission: 'api_key.manage',
    tenant: 'path',
    scopes: [],
    callers: 'users',
  }),
  api_keys_revoke: authenticated({
    method: 'DELETE',
    path: '/v1/tenants/{id}/api-keys/{keyId}',
    permission: 'api_key.manage',
    tenant: 'path',
    scopes: [],
    callers: 'users',
  }),

  oauth_clients_create: minting('an OAuth client and its secret', {
    method: 'POST',
    path: '/v1/oauth/clients',
    permission: 'oauth_client.manage',
    tenant: 'header',
    scopes: [],
  }),
  oauth_clients_list: authenticated({
    method: 'GET',
    path: '/v1/oauth/clients',
    permission: 'oauth_client.manage',
    tenant: 'header',
    scopes: [],
  }),
  oauth_clients_get: authenticated({
    method: 'GET',
    path: '/v1/oauth/clients/{client_id}',
    permission: 'oauth_client.manage',
    tenant: 'header',
    scopes: [],
  }),
  oauth_clients_update: minting(
    "a client's settings (where its codes go, what its tokens reach, how long they last)",
    {
      method: 'PATCH',
      path: '/v1/oauth/clients/{client_id}',
      permission: 'oauth_client.manage',
      tenant: 'header',
      scopes: [],
    },
  ),
  oauth_clients_delete: authenticated({
    method: 'DELETE',
    path: '/v1/oauth/clients/{client_id}',
    permission: 'oauth_client.manage',
    tenant: 'header',
    scopes: [],
  }),
  oauth_clients_rotate_secret: minting("a client's new secret", {
    method: 'POST',
    path: '/v1/oauth/clients/{client_id}/rotate-secret',
    permission: 'oauth_client.manage',
    tenant: 'header',
    scopes: [],
  }),
  oauth_tokens_issue: publicRow('POST', '/v1/oauth/token'),
  oauth_tokens_revoke: publicRow('POST', '/v1/oauth/revoke'),
  oauth_device_authorization: publicRow('POST', '/v1/oauth/device_authorization'),

  roles_list: authenticated({
    method: 'GET',
    path: '/v1/roles',
    permission: 'role.read',
    tenant: 'header',
    scopes: [],
  }),
  roles_create: authenticated({
    method: 'POST',
    path: '/v1/roles',
    permission: 'role.manage',
    tenant: 'header',
    scopes: [],
  }),
  roles_get: authenticated({
    method: 'GET',
    path: '/v1/roles/{id}',
    permission: 'role.read',
    tenant: 'header',
    scopes: [],
  }),
  roles_update: authenticated({
    method: 'PATCH',
    path: '/v1/roles/{id}',
    permission: 'role.manage',
    tenant: 'header',
    scopes: [],
  }),
  roles_delete: authenticated({
    method: 'DELETE',
    path: '/v1/roles/{id}',
    permission: 'role.manage',
    tenant: 'header',
    scopes: [],
  }),
  permissions_list: authenticated({
    method: 'GET',
    path: '/v1/permissions',
    permission: 'role.read',
    tenant: 'header',
    scopes: [],
  }),
  role_assignments_list: authenticated({
    method: 'GET',
    path: '/v1/role-assignments',
    permission: 'role.read',
    tenant: 'header',
    scopes: [],
  }),
  users_list: authenticated({
    method: 'GET',
    path: '/v1/users',
    permission: 'role.read',
    tenant: 'header',
    scopes: [],
  }),
  user_roles_list: authenticated({
    method: 'GET',
    path: '/v1/users/{id}/roles',
    permission: 'role.read',
    tenant: 'header',
    scopes: [],
  }),
  user_roles_assign: authenticated({
    method: 'POST',
    path: '/v1/users/{id}/roles',
    permission: 'role.assign',
    tenant: 'header',
    scopes: [],
  }),
  user_roles_update: authenticated({
    method: 'PATCH',
    path: '/v1/users/{id}/roles/{roleId}',
    permission: 'role.assign',
    tenant: 'header',
    scopes: [],
  }),
  user_roles_revoke: authenticated({
    method: 'DELETE',
    path: '/v1/users/{id}/roles/{roleId}',
    permission: 'role.assign',
    tenant: 'header',
    scopes: [],
  }),

  webhooks_list: webhook('GET', '', 'webhook.read'),
  webhooks_create: webhook('POST', '', 'webhook.manage'),
  webhooks_get: webhook('GET', '/{id}', 'webhook.read'),
  webhooks_update: webhook('PATCH', '/{id}', 'webhook.manage'),
  webhooks_delete: webhook('DELETE', '/{id}', 'webhook.manage'),
  webhooks_rotate_secret: minting("a webhook's new signing secret", {
    method: 'POST',
    path: '/v1/webhooks/{id}/rotate-secret',
    permission: 'webhook.manage',
    tenant: 'header',
    scopes: [],
  }),
  // Undoing a rotation puts a secret back into use: as a rotation, a user's own (review18 R18-7:
  // a vendor's other client brought back the secret a deleted vendor held after the admin rotated it).
  webhooks_restore_secret: minting("a webhook's earlier signing secret", {
    method: 'POST',
    path: '/v1/webhooks/{id}/restore-secret',
    permission: 'webhook.manage',
    tenant: 'header',
    scopes: [],
  }),
  webhooks_test: webhook('POST', '/{id}/test', 'webhook.manage'),
  webhook_deliveries_list: webhook('GET', '/{id}/deliveries', 'webhook.read'),
  webhook_deliveries_get: webhook('GET', '/{id}/deliveries/{deliveryId}', 'webhook.read'),
  webhook_deliveries_get_payload: webhook('GET', '/{id}/deliveries/{deliveryId}/payload', 'webhook.read'),
  webhook_deliveries_replay: webhook('POST', '/{id}/deliveries/{deliveryId}/replay', 'webhook.manage'),
  webhook_dlq_list: webhook('GET', '/{id}/dlq', 'webhook.read'),
  webhook_dlq_get: webhook('GET', '/{id}/dlq/{entryId}', 'webhook.read'),
  webhook_dlq_discard: webhook('DELETE', '/{id}/dlq/{entryId}', 'webhook.manage'),

  ...surfaceRows(),
};

/** The operationId of a method and OpenAPI path, if the table has one. */
export function operationIdOf(method: string, path: string): string | undefined {
  return Object.keys(OPERATIONS).find(
    (id) => OPERATIONS[id]!.method === method && OPERATIONS[id]!.path === path,
  );
}

/** Whether an access token with `granted` scopes may call the operation (roles permitting). */
export function scopesAllow(rule: OperationRule, granted: readonly string[]): boolean {
  if (rule.scopes === 'any' || granted.includes(OAUTH_FULL_ACCESS_SCOPE)) return true;
  return rule.scopes.some((scope) => granted.includes(scope));
}

/** scope → the operations it allows besides `admin` (published as x-oauth-scopes). */
export function operationsByScope(scopes: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const scope of scopes) {
    out[scope] = Object.entries(OPERATIONS)
      .filter(([, rule]) => rule.access === 'authenticated')
      .filter(
        ([, rule]) =>
          scope === OAUTH_FULL_ACCESS_SCOPE || rule.scopes === 'any' || rule.scopes.includes(scope),
      )
      .map(([id]) => id);
  }
  return out;
}

/**
 * The permissions OAuth scopes reach, sorted, each once: what a token with them may use of its
 * approving user's roles, from this table — `admin` every tenant permission of the catalog (a
 * full tenant admin's; not the organisation's, which no tenant role holds), another scope the permissions of the operations it allows (`read:exceptions`:
 * exception.read; `read:tenants`: none, its listing needs only a membership). Putting a scope into
 * an OAuth client hands out what it reaches (src/api/client-reach.ts, clientReachRefusal).
 */
export function scopePermissions(scopes: readonly string[]): string[] {
  if (scopes.includes(OAUTH_FULL_ACCESS_SCOPE)) return [...TENANT_PERMISSIONS].sort();
  const reached = Object.values(OPERATIONS)
    .filter((rule) => rule.access === 'authenticated' && rule.scopes !== 'any')
    .filter((rule) => (rule.scopes as readonly string[]).some((s) => scopes.includes(s)))
    .map((rule) => rule.permission)
    .filter((p): p is string => p !== null);
  return [...new Set(reached)].sort();
}
