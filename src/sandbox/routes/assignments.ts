import type { FastifyInstance } from 'fastify';
import { grantsPermission } from '../../api/roles.js';
import type { RoleAssignment } from '../../api/schemas/roles.js';
import {
  AssignmentCreateBody,
  AssignmentListQuery,
  RoleAssignmentList,
  RoleAssignment as RoleAssignmentSchema,
  UserParams,
  UserRoleParams,
} from '../../api/schemas/roles.js';
import { isoSeconds } from '../../api/time.js';
import type { Assignment, Tenant, User } from '../domain/identity.js';
import { callerPermissions, callerRoleIds } from '../domain/roles.js';
import { ApiProblem, notFound } from '../problem.js';
import type { SandboxState } from '../state.js';
import type { Principal } from '../types.js';
import { errorResponses, type RouteContext } from './context.js';

const ADMIN = ['tenant_admin'];
const tags = ['role assignments'];

/** The assignment as the API shows it: the record, its current role name and its status. */
export function assignmentView(
  state: SandboxState,
  a: Assignment,
  nowMs = state.clock.now(),
): RoleAssignment {
  const role = state.roles.get(a.tenant_id, a.role_id);
  const status =
    a.revoked_at !== null
      ? 'revoked'
      : !state.roles.isLive(a.tenant_id, a.role_id)
        ? 'role_deleted'
        : a.expires_at !== null && Date.parse(a.expires_at) <= nowMs
          ? 'expired'
          : 'active';
  return {
    user_id: a.user_id,
    role_id: a.role_id,
    role_name: role?.name ?? a.role_name,
    tenant_id: a.tenant_id,
    assigned_by: a.assigned_by,
    assigned_at: a.assigned_at,
    expires_at: a.expires_at,
    justification: a.justification ?? null,
    audit_trail_id: a.audit_trail_id,
    status,
    revoked_at: a.revoked_at,
    revoked_by: a.revoked_by ?? null,
    revocation_audit_trail_id: a.revocation_audit_trail_id ?? null,
  };
}

/** A user of the tenant's organisation (users of other organisations do not exist here). */
function findUser(state: SandboxState, tenant: Tenant, id: string): User {
  const user = state.identity.users.get(id);
  if (!user || user.org_id !== tenant.org_id) throw notFound(`user ${id}`);
  return user;
}

/**
 * A caller without tenant_admin (one allowed in by permission role.assign) may only grant or
 * revoke roles whose permissions it holds itself, so role.assign cannot escalate.
 */
function checkEscalation(
  state: SandboxState,
  principal: Principal,
  tenantId: string,
  permissions: string[],
): void {
  if (callerRoleIds(state, principal, tenantId).includes('tenant_admin')) return;
  const held = [...callerPermissions(state, principal, tenantId)];
  const missing = permissions.filter((p) => !grantsPermission(held, p));
  if (missing.length > 0) {
    throw new ApiProblem(
      403,
      'insufficient_permission',
      `you can only grant or revoke roles whose permissions you hold; you lack ${missing.join(', ')}`,
    );
  }
}

export default function assignmentRoutes(app: FastifyInstance, { state }: RouteContext): void {
  const { identity, roles } = state;

  app.get<{ Params: { id: string }; Querystring: { include_inactive?: boolean } }>(
    '/v1/users/:id/roles',
    {
      config: { roles: ADMIN, permissions: ['role.read'] },
      schema: {
        tags,
        summary: "List a user's role assignments in the tenant",
        description:
          'Not in the reference: the documented way to read assignments. Caller needs role tenant_admin or permission role.read. ' +
          'Active assignments, oldest first; include_inactive=true adds expired, revoked and role-deleted ones (see status). ' +
          'Unknown user (or a user of another organisation): 404 not_found.',
        params: UserParams,
        querystring: AssignmentListQuery,
        response: { 200: RoleAssignmentList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const tenant = request.tenant!;
      const user = findUser(state, tenant, request.params.id);
      const now = state.clock.now();
      const all = identity.assignmentsOf(user.id, tenant.id);
      const shown = request.query.include_inactive ? all : all.filter((a) => identity.isActive(a, now));
      return { items: shown.map((a) => assignmentView(state, a, now)), next_cursor: null };
    },
  );

  app.post<{ Params: { id: string }; Body: AssignmentCreateBody }>(
    '/v1/users/:id/roles',
    {
      config: { roles: ADMIN, permissions: ['role.assign'] },
      schema: {
        tags,
        summary: 'Assign a role to a user',
        description:
          'Caller needs role tenant_admin, or permission role.assign and every permission of the role (403 insufficient_permission). ' +
          'Idempotency key required. role_id: a built-in role (its id is its name) or a custom role id; org_admin is an organisation ' +
          'role (400 role_not_assignable); a deleted role: 409 role_deleted. expires_at, when given, must be in the future ' +
          '(400 invalid_expiry); without it the assignment is permanent. assigned_by is the caller. Each assignment writes an ' +
          'audit-trail entry (audit_trail_id). A duplicate of an active assignment (same user and role) is refused with ' +
          '409 assignment_exists, whose details[0].assignment is the assignment in place: change an expiry by revoking first. ' +
          'Answers 201 with the assignment.',
        params: UserParams,
        body: AssignmentCreateBody,
        response: { 201: RoleAssignmentSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const tenant = request.tenant!;
      const principal = request.principal!;
      const user = findUser(state, tenant, request.params.id);
      const { role_id: roleId, expires_at: expiresAt, justification } = request.body;
      const role = roles.get(tenant.id, roleId);
      if (!role) throw notFound(`role ${roleId}`);
      if (role.deleted_at !== null) {
        throw new ApiProblem(
          409,
          'role_deleted',
          `role ${role.name} (${role.id}) was deleted at ${role.deleted_at}`,
        );
      }
      if (role.scope !== 'tenant') {
        throw new ApiProblem(
          400,
          'role_not_assignable',
          `${role.name} is an organisation role; it is not granted per tenant`,
          { details: [{ field: 'role_id', message: 'is an organisation role' }] },
        );
      }
      const now = state.clock.now();
      let expiry: string | null = null;
      if (expiresAt !== undefined) {
        const ms = Date.parse(expiresAt);
        if (Number.isNaN(ms) || ms - (ms % 1000) <= now) {
          throw new ApiProblem(
            400,
            'invalid_expiry',
            `expires_at ${expiresAt} is not in the future (now ${isoSeconds(now)})`,
            {
              details: [{ field: 'expires_at', message: 'must be in the future' }],
            },
          );
        }
        expiry = isoSeconds(ms);
      }
      checkEscalation(state, principal, tenant.id, role.permissions);
      const existing = identity
        .assignmentsOf(user.id, tenant.id)
        .find((a) => a.role_id === role.id && identity.isActive(a, now));
      if (existing) {
        const view = assignmentView(state, existing, now);
        const until = view.expires_at ? `until ${view.expires_at}` : 'permanently';
        const details = [
          {
            field: 'role_id',
            message: `already held ${until} (audit trail ${view.audit_trail_id})`,
            assignment: view,
          },
        ];
        throw new ApiProblem(409, 'assignment_exists', `${user.id} already holds ${role.name} ${until}`, {
          details,
        });
      }
      const entry = roles.recordAudit({
        tenant_id: tenant.id,
        action: 'role.assigned',
        actor: principal.subject,
        user_id: user.id,
        role_id: role.id,
        role_name: role.name,
        expires_at: expiry,
        justification: justification ?? null,
        request_id: request.id,
      });
      const assignment = identity.addAssignment({
        user_id: user.id,
        tenant_id: tenant.id,
        role_id: role.id,
        role_name: role.name,
        assigned_by: principal.subject,
        assigned_at: entry.at,
        expires_at: expiry,
        justification: justification ?? null,
        audit_trail_id: entry.id,
      });
      return reply.code(201).send(assignmentView(state, assignment, now));
    },
  );

  app.delete<{ Params: { id: string; roleId: string } }>(
    '/v1/users/:id/roles/:roleId',
    {
      config: { roles: ADMIN, permissions: ['role.assign'] },
      schema: {
        tags,
        summary: 'Revoke a role from a user',
        description:
          'Caller needs role tenant_admin, or permission role.assign and every permission of the role. Ends the active ' +
          'assignment now (revoked_at, revoked_by) and writes an audit-trail entry (revocation_audit_trail_id); the role stops ' +
          'authorizing at once. No active assignment: 404 assignment_not_found. Revoking the last active tenant_admin of the ' +
          'tenant: 409 last_tenant_admin. Answers 200 with the revoked assignment (response body: not shown in the reference).',
        params: UserRoleParams,
        response: { 200: RoleAssignmentSchema, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      const tenant = request.tenant!;
      const principal = request.principal!;
      const user = findUser(state, tenant, request.params.id);
      const roleId = request.params.roleId;
      const now = state.clock.now();
      const active = identity
        .assignmentsOf(user.id, tenant.id)
        .find((a) => a.role_id === roleId && identity.isActive(a, now));
      if (!active) {
        const role = roles.get(tenant.id, roleId);
        if (!role) throw notFound(`role ${roleId}`);
        throw new ApiProblem(
          404,
          'assignment_not_found',
          `${user.id} does not hold ${role.name} in this tenant`,
        );
      }
      const role = roles.get(tenant.id, roleId)!;
      checkEscalation(state, principal, tenant.id, role.permissions);
      if (roleId === 'tenant_admin' && countActiveAdmins(state, tenant.id, now) <= 1) {
        throw new ApiProblem(
          409,
          'last_tenant_admin',
          `${user.id} is the last active tenant_admin of ${tenant.slug}; grant tenant_admin to someone else first`,
        );
      }
      const entry = roles.recordAudit({
        tenant_id: tenant.id,
        action: 'role.revoked',
        actor: principal.subject,
        user_id: user.id,
        role_id: role.id,
        role_name: role.name,
        expires_at: active.expires_at,
        justification: null,
        request_id: request.id,
      });
      identity.revokeAssignment(active, principal.subject, entry.id);
      return assignmentView(state, active, now);
    },
  );
}

function countActiveAdmins(state: SandboxState, tenantId: string, now: number): number {
  let count = 0;
  for (const a of state.identity.assignments) {
    if (a.tenant_id === tenantId && a.role_id === 'tenant_admin' && state.identity.isActive(a, now)) count++;
  }
  return count;
}
