import type { FastifyRequest } from 'fastify';
import type { AuditEntry, AuditInput } from '../domain/audit-trail.js';
import type { SandboxState } from '../state.js';

/**
 * Writes the audit-trail entry of a change a route made itself (webhooks, OAuth clients): the
 * tenant, the actor and the request come from the request; `changes` names changed fields.
 */
export function auditChange(
  state: SandboxState,
  request: FastifyRequest,
  entry: Omit<AuditInput, 'tenant_id' | 'actor' | 'request_id'>,
): AuditEntry {
  return state.audit.record({
    tenant_id: request.tenant!.id,
    actor: request.principal!.subject,
    request_id: request.id,
    ...entry,
  });
}
