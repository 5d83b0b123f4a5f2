import type { FastifyInstance } from 'fastify';
import {
  AssignmentCreateBody,
  AssignmentListQuery,
  AssignmentUpdateBody,
  RoleAssignmentList,
  RoleAssignment as RoleAssignmentSchema,
  TenantAssignmentList,
  TenantAssignmentListQuery,
  UserParams,
  UserRoleParams,
} from '../../api/schemas/roles.js';
import { listAssignments, listTenantAssignments } from '../domain/assignments.js';
import { assignRole, revokeRole, updateAssignment } from '../domain/grants.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.js';
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
          'The caller must hold every permission of the role live in the tenant (403 insufficient_permission), and a caller ' +
          'whose own hold on them ends grants no further than that: expires_at no later than it (403 insufficient_permission). ' +
          'Nobody grants a role to themselves, tenant_admin included (403 self_assignment). An API key cannot grant a role ' +
          'carrying api_key.manage (403 user_required: keys cannot mint keys, so a person grants them). ' +
          'Idempotency key required. role_id: a built-in role (its id is its name) or a custom role id; org_admin is an organisation ' +
          'role (400 role_not_assignable); a deleted role: 409 role_deleted. expires_at, when given, must be in the future ' +
          '(400 invalid_expiry); without it the assignment is permanent. assigned_by is the caller. Each assignment writes an ' +
          'audit-trail entry (audit_trail_id). A duplicate of an active assignment (same user and role) is refused with ' +
          '409 assignment_exists, whose details[0].assignment is the assignment in place: change its expiry with PATCH. ' +
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

  app.get<{ Querystring: TenantAssignmentListQuery }>(
    '/v1/role-assignments',
    {
      config: { operation: 'role_assignments_list' },
      schema: {
        tags,
        summary: "List the tenant's role assignments (a role's holders)",
        description:
          'Not in the reference: every assignment of the tenant, oldest first, cursor-paged — the holders of a role with ' +
          "role_id, one user's with user_id. Active assignments only unless include_inactive=true (then status says why one " +
          'no longer grants its role). An unknown role or user is 404, never an empty list.',
        querystring: TenantAssignmentListQuery,
        response: { 200: TenantAssignmentList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const q = request.query;
      const limit = q.limit ?? 100;
      const includeInactive = q.include_inactive === true;
      const fingerprint = filterFingerprint({
        what: 'assignments',
        role: q.role_id,
        user: q.user_id,
        includeInactive,
      });
      const after = q.cursor
        ? decodeCursor(q.cursor, fingerprint, { tenant: request.tenant!.id }).k
        : undefined;
      const { page, more, lastSeq } = listTenantAssignments(
        state,
        request.tenant!,
        { roleId: q.role_id, userId: q.user_id, includeInactive },
        limit,
        after,
      );
      const last = page[page.length - 1];
      return {
        items: page,
        next_cursor:
          more && last && lastSeq !== undefined
            ? encodeCursor({ k: lastSeq, i: `${last.user_id}/${last.role_id}` }, fingerprint, {
                tenant: request.tenant!.id,
              })
            : null,
      };
    },
  );

  app.patch<{ Params: { id: string; roleId: string }; Body: AssignmentUpdateBody }>(
    '/v1/users/:id/roles/:roleId',
    {
      config: { operation: 'user_roles_update' },
      schema: {
        tags,
        summary: "Change the expiry of a user's role assignment",
        description:
          'Not in the reference: extends or shortens the active assignment of the role (expires_at in the future, 400 ' +
          'invalid_expiry otherwise; null makes it permanent), with a justification (400 justification_required when blank). ' +
          'The caller must hold every permission of the role live in the tenant (403 insufficient_permission), and may move an ' +
          'expiry later only up to the end of its own hold on them (403 insufficient_permission); moving one sooner is ' +
          "allowed unless it would make the tenant's administration end sooner (a tenant_admin assignment that ends later than " +
          'every other live one: 409 last_tenant_admin). Nobody changes the expiry of their own assignment, tenant_admin included (403 self_assignment). An API key ' +
          'cannot change the expiry of a role carrying api_key.manage (403 user_required). Writes an ' +
          'audit-trail entry (role.assignment_updated, with the previous expiry), named in update_audit_trail_id; the ' +
          'expiry it already has changes nothing. No active assignment: 404 assignment_not_found. Answers 200 with the assignment.',
        params: UserRoleParams,
        body: AssignmentUpdateBody,
        response: { 200: RoleAssignmentSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      updateAssignment(
        state,
        request.principal!,
        request.tenant!,
        request.params.id,
        request.params.roleId,
        request.body,
        request.id,
      ),
  );

  app.delete<{ Params: { id: string; roleId: string } }>(
    '/v1/users/:id/roles/:roleId',
    {
      config: { operation: 'user_roles_revoke' },
      schema: {
        tags,
        summary: 'Revoke a role from a user',
        description:
          'The caller must hold every permission of the role live in the tenant (403 insufficient_permission); a caller may ' +
          'revoke its own assignment (giving access up). Ends the active ' +
          'assignment now (revoked_at, revoked_by) and writes an audit-trail entry (revocation_audit_trail_id); the role stops ' +
          "authorizing at once. No active assignment: 404 assignment_not_found. A change cannot make the tenant's " +
          'administration end sooner: revoking a tenant_admin assignment that ends later than every other live tenant_admin ' +
          'assignment of the tenant (a permanent one ends never) is 409 last_tenant_admin, naming when the others end. Answers 200 with the revoked assignment (response body: not shown in the reference).',
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
