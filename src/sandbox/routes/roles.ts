import type { FastifyInstance } from 'fastify';
import { permissionScope } from '../../api/permissions.js';
import { grantsPermission, RESERVED_ROLE_PREFIXES } from '../../api/roles.js';
import {
  DeletedRole,
  PermissionList,
  Role,
  RoleCreateBody,
  RoleList,
  RoleListQuery,
  RoleParams,
  RoleUpdateBody,
} from '../../api/schemas/roles.js';
import { createRole, deleteRole, findRole, updateRole } from '../domain/role-admin.js';
import { BUILTIN_ROLES, PERMISSION_CATALOG } from '../domain/roles.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.js';
import { errorResponses, type RouteContext } from './context.js';

const tags = ['roles'];
const ESCALATION =
  'Every permission the role would gain must be one the caller holds live in the tenant (403 insufficient_permission): ' +
  'role.manage cannot widen a role, its own included, beyond what its holder already has. ' +
  'Nor for longer: a widen reaches every live holder of the role until their grant ends, so it is refused (403 ' +
  'insufficient_permission) when one of them would hold an added permission longer than the caller holds it — a ' +
  'just-in-time role.manage does not go into a role held permanently. API keys cannot make a role that mints keys: ' +
  'creating one carrying api_key.manage, or putting api_key.manage into one, is 403 user_required whether or not ' +
  'anyone holds it (one grant away from a key minting keys); a person must.';
const REDUCTION =
  'Any change of a role — its name and description included, a narrowing too — needs every permission the role ' +
  'carries held live by the caller (403 insufficient_permission): taking a permission out revokes it from every ' +
  'holder, and grants by name resolve the role by its name, so role.manage cannot move a role it could not hand out ' +
  'onto another role’s name, nor take away what it does not have. Nobody puts permissions into a role they hold ' +
  'live, just in time included (403 self_assignment, as a self-grant: it grants them what it adds, past the grant ' +
  'they may hold it through now); an API key is seen through to its issuer. Narrowing or renaming a role one holds ' +
  'is allowed within the rule above, and a change that changes nothing is not refused.';

export default function roleRoutes(app: FastifyInstance, { state }: RouteContext): void {
  const { roles } = state;

  app.get<{ Querystring: RoleListQuery }>(
    '/v1/roles',
    {
      config: { operation: 'roles_list' },
      schema: {
        tags,
        summary: 'List built-in and custom roles',
        description:
          "Built-in roles first (the reference's catalog plus org_admin), then the tenant's custom roles in creation order; " +
          'soft-deleted roles only with include_deleted=true. Cursor-paged like every list (response body: not shown in the reference).',
        querystring: RoleListQuery,
        response: { 200: RoleList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { kind, include_deleted: includeDeleted } = request.query;
      const limit = request.query.limit ?? 100;
      const fingerprint = filterFingerprint({ kind, includeDeleted });
      const after = request.query.cursor
        ? decodeCursor(request.query.cursor, fingerprint, { tenant: request.tenant!.id })
        : undefined;
      const all = roles.list(request.tenant!.id, {
        ...(kind ? { kind } : {}),
        includeDeleted: includeDeleted === true,
      });
      let from = after ? all.findIndex((s) => s.seq > after.k) : 0;
      if (from === -1) from = all.length;
      const page = all.slice(from, from + limit);
      const last = page[page.length - 1];
      return {
        items: page.map((s) => s.role),
        next_cursor:
          from + limit < all.length && last
            ? encodeCursor({ k: last.seq, i: last.role.id }, fingerprint, { tenant: request.tenant!.id })
            : null,
      };
    },
  );

  // Built-in roles by how much they grant, so each permission names its least privileged role first.
  const byReach = [...BUILTIN_ROLES].sort(
    (a, b) => a.permissions.length - b.permissions.length || (a.id < b.id ? -1 : 1),
  );
  const catalog = {
    items: Object.entries(PERMISSION_CATALOG).map(([name, description]) => ({
      name,
      description,
      builtin_roles: byReach.filter((r) => grantsPermission(r.permissions, name)).map((r) => r.id),
      scope: permissionScope(name),
    })),
    next_cursor: null,
  };

  app.get(
    '/v1/permissions',
    {
      config: { operation: 'permissions_list' },
      schema: {
        tags,
        summary: 'List the permission catalog',
        description:
          'Not in the reference ("the complete permission catalog: not shown"): every permission a role may hold, with ' +
          'what it allows and the built-in roles that grant it, least privileged first (also published as x-permission-catalog). ' +
          'scope organization: a permission of the organisation (tenant.read, decided by org_role), which no tenant role ' +
          'holds; a custom role carrying one is refused (400 invalid_request).',
        response: { 200: PermissionList, ...errorResponses(401, 403) },
      },
    },
    async () => catalog,
  );

  app.post<{ Body: RoleCreateBody }>(
    '/v1/roles',
    {
      config: { operation: 'roles_create' },
      schema: {
        tags,
        summary: 'Create a custom role',
        description:
          "Idempotency key required. Names are unique among the tenant's live roles (409 role_name_taken) " +
          `and cannot start with tenant_, org_ or their look-alikes tenant-, org- (kept for built-ins), nor with a prefix of the platform's ids and secrets (${RESERVED_ROLE_PREFIXES.filter((p) => !p.startsWith('tenant') && !p.startsWith('org')).join(', ')}), so a name reads as neither (400 reserved_role_name, naming the rule); every permission must be in the catalog ` +
          `(400 unknown_permission, with a suggestion). ${ESCALATION} Answers 201 with the role (response body: not shown in the reference).`,
        body: RoleCreateBody,
        response: { 201: Role, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const { name, description, permissions } = request.body;
      const role = createRole(
        state,
        request.principal!,
        request.tenant!,
        { name, description, permissions },
        request.id,
      );
      return reply.code(201).send(role);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/roles/:id',
    {
      config: { operation: 'roles_get' },
      schema: {
        tags,
        summary: 'Get a role',
        description:
          'A built-in role (its id is its name) or a custom role of the tenant. ' +
          'A soft-deleted role is still returned, with deleted_at set (response body: not shown in the reference).',
        params: RoleParams,
        response: { 200: Role, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => findRole(state, request.tenant!, request.params.id),
  );

  app.patch<{ Params: { id: string }; Body: RoleUpdateBody }>(
    '/v1/roles/:id',
    {
      config: { operation: 'roles_update' },
      schema: {
        tags,
        summary: 'Update a custom role',
        description:
          'Any of name, description, and either permissions (replaces them) or ' +
          'add_permissions/remove_permissions (applied atomically, so concurrent edits do not lose each other). ' +
          'Built-in roles: 403 builtin_role_immutable; deleted roles: 409 role_deleted. A role keeps at least one permission. ' +
          `Assignments of the role follow the change at once. ${ESCALATION} ${REDUCTION} A change that leaves the role as it was (the same name, description and permissions) answers 200 with the role unchanged: updated_at stays and no audit entry is written. Request and response bodies: not shown in the reference.`,
        params: RoleParams,
        body: RoleUpdateBody,
        response: { 200: Role, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      updateRole(state, request.principal!, request.tenant!, request.params.id, request.body, request.id),
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/roles/:id',
    {
      config: { operation: 'roles_delete' },
      schema: {
        tags,
        summary: 'Soft-delete a custom role',
        description:
          'Sets deleted_at: the role is gone from lists, its assignments stop granting it at once ' +
          '(they are kept, with status role_deleted), and its name is free again. The caller must hold every permission of the ' +
          'role live (403 insufficient_permission), since deleting it revokes them all from its holders. Built-in roles: 403 builtin_role_immutable; ' +
          'already deleted: 409 role_deleted. Answers 200 with the deleted role and revoked_assignments, the number of ' +
          'active assignments the delete ended (response body: not shown in the reference).',
        params: RoleParams,
        response: { 200: DeletedRole, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => deleteRole(state, request.principal!, request.tenant!, request.params.id, request.id),
  );
}
