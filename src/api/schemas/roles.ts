import { type Static, Type } from '@sinclair/typebox';
import {
  ASSIGNMENT_STATUSES,
  JUSTIFICATION_MAX,
  PERMISSION_PATTERN,
  ROLE_KINDS,
  ROLE_NAME_PATTERN,
} from '../roles.js';
import { CursorQuery, IdempotencyKey, NullableTimestamp, Page, StringEnum, Timestamp } from './common.js';

export const Permission = Type.String({
  pattern: PERMISSION_PATTERN,
  maxLength: 100,
  description:
    'A dotted lowercase identifier from the permission catalog (x-permission-catalog). A permission grants itself and every more specific one below it: rule.write grants rule.write.fx.',
  examples: ['exception.read', 'rule.write.fx'],
});

export const Role = Type.Object(
  {
    id: Type.String({
      description:
        'Built-in roles: their name (tenant_admin, …). Custom roles: role_ followed by 24 hex digits.',
    }),
    name: Type.String({ description: 'Unique among the live roles of the tenant' }),
    description: Type.String(),
    kind: StringEnum(ROLE_KINDS, { description: 'builtin (immutable) or custom' }),
    scope: StringEnum(['tenant', 'organization'] as const, {
      description:
        'tenant: granted per tenant with role assignments; organization: org_admin, held per organisation',
    }),
    permissions: Type.Array(Type.String(), { description: 'Permissions the role grants, sorted' }),
    tenant_id: Type.Union([Type.String(), Type.Null()], {
      description: 'Owning tenant; null for built-in roles',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    created_by: Type.String({ description: 'Who created it; system for built-in roles' }),
    deleted_at: Type.Union([Timestamp, Type.Null()], {
      description: 'Set by DELETE (soft delete): the role is gone from lists and grants nothing',
    }),
  },
  {
    $id: 'Role',
    additionalProperties: true,
    description:
      'A role. The reference shows only id and name; the other fields are the sandbox\'s choice ("not shown").',
  },
);
export type Role = Static<typeof Role>;

/** DELETE /v1/roles/{id}'s answer: the role, and how many lost it by that delete (the sandbox's choice). */
export const DeletedRole = Type.Intersect(
  [
    Type.Ref('Role'),
    Type.Object({
      revoked_assignments: Type.Integer({
        minimum: 0,
        description:
          'The active assignments this delete ended (each now role_deleted): how many holders lost the role by it',
      }),
    }),
  ],
  { description: 'The deleted role, and how many lost it by this delete' },
);

export const RoleList = Page(
  Type.Ref('Role'),
  'Built-in roles first (catalog order), then custom roles in creation order.',
);
export type RoleList = { items: Role[]; next_cursor: string | null };

export const RoleListQuery = Type.Object({
  kind: Type.Optional(StringEnum(ROLE_KINDS, { description: 'Only built-in or only custom roles' })),
  include_deleted: Type.Optional(
    Type.Boolean({ description: 'Also list soft-deleted custom roles (default false)' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 100 })),
  ...CursorQuery,
});
export type RoleListQuery = Static<typeof RoleListQuery>;

export const RoleParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

const RoleName = Type.String({
  pattern: ROLE_NAME_PATTERN,
  description:
    'Lowercase letters, digits, _ and -, 2 to 64 characters, starting with a letter; tenant_, org_, tenant- and org- are kept for built-in roles, and the prefixes of ids (role_, usr_, key_, cli_, wh_, …) for ids',
});
const Description = Type.String({ maxLength: 500 });
const Permissions = Type.Array(Permission, { minItems: 1, maxItems: 100, uniqueItems: true });

export const RoleCreateBody = Type.Object(
  {
    name: RoleName,
    description: Type.Optional(Description),
    permissions: Permissions,
    idempotency_key: IdempotencyKey,
  },
  { additionalProperties: false },
);
export type RoleCreateBody = Static<typeof RoleCreateBody>;

export const RoleUpdateBody = Type.Object(
  {
    name: Type.Optional(RoleName),
    description: Type.Optional(Description),
    permissions: Type.Optional({ ...Permissions, description: 'Replaces every permission of the role' }),
    add_permissions: Type.Optional(
      Type.Array(Permission, { maxItems: 100, description: 'Permissions to add (not with permissions)' }),
    ),
    remove_permissions: Type.Optional(
      Type.Array(Permission, {
        maxItems: 100,
        description: 'Permissions to remove (not with permissions); ones the role does not have are ignored',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type RoleUpdateBody = Static<typeof RoleUpdateBody>;

export const RoleAssignment = Type.Object(
  {
    user_id: Type.String({ description: 'The user receiving the role' }),
    role_id: Type.String({ description: 'The assigned role' }),
    role_name: Type.String({ description: 'Name of the role (its current name)' }),
    tenant_id: Type.String(),
    assigned_by: Type.String({
      description: 'The caller that made the assignment: a user id or an API key id',
    }),
    assigned_at: Timestamp,
    expires_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When the assignment stops granting the role; null for a permanent assignment',
    }),
    justification: Type.Union([Type.String(), Type.Null()]),
    audit_trail_id: Type.String({ description: 'The audit-trail entry written for the assignment' }),
    status: StringEnum(ASSIGNMENT_STATUSES, {
      description: 'active, or why it no longer grants the role: expired, revoked, role_deleted',
    }),
    revoked_at: NullableTimestamp,
    revoked_by: Type.Union([Type.String(), Type.Null()]),
    revocation_audit_trail_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The audit-trail entry written for the revocation',
    }),
    updated_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When the expiry was last changed (PATCH); null if never',
    }),
    updated_by: Type.Union([Type.String(), Type.Null()]),
    update_audit_trail_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The audit-trail entry written for the last change of the expiry',
    }),
  },
  {
    $id: 'RoleAssignment',
    additionalProperties: true,
    description:
      "A role assignment: the reference's fields (user_id … audit_trail_id) and the sandbox's additions (tenant_id, justification, status, revocation and update fields).",
  },
);
export type RoleAssignment = Static<typeof RoleAssignment>;

export const RoleAssignmentList = Type.Object(
  {
    items: Type.Array(Type.Ref('RoleAssignment')),
    next_cursor: Type.Null({
      description: 'Always null: a user holds few roles, so there is one page',
      examples: [null],
    }),
  },
  { description: "The user's assignments in the tenant, oldest first" },
);
export type RoleAssignmentList = { items: RoleAssignment[]; next_cursor: null };

export const AssignmentListQuery = Type.Object({
  include_inactive: Type.Optional(
    Type.Boolean({ description: 'Also list expired, revoked and role-deleted assignments (default false)' }),
  ),
});
export type AssignmentListQuery = Static<typeof AssignmentListQuery>;

export const TenantAssignmentList = Page(
  Type.Ref('RoleAssignment'),
  "The tenant's assignments in creation order (oldest first)",
);
export type TenantAssignmentList = { items: RoleAssignment[]; next_cursor: string | null };

export const TenantAssignmentListQuery = Type.Object({
  role_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: "Only this role's assignments (its holders); an unknown role is 404",
    }),
  ),
  user_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: "Only this user's; an unknown user is 404" }),
  ),
  include_inactive: Type.Optional(
    Type.Boolean({ description: 'Also list expired, revoked and role-deleted assignments (default false)' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  ...CursorQuery,
});
export type TenantAssignmentListQuery = Static<typeof TenantAssignmentListQuery>;

export const AssignmentUpdateBody = Type.Object(
  {
    expires_at: Type.Union([Timestamp, Type.Null()], {
      description: 'The new expiry, in the future; null makes the assignment permanent',
    }),
    justification: Type.String({
      minLength: 1,
      maxLength: JUSTIFICATION_MAX,
      description: 'Why the expiry changes (kept in the audit trail); required',
    }),
  },
  { additionalProperties: false },
);
export type AssignmentUpdateBody = Static<typeof AssignmentUpdateBody>;

export const PermissionEntry = Type.Object(
  {
    name: Type.String({ description: 'The permission (a dotted lowercase identifier)' }),
    description: Type.String(),
    builtin_roles: Type.Array(Type.String(), {
      description: 'Built-in roles that grant it, least privileged first',
    }),
    scope: Type.Optional(
      StringEnum(['tenant', 'organization'] as const, {
        description:
          'tenant: a tenant role may hold it; organization: granted by org_role (org_admin) only, refused in a custom role',
      }),
    ),
  },
  { $id: 'Permission', additionalProperties: true },
);
export type PermissionEntry = Static<typeof PermissionEntry>;

export const PermissionList = Type.Object(
  {
    items: Type.Array(Type.Ref('Permission')),
    next_cursor: Type.Null({ description: 'Always null: the catalog is one page', examples: [null] }),
  },
  { description: 'The permission catalog, in catalog order' },
);
export type PermissionList = { items: PermissionEntry[]; next_cursor: null };

export const UserParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const UserRoleParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  roleId: Type.String({ minLength: 1, maxLength: 100 }),
});

export const AssignmentCreateBody = Type.Object(
  {
    role_id: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The role to grant: a built-in role (its id is its name) or a custom role id',
    }),
    expires_at: Type.Optional({
      ...Timestamp,
      description: 'Must be in the future (the sandbox clock); absent for a permanent assignment',
    }),
    justification: Type.Optional(Type.String({ maxLength: JUSTIFICATION_MAX })),
    idempotency_key: IdempotencyKey,
  },
  { additionalProperties: false },
);
export type AssignmentCreateBody = Static<typeof AssignmentCreateBody>;
