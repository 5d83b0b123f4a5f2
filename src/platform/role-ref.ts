import type { Role } from '../api/schemas/roles.js';
import { didYouMean } from '../api/suggest.js';
import { RoleNotFoundError } from './errors.js';
import type { Platform } from './index.js';

/**
 * A role named by id or name, deleted ones included: by id one GET answers (built-in ids are
 * their names; a deleted custom role is still read by id), else the name is looked up among every
 * role of the tenant, deleted ones too — a live role of that name first, else the role of that
 * name deleted last. For what reads a role's history: `svc audit ls --role`, `svc roles holders
 * --all`, `svc roles get`.
 */
export async function findRoleWithDeleted(platform: Platform, ref: string): Promise<Role> {
  try {
    return await platform.roles.get(ref);
  } catch (error) {
    if (!(error instanceof RoleNotFoundError)) throw error;
  }
  let deleted: Role | undefined;
  const names = new Set<string>();
  for await (const role of platform.roles.listAll({ limit: 200, include_deleted: true })) {
    names.add(role.name);
    if (role.name !== ref) continue;
    if (role.deleted_at === null) return role;
    if (!deleted || (deleted.deleted_at ?? '') < role.deleted_at) deleted = role;
  }
  if (deleted) return deleted;
  throw new RoleNotFoundError(
    {
      status: 404,
      code: 'not_found',
      message: `no role ${JSON.stringify(ref)} in this tenant${didYouMean(ref, [...names])}`,
    },
    { hint: 'give the role id (role_…) of a deleted role, or see `svc roles ls --include-deleted`' },
  );
}
