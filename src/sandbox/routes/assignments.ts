import type { FastifyInstance } from 'fastify';
import {
  AssignmentCreateBody,
  AssignmentListQuery,
  RoleAssignmentList,
  RoleAssignment as RoleAssignmentSchema,
  UserParams,
  UserRoleParams,
} from '../../api/schemas/roles.js';
import { assignRole, listAssignments, revokeRole } from '../domain/grants.js';
import { errorResponses, type RouteContext } from './context.js';

const tags = ['role assignments'];

export default function assignmentRoutes(app: FastifyInstance, { state }: RouteContext): void {
  app.get<{ Params: { id: string }; Querystring: { include_inactive?: boolean } }>(
    '/v1/users/:id/roles',
    {
      config: { operation: 'user_roles_list' },
      schema: {
        tags,
        summary: "List a user's role assignments in the tenant",
        description:
          'Not in the reference: the documented way to read assignments. ' +
          'Active assignments, oldest first; include_inactive=true adds expired, revoked and role-deleted ones (see status). ' +
          'Unknown user (or a user of another organisation): 404 not_found.',
        params: UserParams,
        querystring: AssignmentListQuery,
        response: { 200: RoleAssignmentList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      items: listAssignments(
        state,
        request.tenant!,
        request.params.id,
        request.query.include_inactive === true,
      ),
      next_cursor: null,
    }),
  );

  app.post<{ Params: { id: string }; Body: AssignmentCreateBody }>(
    '/v1/users/:id/roles',
    {
      config: { operation: 'user_roles_assign' },
      schema: {
        tags,
        summary: 'Assign a role to a user',
        description:
          'The caller must hold every permission of the role live in the tenant (403 insufficient_permission). ' +
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
      const { role_id, expires_at, justification } = request.body;
      const assignment = assignRole(
        state,
        request.principal!,
        request.tenant!,
        request.params.id,
        { role_id, expires_at, justification },
        request.id,
      );
      return reply.code(201).send(assignment);
    },
  );

  app.delete<{ Params: { id: string; roleId: string } }>(
    '/v1/users/:id/roles/:roleId',
    {
      config: { operation: 'user_roles_revoke' },
      schema: {
        tags,
        summary: 'Revoke a role from a user',
        description:
          'The caller must hold every permission of the role live in the tenant (403 insufficient_permission). Ends the active ' +
          'assignment now (revoked_at, revoked_by) and writes an audit-trail entry (revocation_audit_trail_id); the role stops ' +
          'authorizing at once. No active assignment: 404 assignment_not_found. Revoking the last active tenant_admin of the ' +
          'tenant: 409 last_tenant_admin. Answers 200 with the revoked assignment (response body: not shown in the reference).',
        params: UserRoleParams,
        response: { 200: RoleAssignmentSchema, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) =>
      revokeRole(
        state,
        request.principal!,
        request.tenant!,
        request.params.id,
        request.params.roleId,
        request.id,
      ),
  );
}
