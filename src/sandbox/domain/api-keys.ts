import { API_KEY_ROLES } from '../../api/permissions.js';
import type { SandboxState } from '../state.js';
import type { Principal } from '../types.js';
import { requireHeld } from './authorization.js';
import { DomainError, notFound } from './errors.js';
import type { ApiKey, ApiKeyKind, Tenant } from './identity.js';

export const API_KEY_WARNING = 'Store this key now: it is shown only once and cannot be retrieved later.';
/** A justification says why, in at least this many characters besides surrounding spaces. */
export const JUSTIFICATION_MIN = 10;

/** A key as the API shows it: never its hash. */
export function publicKey(key: ApiKey): Omit<ApiKey, 'hash'> {
  const { hash: _hash, ...rest } = key;
  return rest;
}

/**
 * Issues a tenant API key. A key acts with the role of its kind (publishable: tenant_viewer;
 * service role: tenant_admin), so the caller must hold every permission of that role itself; a
 * service-role key needs a justification, which every call made with it writes to the security
 * events log. The key is returned once; only its hash is kept.
 */
export function issueApiKey(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  input: { kind: ApiKeyKind; name?: string | undefined; justification?: string | undefined },
  requestId: string,
): { record: ApiKey; key: string } {
  const justification = input.justification?.trim() || null;
  if (input.justification !== undefined || input.kind === 'service_role') {
    if ((justification?.length ?? 0) < JUSTIFICATION_MIN) {
      const why =
        input.kind === 'service_role' ? 'a service_role key needs a justification' : 'a justification';
      throw new DomainError('justification_required', `${why} of at least ${JUSTIFICATION_MIN} characters`, [
        {
          field: 'justification',
          message: `needs at least ${JUSTIFICATION_MIN} characters besides surrounding spaces`,
        },
      ]);
    }
  }
  const role = state.roles.get(tenant.id, API_KEY_ROLES[input.kind])!;
  requireHeld(
    state,
    principal,
    tenant.id,
    role.permissions,
    `a ${input.kind} key acts as ${role.name}; you can only issue keys whose permissions you hold`,
  );
  const issued = state.identity.createApiKey({
    tenant_id: tenant.id,
    kind: input.kind,
    name: input.name ?? `${input.kind === 'publishable' ? 'Publishable' : 'Service-role'} key`,
    created_by: principal.subject,
    justification,
  });
  const { record } = issued;
  state.audit.record({
    tenant_id: tenant.id,
    action: 'api_key.issued',
    actor: principal.subject,
    request_id: requestId,
    target_type: 'api_key',
    target_id: record.id,
    summary: `${record.kind} key ${record.name} (${record.prefix}…) issued`,
    justification,
  });
  return issued;
}

/** Revokes a key of the tenant at once; revoking twice returns the same record (and audits once). */
export function revokeApiKey(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  keyId: string,
  requestId: string,
): ApiKey {
  const key = state.identity.apiKeyById(tenant.id, keyId);
  if (!key) throw notFound(`API key ${keyId}`);
  if (key.revoked_at !== null) return key;
  key.revoked_at = state.clock.iso();
  state.audit.record({
    tenant_id: tenant.id,
    action: 'api_key.revoked',
    actor: principal.subject,
    request_id: requestId,
    target_type: 'api_key',
    target_id: key.id,
    summary: `${key.kind} key ${key.name} (${key.prefix}…) revoked`,
  });
  return key;
}
