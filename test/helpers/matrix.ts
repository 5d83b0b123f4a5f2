import type { Sandbox } from '../../src/sandbox/server.js';
import { TREASURY } from './oauth.js';
import { call } from './sandbox.js';

/**
 * The pieces of the authorization matrix (test/contract/authorization-matrix.test.ts): a caller
 * of each kind, and for every operation a request that an allowed caller sees succeed, with
 * fresh fixtures where the operation consumes one.
 */

export interface Caller {
  name: string;
  token: string;
  /** A user (API keys are refused where only users may act). */
  user: boolean;
  /** The user's id (API keys have none). */
  userId?: string;
  /** The third-party OAuth client an access token acts through (refused where users themselves must act). */
  client?: string;
  /** OAuth scopes of an access token; null when not scope-limited. */
  scopes: string[] | null;
  /** Whether Acme Treasury is one of the credential's tenants. */
  namesTreasury: boolean;
  /** The permissions the caller holds live in Acme Treasury, by the document's role sets. */
  permissions: string[];
  /** Whether the caller holds a live role in any tenant. */
  member: boolean;
}

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

/** A call as the admin of Acme Treasury (fixtures), failing loudly when it does not succeed. */
export async function asAdmin(
  sandbox: Sandbox,
  method: string,
  path: string,
  body?: Record<string, unknown>,
) {
  const withKey = body && method === 'POST' ? { idempotency_key: unique('fixture'), ...body } : body;
  const r = await call(sandbox, method, path, {
    token: sandbox.adminToken,
    tenant: TREASURY,
    ...(withKey ? { body: withKey } : {}),
  });
  if (r.status >= 300) throw new Error(`fixture ${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

export interface Fixtures {
  sandbox: Sandbox;
  webhookId: string;
  deliveryId: string;
  dlqEntryId: string;
  clientId: string;
  roleId: string;
  apiKeyId: string;
  auditId: string;
  records: Record<string, string>;
  /** Users without roles, handed out one per grant. */
  nextUser: () => string;
}

export interface MatrixRequest {
  method: string;
  path: string;
  body?: Record<string, unknown>;
}

const SURFACE_OPERATION =
  /^(accounts|reconciliations|exceptions|rules|evidence_packs|audit_trail)_(list|get|create|update|delete)$/;

/**
 * The request for one operation, built from its path in the document: path parameters filled
 * from the fixtures (fresh ones where the operation deletes or revokes), a valid body.
 */
export async function requestFor(
  operationId: string,
  method: string,
  docPath: string,
  f: Fixtures,
): Promise<MatrixRequest> {
  const { sandbox } = f;
  const key = { idempotency_key: unique('matrix') };
  const surface = SURFACE_OPERATION.exec(operationId);
  const params: Record<string, string> = {};
  let body: Record<string, unknown> | undefined;
  if (surface) {
    const [, name, verb] = surface as unknown as [string, string, string];
    if (verb === 'delete') params.id = (await asAdmin(sandbox, 'POST', `/v1/${name}`, { name: 'doomed' })).id;
    else params.id = name === 'audit_trail' ? f.auditId : f.records[name]!;
    if (verb === 'create') body = { name: 'matrix', ...key };
    if (verb === 'update') body = { note: 'matrix' };
  } else {
    switch (operationId) {
      case 'api_keys_create':
        body = { kind: 'publishable', name: 'matrix', ...key };
        break;
      case 'api_keys_revoke':
        params.keyId = f.apiKeyId;
        break;
      case 'oauth_clients_create':
        body = {
          name: 'matrix',
          redirect_uris: ['https://matrix.example/cb'],
          scopes: ['read:exceptions'],
          ...key,
        };
        break;
      case 'oauth_clients_update':
        params.client_id = f.clientId;
        body = { description: unique('described') };
        break;
      case 'oauth_clients_delete':
        params.client_id = (
          await asAdmin(sandbox, 'POST', '/v1/oauth/clients', {
            name: 'doomed',
            redirect_uris: ['https://doomed.example/cb'],
            scopes: ['read:exceptions'],
          })
        ).client_id;
        break;
      case 'oauth_clients_get':
      case 'oauth_clients_rotate_secret':
        params.client_id = f.clientId;
        body = operationId.endsWith('rotate_secret') ? key : undefined;
        break;
      case 'roles_create':
        body = { name: unique('m').replace(/[^a-z0-9-]/g, ''), permissions: ['exception.read'], ...key };
        break;
      case 'roles_get':
        params.id = 'tenant_viewer';
        break;
      case 'roles_update':
        params.id = f.roleId;
        body = { description: unique('described') };
        break;
      case 'roles_delete':
        params.id = (
          await asAdmin(sandbox, 'POST', '/v1/roles', {
            name: unique('d').replace(/[^a-z0-9-]/g, ''),
            permissions: ['exception.read'],
          })
        ).id;
        break;
      case 'user_roles_list':
        params.id = 'usr_viewer';
        break;
      case 'user_roles_assign':
        params.id = f.nextUser();
        body = { role_id: 'tenant_viewer', justification: 'authorization matrix', ...key };
        break;
      case 'user_roles_update': {
        params.id = f.nextUser();
        params.roleId = 'tenant_viewer';
        const day = 24 * 3600 * 1000;
        await asAdmin(sandbox, 'POST', `/v1/users/${params.id}/roles`, {
          role_id: 'tenant_viewer',
          expires_at: new Date(Date.now() + day).toISOString(),
        });
        body = {
          expires_at: new Date(Date.now() + 7 * day).toISOString(),
          justification: 'matrix extension',
        };
        break;
      }
      case 'user_roles_revoke': {
        params.id = f.nextUser();
        params.roleId = 'tenant_viewer';
        await asAdmin(sandbox, 'POST', `/v1/users/${params.id}/roles`, { role_id: 'tenant_viewer' });
        break;
      }
      case 'webhooks_create':
        body = { url: 'http://127.0.0.1:9/matrix', event_types: ['webhook.test'], ...key };
        break;
      case 'webhooks_delete':
        params.id = (
          await asAdmin(sandbox, 'POST', '/v1/webhooks', {
            url: 'http://127.0.0.1:9/doomed',
            event_types: ['webhook.test'],
          })
        ).id;
        break;
      case 'webhooks_update':
        body = { description: 'matrix' };
        break;
      case 'webhooks_restore_secret':
      case 'webhooks_rotate_secret':
        // A webhook of its own: a webhook keeps only so many secrets rotated out within a day.
        params.id = (
          await asAdmin(sandbox, 'POST', '/v1/webhooks', {
            url: 'http://127.0.0.1:9/rotated',
            event_types: ['webhook.test'],
          })
        ).id;
        // Something to undo: a rotation by the admin just before.
        if (operationId === 'webhooks_restore_secret')
          await asAdmin(sandbox, 'POST', `/v1/webhooks/${params.id}/rotate-secret`, {});
        body = key;
        break;
      case 'webhooks_test':
      case 'webhook_deliveries_replay':
        body = key;
        break;
      default:
        break;
    }
  }
  params.id ??= docPath.includes('/tenants/{id}') ? TREASURY : f.webhookId;
  params.deliveryId ??= f.deliveryId;
  params.entryId ??= f.dlqEntryId;
  const path = docPath.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for {${name}} of ${operationId}`);
    return encodeURIComponent(value);
  });
  return { method, path, ...(body ? { body } : {}) };
}
