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
  return state.identity.createApiKey({
    tenant_id: tenant.id,
    kind: input.kind,
    name: input.name ?? `${input.kind === 'publishable' ? 'Publishable' : 'Service-role'} key`,
    created_by: principal.subject,
    justification,
  });
}

/** Revokes a key of the tenant at once; revoking twice returns the same record. */
export function revokeApiKey(state: SandboxState, tenant: Tenant, keyId: string): ApiKey {
  const key = state.identity.apiKeyById(tenant.id, keyId);
  if (!key) throw notFound(`API key ${keyId}`);
  key.revoked_at ??= state.clock.iso();
  return key;
}
