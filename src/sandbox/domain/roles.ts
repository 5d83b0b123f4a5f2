import { roleChange } from '../../api/holds.js';
import { organizationPermissionRefusal } from '../../api/permissions.js';
import { addedAndRemoved, RESERVED_ROLE_PREFIXES, type RoleKind, reservedNameRule } from '../../api/roles.js';
import { didYouMean } from '../../api/suggest.js';
import type { SandboxClock } from '../clock.js';
import { randomId } from '../tokens.js';
import { DomainError } from './errors.js';
import { ALL_PERMISSIONS, BUILTIN_ROLES, PERMISSION_CATALOG, type Role } from './role-catalog.js';

/** Roles in list order: seq orders built-ins before custom roles, which follow in creation order. */
interface StoredRole {
  seq: number;
  role: Role;
}

const BUILTIN_BY_ID = new Map(BUILTIN_ROLES.map((role, i) => [role.id, { seq: i, role }]));

/** Checks permission strings against the catalog: 400 unknown_permission naming each unknown one. */
export function checkPermissions(permissions: string[], field = 'permissions'): void {
  const unknown = permissions.filter((p) => !(p in PERMISSION_CATALOG));
  if (unknown.length === 0) return;
  const described = unknown.map((p) => `${p}${didYouMean(p, ALL_PERMISSIONS)}`);
  throw new DomainError(
    'unknown_permission',
    `unknown permission${unknown.length > 1 ? 's' : ''} ${described.join(', ')}; GET /v1/permissions lists the catalog`,
    unknown.map((p) => ({
      field,
      message: `${p} is not in the permission catalog${didYouMean(p, ALL_PERMISSIONS)}`,
    })),
  );
}

/**
 * Permissions put into a tenant's custom role: known (checkPermissions) and of a tenant: an
 * organisation permission (tenant.read) would be granted by nothing (org_role decides), so it is
 * refused, 400 invalid_request saying why, rather than accepted as a success that grants nothing.
 */
function checkTenantPermissions(permissions: string[], field = 'permissions'): void {
  checkPermissions(permissions, field);
  const refused = permissions.filter((p) => organizationPermissionRefusal(p) !== undefined);
  if (refused.length === 0) return;
  throw new DomainError(
    'invalid_request',
    refused.map((p) => organizationPermissionRefusal(p)).join('; '),
    refused.map((p) => ({ field, message: `${p} is an organisation permission` })),
  );
}

/**
 * Built-in roles (the same in every tenant, immutable), custom roles per tenant (soft-deleted,
 * never removed).
 */
export class RoleStore {
  readonly #custom = new Map<string, StoredRole>();
  readonly #byTenant = new Map<string, StoredRole[]>();
  readonly #clock: SandboxClock;
  #seq = 1000;

  constructor(clock: SandboxClock) {
    this.#clock = clock;
  }

  /** Live roles of a tenant (and deleted ones when asked), built-ins first, with their list positions. */
  list(tenantId: string, options: { kind?: RoleKind; includeDeleted?: boolean } = {}): StoredRole[] {
    const builtins = options.kind === 'custom' ? [] : [...BUILTIN_BY_ID.values()];
    const custom =
      options.kind === 'builtin'
        ? []
        : (this.#byTenant.get(tenantId) ?? []).filter(
            (s) => options.includeDeleted || s.role.deleted_at === null,
          );
    return [...builtins, ...custom];
  }

  /** A built-in role, or a custom role of this tenant (deleted ones included). */
  get(tenantId: string, id: string): Role | undefined {
    const builtin = BUILTIN_BY_ID.get(id);
    if (builtin) return builtin.role;
    const stored = this.#custom.get(id);
    return stored && stored.role.tenant_id === tenantId ? stored.role : undefined;
  }

  /** Whether a role grants anything: built-ins always, custom roles until they are deleted. */
  isLive(tenantId: string, roleId: string): boolean {
    if (BUILTIN_BY_ID.has(roleId)) return true;
    const stored = this.#custom.get(roleId);
    return stored !== undefined && stored.role.tenant_id === tenantId && stored.role.deleted_at === null;
  }

  /** Every permission granted by these roles (unknown or deleted roles grant nothing). */
  permissionsOf(tenantId: string, roleIds: Iterable<string>): Set<string> {
    const held = new Set<string>();
    for (const id of roleIds) {
      if (!this.isLive(tenantId, id)) continue;
      for (const p of this.get(tenantId, id)!.permissions) held.add(p);
    }
    return held;
  }

  #nameTaken(tenantId: string, name: string, except?: string): boolean {
    if (BUILTIN_BY_ID.has(name)) return true;
    return (this.#byTenant.get(tenantId) ?? []).some(
      (s) => s.role.deleted_at === null && s.role.name === name && s.role.id !== except,
    );
  }

  #checkName(tenantId: string, name: string, except?: string): void {
    const prefix = RESERVED_ROLE_PREFIXES.find((p) => name.startsWith(p));
    if (prefix) {
      throw new DomainError('reserved_role_name', reservedNameRule(prefix), [
        { field: 'name', message: `choose one that does not start with ${prefix}` },
      ]);
    }
    if (this.#nameTaken(tenantId, name, except)) {
      throw new DomainError('role_name_taken', `a role named ${name} already exists in this tenant`, [
        { field: 'name', message: 'is taken' },
      ]);
    }
  }

  /** `mayGrant` sees the role's permissions before anything changes, and may refuse them. */
  create(
    tenantId: string,
    input: { name: string; description?: string | undefined; permissions: string[] },
    actor: string,
    mayGrant: (added: string[]) => void = () => {},
  ): Role {
    checkTenantPermissions(input.permissions);
    mayGrant(input.permissions);
    this.#checkName(tenantId, input.name);
    const now = this.#clock.iso();
    const role: Role = {
      id: randomId('role'),
      name: input.name,
      description: input.description ?? '',
      kind: 'custom',
      scope: 'tenant',
      permissions: [...new Set(input.permissions)].sort(),
      tenant_id: tenantId,
      created_at: now,
      updated_at: now,
      created_by: actor,
      deleted_at: null,
    };
    const stored = { seq: ++this.#seq, role };
    this.#custom.set(role.id, stored);
    const list = this.#byTenant.get(tenantId);
    if (list) list.push(stored);
    else this.#byTenant.set(tenantId, [stored]);
    return role;
  }

  /** Refuses changes to built-in and deleted roles. */
  mutable(role: Role): Role {
    if (role.kind === 'builtin') {
      throw new DomainError(
        'builtin_role_immutable',
        `${role.name} is a built-in role; built-in roles cannot be changed or deleted`,
      );
    }
    if (role.deleted_at !== null) {
      throw new DomainError(
        'role_deleted',
        `role ${role.name} (${role.id}) was deleted at ${role.deleted_at}`,
      );
    }
    return role;
  }

  /**
   * `mayChange` sees the permissions added and removed, and whether anything changes, before
   * anything changes, and may refuse them.
   */
  update(
    role: Role,
    change: {
      name?: string | undefined;
      description?: string | undefined;
      permissions?: string[] | undefined;
      add_permissions?: string[] | undefined;
      remove_permissions?: string[] | undefined;
    },
    mayChange: (added: string[], removed: string[], changes: boolean) => void = () => {},
  ): boolean {
    this.mutable(role);
    if (change.permissions && (change.add_permissions || change.remove_permissions)) {
      throw new DomainError(
        'invalid_request',
        'send permissions, or add_permissions/remove_permissions, not both',
        [{ field: 'permissions', message: 'cannot be combined with add_permissions or remove_permissions' }],
      );
    }
    checkTenantPermissions(change.permissions ?? [], 'permissions');
    checkTenantPermissions(change.add_permissions ?? [], 'add_permissions');
    checkPermissions(change.remove_permissions ?? [], 'remove_permissions');
    const both = addedAndRemoved(change.add_permissions ?? [], change.remove_permissions ?? []);
    if (both) {
      throw new DomainError(
        'invalid_request',
        both,
        (change.add_permissions ?? [])
          .filter((p, i, all) => change.remove_permissions?.includes(p) && all.indexOf(p) === i)
          .map((p) => ({ field: 'remove_permissions', message: `${p} is also in add_permissions` })),
      );
    }
    let permissions = new Set(change.permissions ?? role.permissions);
    for (const p of change.add_permissions ?? []) permissions.add(p);
    const removed = new Set(change.remove_permissions ?? []);
    permissions = new Set([...permissions].filter((p) => !removed.has(p)));
    if (permissions.size === 0) {
      throw new DomainError('invalid_request', 'a role needs at least one permission', [
        { field: 'remove_permissions', message: 'would leave the role without permissions' },
      ]);
    }
    const { added, removed: taken } = roleChange(role.permissions, [...permissions]);
    const next = {
      name: change.name ?? role.name,
      description: change.description ?? role.description,
      permissions: [...permissions].sort(),
    };
    // A change that changes nothing leaves the role as it was, updated_at too.
    const changes =
      next.name !== role.name ||
      next.description !== role.description ||
      next.permissions.join(' ') !== [...role.permissions].sort().join(' ');
    mayChange(added, taken, changes);
    if (!changes) return false;
    if (next.name !== role.name) this.#checkName(role.tenant_id!, next.name, role.id);
    role.name = next.name;
    role.description = next.description;
    role.permissions = next.permissions;
    role.updated_at = this.#clock.iso();
    return true;
  }

  softDelete(role: Role): Role {
    this.mutable(role);
    role.deleted_at = this.#clock.iso();
    role.updated_at = role.deleted_at;
    return role;
  }
}

export { BUILTIN_ROLES, PERMISSION_CATALOG, type Role };
