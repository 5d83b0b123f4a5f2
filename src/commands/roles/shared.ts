import { spreadAsTheyCame } from '../../api/numbers-as-they-came.js';
import type { Role, RoleAssignment } from '../../api/schemas/roles.js';
import { didYouMean } from '../../api/suggest.js';
import { type CommandLine, profileFlag, TENANT_PLACEHOLDER } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { lookupMayFail, SvcError, UsageError } from '../../errors.js';
import { NotFoundError as ApiNotFoundError, PermissionDeniedError } from '../../http/errors.js';
import { counted, quoted, rfc3339 } from '../../output/format.js';
import type { Column, Field } from '../../output/output.js';
import { sym } from '../../output/symbols.js';
import {
  AssignmentExistsError,
  lookForUser,
  RoleNameTakenError,
  RoleNotFoundError,
  retyped,
  TenantForbiddenError,
  typedError,
  UserNotFoundError,
} from '../../platform/errors.js';
import type { Platform } from '../../platform/index.js';
import { findRoleByRef, isRoleId } from '../../platform/role-ref.js';
import { shellWord } from '../../system/shell-words.js';
import { changedIn } from '../changed-in.js';

/** A role is named in every command by id or name, so the id (a built-in role's is its name) may go first. */
export const ROLE_COLUMNS: Array<Column<Role>> = [
  { header: 'id', value: (r) => r.id, kind: 'id', optional: 2 },
  { header: 'name', value: (r) => r.name, kind: 'name' },
  { header: 'kind', value: (r) => r.kind },
  { header: 'permissions', value: (r) => r.permissions },
  { header: 'description', value: (r) => r.description, optional: true },
];

/**
 * A role's fields. The reference guarantees only id and name (attack18b 4): a field the server left
 * out is shown empty, and permissions say so, as an empty list would read as "grants nothing".
 */
export const roleFields = (r: Role): Field[] => [
  ['id', r.id],
  ['name', r.name],
  ['kind', r.kind],
  ['scope', r.scope],
  ['description', r.description, 'text', 'optional'],
  ['permissions', permissionsText(r)],
  ['tenant', r.tenant_id, 'text', 'optional'],
  ['created', r.created_at, 'time'],
  ['created by', r.created_by],
  ['updated', r.updated_at, 'time'],
  ['deleted', r.deleted_at, 'time', 'optional'],
];

/**
 * A role a retry after a lost answer found as asked (`roles create`, `roles update --name`): its
 * record marked `found_after_lost_answer`, and its ✓ line saying whose change it most likely was
 * and how the retry learned it (`how`).
 */
export async function sayRoleFoundAfterLost(
  ctx: Context,
  verb: 'created' | 'updated',
  found: { role: Role; lost: string },
  how: string,
): Promise<void> {
  const { role, lost } = found;
  await ctx.out.record(spreadAsTheyCame(role, { found_after_lost_answer: true }), roleFields(role));
  if (ctx.out.isMachine) return;
  ctx.out.success(
    `${verb} role ${role.name} (${role.id})${changedIn(ctx.settings())}: most likely by this command's attempt whose answer was lost (${lost}); ${how}`,
  );
}

/** A role's permissions, comma-separated; `not given by the server` when its record has none. */
export function permissionsText(r: Pick<Role, 'permissions'>): string {
  const permissions: unknown = r.permissions;
  return Array.isArray(permissions) ? permissions.join(', ') : 'not given by the server';
}

/** A revoked or role-deleted grant (the word in any case) has ended whatever its expires_at said. */
const ended = (a: RoleAssignment): boolean => {
  const word = typeof a.status === 'string' ? a.status.toLowerCase() : a.status;
  return word === 'revoked' || word === 'role_deleted';
};

/**
 * An assignment's expiry. On a terminal an ended grant shows none ('-'): "in 8 hours" would read as
 * if it still ran; pipes and JSON keep the API's expires_at.
 */
export const EXPIRES_COLUMN: Column<RoleAssignment> = {
  header: 'expires',
  value: (a) => a.expires_at ?? 'never',
  table: (a) => (ended(a) ? null : (a.expires_at ?? 'never')),
  kind: 'time',
};

export const ASSIGNMENT_COLUMNS: Array<Column<RoleAssignment>> = [
  { header: 'role', value: (a) => a.role_name, kind: 'name' },
  { header: 'status', value: (a) => a.status, kind: 'status' },
  EXPIRES_COLUMN,
  { header: 'assigned by', value: (a) => a.assigned_by, kind: 'name' },
  { header: 'assigned', value: (a) => a.assigned_at, kind: 'time' },
  { header: 'audit trail id', value: (a) => a.audit_trail_id, kind: 'id' },
  { header: 'role id', value: (a) => a.role_id, kind: 'id', optional: true },
  { header: 'justification', value: (a) => a.justification, kind: 'detail', optional: true },
];

/** `tenant`: the one the grant is in, as the run named it (changed-in.ts tenantChanged). */
export const assignmentFields = (a: RoleAssignment, tenant: string | undefined): Field[] => {
  const fields: Field[] = [
    ['user', a.user_id],
    ['role', `${a.role_name}${a.role_id === a.role_name ? '' : ` (${a.role_id})`}`],
    ['tenant', tenant, 'text', 'optional'],
    ['status', a.status],
    ['assigned by', a.assigned_by],
    ['assigned', a.assigned_at, 'time'],
    // An ended grant's expiry is said as the time it was, without "(in 8 hours)".
    a.expires_at && ended(a)
      ? ['expires', rfc3339(a.expires_at)]
      : ['expires', a.expires_at ?? 'never', a.expires_at ? 'time' : 'text'],
    ['justification', a.justification],
    ['audit trail id', a.audit_trail_id],
  ];
  if (a.update_audit_trail_id) {
    fields.push(['expiry changed', a.updated_at, 'time'], ['expiry changed by', a.updated_by]);
    fields.push(['update audit trail id', a.update_audit_trail_id]);
  }
  if (a.revoked_at) {
    fields.push(['revoked', a.revoked_at, 'time'], ['revoked by', a.revoked_by]);
    fields.push(['revocation audit trail id', a.revocation_audit_trail_id]);
  }
  return fields;
};

/** Every role of the tenant (built-in and live custom ones), following every page. */
export async function listRoles(platform: Platform, signal?: AbortSignal): Promise<Role[]> {
  const roles: Role[] = [];
  for await (const role of platform.roles.listAll({ limit: 200 }, signal ? { signal } : {})) roles.push(role);
  return roles;
}

/**
 * Roles for a picker, least privileged first (fewest permissions; ties in catalog order), so the
 * choice a user makes by pressing Enter is never tenant_admin.
 */
export function leastPrivilegedFirst(roles: Role[]): Role[] {
  return roles
    .map((role, index) => ({ role, index }))
    .sort((a, b) => a.role.permissions.length - b.role.permissions.length || a.index - b.index)
    .map(({ role }) => role);
}

/** A role from a list, by id first, then by name. */
export function findRole(roles: Role[], ref: string): Role | undefined {
  return roles.find((r) => r.id === ref) ?? roles.find((r) => r.name === ref);
}

export function unknownRole(ref: string, roles: Role[]): string {
  return `unknown role ${quoted(ref)}${didYouMean(
    ref,
    roles.map((r) => r.name),
  )}`;
}

/**
 * The role a change or a grant names, by id or by name (platform/role-ref.ts): a live one, or a
 * deleted one as its id names it (the platform refuses changing it, as by id).
 */
export const resolveRole = (platform: Platform, ref: string): Promise<Role> =>
  findRoleByRef(platform, ref, { deleted: false });

/** A role as a grant or revoke names it: its id, and the name to say (the id until the answer names it). */
export type RoleRef = Pick<Role, 'id' | 'name'>;

/**
 * The role a grant or revoke sends. A built-in name or a role id goes as it is: granting needs
 * role.assign, not role.read, and the server checks the role itself. Only a custom role's name is
 * looked up, which needs role.read; without it, svc says so and what to pass instead (exit 4).
 */
export async function roleToGrant(platform: Platform, ref: string): Promise<RoleRef> {
  if (isRoleId(ref)) return { id: ref, name: ref };
  try {
    return await resolveRole(platform, ref);
  } catch (error) {
    if (!(error instanceof PermissionDeniedError) || error instanceof TenantForbiddenError) throw error;
    throw new SvcError(
      'forbidden',
      `svc needs role.read to resolve the role name ${quoted(ref)}; pass the role's id (role_${sym.ellipsis}) instead`,
      { code: error.code ?? 'insufficient_role' },
    );
  }
}

/**
 * How many users hold a role now (its active assignments), counted across every page; undefined
 * when the server cannot say (the listing is the sandbox's, not the reference's: another server
 * may not have it). A count is said in prompts, never needed to act.
 */
export async function countHolders(platform: Platform, roleId: string): Promise<number | undefined> {
  let count = 0;
  try {
    for await (const _ of platform.roles.listAllTenantAssignments({ role_id: roleId, limit: 500 })) count++;
  } catch (error) {
    if (!lookupMayFail(error)) throw error;
    return undefined;
  }
  return count;
}

/**
 * A grant, revoke or expiry change answered by a plain 404 ("user nobody not found", "role … not
 * found": the path names both): which of the two is missing, with where to look for the right
 * one. One lookup of the user says it (any server answers `svc users ls --id`); when that lookup
 * fails too, the error is left as it came.
 */
export async function namedNotFound(platform: Platform, error: unknown, user: string): Promise<unknown> {
  if (!(error instanceof ApiNotFoundError) || error.constructor !== ApiNotFoundError) return error;
  let isUser: boolean;
  try {
    isUser = (await platform.users.existing([user])).has(user);
  } catch (lookup) {
    if (!lookupMayFail(lookup)) throw lookup;
    return error;
  }
  return typedError(
    error,
    isUser ? RoleNotFoundError : UserNotFoundError,
    undefined,
    isUser ? undefined : lookForUser(user),
    platform.svc,
  );
}

/**
 * What a change to a role means for its holders, for the line after it: `; its 3 holders lost it`,
 * `; its 1 holder loses rule.read`, or `none` when nobody holds it; nothing when the count is
 * unknown (countHolders). `some` gets "its N holder(s)" and whether it is one (for the verb).
 */
export function holdersSay(
  holders: number | undefined,
  said: { none: string; some: (its: string, one: boolean) => string },
): string {
  if (holders === undefined) return '';
  if (holders === 0) return `; ${said.none}`;
  const its = `its ${counted(holders, 'holder')}`;
  return `; ${said.some(its, holders === 1)}`;
}

/** `pass them` or `pass it`: the hint for values missing on a command line that could be asked for. */
export const passMissing = (missing: string[], after = ''): string =>
  `pass ${missing.length === 1 ? 'it' : 'them'} on the command line${after}, or run in a terminal to be asked`;

/** The tenant of the profile; bulk runs need it for idempotency keys and journals. */
export function requireTenant(ctx: Context): string {
  const tenant = ctx.profileSettings().values.tenant;
  if (!tenant) {
    throw new UsageError('no tenant: roles belong to a tenant', {
      hint: `pass --tenant ID, set SVC_TENANT, or \`svc ${profileFlag(ctx.settings())}config set tenant ${TENANT_PLACEHOLDER}\``,
    });
  }
  return tenant;
}

/**
 * The assignment in place when a grant was refused because the user already holds the role
 * (AssignmentExistsError), if that was the refusal. Errors that did not come through the
 * platform client are typed here first.
 */
export function existingAssignment(error: unknown): RoleAssignment | undefined {
  const typed = typedError(error);
  if (!(typed instanceof AssignmentExistsError)) return undefined;
  return typed.assignment ?? ({} as RoleAssignment);
}

/**
 * A 409 role_name_taken from a create or rename to `name`: the fix names the role that has it
 * (names are unique in a tenant). A server's own hint is kept.
 */
export async function withNameTakenHint<T>(
  line: CommandLine,
  request: Promise<T>,
  name: string | undefined,
): Promise<T> {
  try {
    return await request;
  } catch (error) {
    if (!(error instanceof RoleNameTakenError) || name === undefined || error.hint) throw error;
    throw retyped(
      error,
      RoleNameTakenError,
      `pick another --name, or change that role: ${line(`roles update ${shellWord(name)}`)}`,
    );
  }
}
