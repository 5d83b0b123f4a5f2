import { heldUntil as heldUntilOf, missingPermissions } from '../../api/holds.js';
import { API_KEY_ROLES } from '../../api/permissions.js';
import { HANDS_OUT, STANDING_CREDENTIAL, standingRefusal } from '../../api/standing-credentials.js';
import { isoSeconds } from '../../api/time.js';
import type { SandboxState } from '../state.js';
import type { Principal } from '../types.js';
import { actorOf } from './audit-trail.js';
import {
  heldGrants,
  heldUntil,
  livePermissions,
  requireHeld,
  userGrants,
  userPermissions,
} from './authorization.js';
import { DomainError, notFound } from './errors.js';
import type { ApiKey, ApiKeyKind, Tenant } from './identity.js';

export const API_KEY_WARNING = 'Store this key now: it is shown only once and cannot be retrieved later.';
/** A justification says why, in at least this many characters besides surrounding spaces. */
export const JUSTIFICATION_MIN = 10;

/** A key as the API shows it: never its hash. */
/** A key as the API shows it: no hash, and why it does not act (keyStopped) while it is not revoked. */
export function publicKey(
  state: SandboxState,
  key: ApiKey,
): Omit<ApiKey, 'hash'> & { stopped_reason: string | null } {
  const { hash: _hash, ...rest } = key;
  const stopped = key.revoked_at === null ? keyStopped(state, key) : undefined;
  return { ...rest, stopped_reason: stopped ?? null };
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
  const role = keyRole(state, tenant, input.kind);
  requireHeld(
    state,
    principal,
    tenant.id,
    role.permissions,
    `a ${input.kind} key acts as ${role.name}; you can only issue keys whose permissions you hold`,
  );
  // A key lasts until it is revoked: whoever holds its permissions only for a while (a
  // just-in-time grant) would hand out access that outlives their own.
  const bound = heldUntil(state, principal, tenant.id, role.permissions);
  if (bound !== null) {
    throw new DomainError(
      'insufficient_permission',
      `a ${input.kind} key acts as ${role.name} until it is revoked, and you hold the permissions of ${role.name} only until ${isoSeconds(bound)}; ` +
        'a key cannot outlive your own access: ask someone who holds them without an end date to issue it',
    );
  }
  // The one standing-credential rule (standing-credentials.ts): api_key.manage itself held without an end date.
  const standing = standingRefusal(
    STANDING_CREDENTIAL.apiKey,
    HANDS_OUT.apiKey,
    heldGrants(state, principal, tenant.id),
  );
  if (standing !== undefined) throw new DomainError('insufficient_permission', standing);
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
    ...actorOf(principal),
    request_id: requestId,
    target_type: 'api_key',
    target_id: record.id,
    summary: `${record.kind} key ${record.name} (${record.prefix}…) issued`,
    justification,
  });
  return issued;
}

/**
 * Why a key does not act now, as the 401 says it, or undefined: a key acts only while the user who
 * issued it holds every permission of the role it acts as without an end date — the condition of
 * minting it. So it keeps no authority its issuer has lost (a role taken away, a grant ended), is
 * not used to give its issuer back what was taken, and hands out nothing for longer than its
 * issuer holds it: a key counts as holding its role with no end (authorization.ts, heldGrants), so
 * an issuer wound down to an end date, or holding the role again only just in time, stops it (else
 * through it they would grant permanently, move expiries to never and widen roles held
 * permanently, all refused to them directly). Keys the sandbox's test controls mint (issuer
 * "sandbox") have no user behind them and are not bound.
 */
export function keyStopped(state: SandboxState, key: ApiKey): string | undefined {
  const tenant = state.identity.tenantsById.get(key.tenant_id);
  if (!state.identity.users.has(key.created_by) || !tenant) return undefined;
  const role = keyRole(state, tenant, key.kind);
  const rule = `this API key acts only while ${key.created_by}, who issued it, holds every permission of ${role.name} without an end date`;
  const lacks = lacksForKey(userPermissions(state, key.created_by, key.tenant_id), state, tenant, key.kind);
  if (lacks.length > 0)
    return `${rule}; they no longer hold ${lacks.join(', ')}: have a current admin issue a new key`;
  const bound = heldUntilOf(userGrants(state, key.created_by, key.tenant_id), role.permissions);
  if (bound === null) return undefined;
  return `${rule}; they hold them only until ${isoSeconds(bound)}: have someone who holds them without an end date issue a new key`;
}

/** The role a key of this kind acts as in the tenant. */
function keyRole(state: SandboxState, tenant: Tenant, kind: ApiKeyKind) {
  return state.roles.get(tenant.id, API_KEY_ROLES[kind])!;
}

/** What of the role a key of this kind acts as is not among `held`. */
function lacksForKey(held: Set<string>, state: SandboxState, tenant: Tenant, kind: ApiKeyKind): string[] {
  return missingPermissions(held, keyRole(state, tenant, kind).permissions);
}

/**
 * The tenant's keys the caller may manage, newest first: only keys whose role's permissions the
 * caller holds (a key manager without tenant_admin's permissions does not see service-role keys,
 * nor their justifications), and how many it leaves out.
 */
export function listApiKeys(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
): { items: ApiKey[]; withheld: number } {
  // Key management (issue, list, revoke) is bounded by the key's authority, as handing out roles is.
  const held = livePermissions(state, principal, tenant.id);
  const all = state.identity.apiKeysOf(tenant.id);
  const items = all.filter((key) => lacksForKey(held, state, tenant, key.kind).length === 0);
  return { items, withheld: all.length - items.length };
}

/**
 * Revokes a key of the tenant at once; revoking twice returns the same record (and audits once).
 * Taking a key away takes its authority away from whatever uses it: the caller must hold every
 * permission of the role it acts as (403 insufficient_permission), as to issue it.
 */
export function revokeApiKey(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  keyId: string,
  requestId: string,
): ApiKey {
  const key = state.identity.apiKeyById(tenant.id, keyId);
  if (!key) throw notFound(`API key ${keyId}`);
  const role = keyRole(state, tenant, key.kind);
  requireHeld(
    state,
    principal,
    tenant.id,
    role.permissions,
    `a ${key.kind} key acts as ${role.name}; you can only revoke keys whose permissions you hold`,
  );
  if (key.revoked_at !== null) return key;
  key.revoked_at = state.clock.iso();
  key.revoked_by = actorOf(principal).actor;
  state.audit.record({
    tenant_id: tenant.id,
    action: 'api_key.revoked',
    ...actorOf(principal),
    request_id: requestId,
    target_type: 'api_key',
    target_id: key.id,
    summary: `${key.kind} key ${key.name} (${key.prefix}…) revoked`,
  });
  return key;
}
