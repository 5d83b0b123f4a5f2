import type { FastifyRequest } from 'fastify';
import { type AuditEntry, type AuditInput, actorOf } from '../domain/audit-trail.js';
import type { SandboxState } from '../state.js';

/**
 * Writes the audit-trail entry of a change a route made itself (webhooks, OAuth clients): the
 * tenant, the actor (with the OAuth client it acted through) and the request come from the request; `changes` names changed fields.
 */
export function auditChange(
  state: SandboxState,
  request: FastifyRequest,
  entry: Omit<AuditInput, 'tenant_id' | 'actor' | 'request_id'>,
): AuditEntry {
  return state.audit.record({
    tenant_id: request.tenant!.id,
    ...actorOf(request.principal!),
    request_id: request.id,
    ...entry,
  });
}
