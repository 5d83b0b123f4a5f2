/**
 * Plain values about roles shared by the CLI and the sandbox (no schema code, so the CLI bundle
 * does not load TypeBox).
 */

/** Permission strings: dotted lowercase identifiers, e.g. `exception.read`, `rule.write.fx`. */
export const PERMISSION_PATTERN = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$';
export const PERMISSION_RE = new RegExp(PERMISSION_PATTERN);

/** Custom role names: lowercase identifiers, 2 to 64 characters (letters, digits, `_`, `-`). */
export const ROLE_NAME_PATTERN = '^[a-z][a-z0-9_-]{1,63}$';
export const ROLE_NAME_RE = new RegExp(ROLE_NAME_PATTERN);

/**
 * Name prefixes a custom role cannot take: `tenant_` and `org_` are kept for built-in roles, so a
 * name alone tells built-in from custom; `role_` is the shape of every custom role's id, so a name
 * is never mistaken for another role's id.
 */
export const RESERVED_ROLE_PREFIXES = ['tenant_', 'org_', 'role_'] as const;

/** What a reserved prefix is kept for, said in refusals. */
export const reservedFor = (prefix: string) => (prefix === 'role_' ? 'role ids' : 'built-in roles');

/** Longest justification the platform keeps with an assignment. */
export const JUSTIFICATION_MAX = 1000;

export type RoleKind = 'builtin' | 'custom';
export type RoleScope = 'tenant' | 'organization';
export const ROLE_KINDS = ['builtin', 'custom'] as const;

/** What a role-assignment record says about its state when read. */
export const ASSIGNMENT_STATUSES = ['active', 'expired', 'revoked', 'role_deleted'] as const;
export type AssignmentStatus = (typeof ASSIGNMENT_STATUSES)[number];

/**
 * Whether a set of held permissions grants `needed`: a permission grants itself and every more
 * specific one below it (`rule.write` grants `rule.write.fx`).
 */
export function grantsPermission(held: Iterable<string>, needed: string): boolean {
  for (const permission of held) {
    if (permission === needed || needed.startsWith(`${permission}.`)) return true;
  }
  return false;
}
