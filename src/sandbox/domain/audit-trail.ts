import type { SandboxState } from '../state.js';
import type { StoredRecord, SurfaceRecord } from './records.js';
import type { AuditEntry } from './roles.js';

/**
 * The audit_trail record surface: a read-only view of the tenant's audit entries (role grants,
 * revocations and custom-role changes), shaped like every record so `svc records ls audit_trail`
 * reads it, in the order the entries were written.
 */
function asRecord(entry: AuditEntry): SurfaceRecord {
  return {
    id: entry.id,
    surface: 'audit_trail',
    tenant_id: entry.tenant_id,
    created_at: entry.at,
    updated_at: entry.at,
    created_by: entry.actor,
    soft_delete: false,
    deleted_at: null,
    purge_at: null,
    action: entry.action,
    actor: entry.actor,
    user_id: entry.user_id,
    role_id: entry.role_id,
    role_name: entry.role_name,
    expires_at: entry.expires_at,
    justification: entry.justification,
    request_id: entry.request_id,
  };
}

export function auditTrailRecords(state: SandboxState, tenantId: string): StoredRecord[] {
  const out: StoredRecord[] = [];
  state.roles.audit.forEach((entry, index) => {
    if (entry.tenant_id === tenantId) out.push({ seq: index + 1, record: asRecord(entry) });
  });
  return out;
}

export function auditTrailRecord(
  state: SandboxState,
  tenantId: string,
  id: string,
): SurfaceRecord | undefined {
  const entry = state.roles.audit.find((e) => e.id === id && e.tenant_id === tenantId);
  return entry ? asRecord(entry) : undefined;
}
