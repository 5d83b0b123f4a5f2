import { invisibleIn } from '../../api/characters.js';
import type { Role } from '../../api/schemas/roles.js';
import { NotFoundError, UsageError } from '../../errors.js';
import { NotFoundError as ApiNotFoundError, PermissionDeniedError } from '../../http/errors.js';
import { quoted } from '../../output/format.js';
import { sym } from '../../output/symbols.js';
import { TenantForbiddenError } from '../../platform/errors.js';
import type { Platform } from '../../platform/index.js';
import { isRoleId, liveThenLatestDeleted, rolesByRef } from '../../platform/role-ref.js';

/** A role as the trail filter names it: its id, and when it was deleted (null: live; undefined: not known). */
export type AuditRole = { id: string; deleted_at: string | null | undefined };

/**
 * The roles `--role REF` can mean, the one filtered on first: a role's entries stay in the trail
 * after it is deleted, and its name may since be another role's (rolesByRef). An id (a built-in
 * role's is its name) needs no lookup. A name is looked up among the roles, which needs role.read;
 * a caller without it (tenant_auditor) is answered from the trail itself, whose role entries
 * name each custom role as it was called then.
 */
export async function auditRoles(platform: Platform, ref: string): Promise<AuditRole[]> {
  try {
    return await rolesOfRef(platform, ref);
  } catch (error) {
    // A ref with an invisible character no role has (as a name: a joiner may be in one): a
    // paste's leftover, refused naming --role with it escaped, as every other id flag's (kit.ts
    // idFlag), not "ROLE …" (the lookup's path) nor a not-found that printed it raw (brief
    // paging22 4).
    const invisible = invisibleIn('--role', ref);
    if (invisible === undefined || !(isNotFound(error) || error instanceof UsageError)) throw error;
    throw new UsageError(invisible, { code: 'invalid_id' });
  }
}

async function rolesOfRef(platform: Platform, ref: string): Promise<AuditRole[]> {
  let byName: AuditRole[];
  try {
    byName = (await rolesByRef(platform, ref, { deleted: true })).map(auditRole);
  } catch (error) {
    if (isNotFound(error) && !isRoleId(ref)) return formerlyNamed(platform, ref, [], error);
    if (!(error instanceof PermissionDeniedError) || error instanceof TenantForbiddenError) throw error;
    if (isRoleId(ref)) return [{ id: ref, deleted_at: undefined }];
    return rolesNamedInTrail(platform, ref);
  }
  return isRoleId(ref) ? byName : formerlyNamed(platform, ref, byName, undefined);
}

/**
 * The roles that have the name now (`byName`), then those the trail says had it before a rename
 * (the roles list knows only current names): without them, the grants made under the name were
 * left out unsaid, or the name of a renamed role was "no role" (exit 5). `notFound`: the roles
 * list's answer when no role has the name now, thrown when the trail knows none either.
 */
async function formerlyNamed(
  platform: Platform,
  name: string,
  byName: AuditRole[],
  notFound: Error | undefined,
): Promise<AuditRole[]> {
  let former: AuditRole[];
  try {
    former = await rolesNamedInTrail(platform, name);
  } catch (error) {
    if (error instanceof NotFoundError && notFound) throw notFound;
    if (error instanceof NotFoundError || error instanceof PermissionDeniedError) return byName;
    throw error;
  }
  const known = new Set(byName.map((r) => r.id));
  return [...byName, ...former.filter((r) => !known.has(r.id))];
}

/** No such role: the roles list's 404, or the trail's own not-found. */
const isNotFound = (error: unknown): error is Error =>
  error instanceof NotFoundError || error instanceof ApiNotFoundError;

const auditRole = (role: Role): AuditRole => ({ id: role.id, deleted_at: role.deleted_at });

/** The custom roles the trail's role entries call `name`: live ones first, then the latest deleted. */
async function rolesNamedInTrail(platform: Platform, name: string): Promise<AuditRole[]> {
  const named = new Set<string>();
  const deleted = new Map<string, string>();
  for await (const entry of platform.audit.listAll({ target_type: 'role', order: 'desc', limit: 200 })) {
    if (!entry.role_id) continue;
    if (entry.role_name === name) named.add(entry.role_id);
    if (entry.action === 'role.deleted') deleted.set(entry.role_id, entry.created_at);
  }
  if (named.size === 0) {
    throw new NotFoundError(`no role ${quoted(name)} in this tenant's audit trail`, {
      hint: `give the role id (role_${sym.ellipsis}): \`${platform.svc('audit ls --target-type role')}\` shows the custom roles${sym.apostrophe} entries`,
    });
  }
  return [...named].map((id) => ({ id, deleted_at: deleted.get(id) ?? null })).sort(liveThenLatestDeleted);
}
