import { RoleNotFoundError } from '../../platform/errors.js';
import type { Platform } from '../../platform/index.js';

/**
 * The id of a role named by id or name, for an audit filter. A role deleted since (its entries
 * stay in the trail) is no longer listed: an id is then taken as given, a name is refused.
 */
export async function resolveRoleId(platform: Platform, ref: string): Promise<string> {
  try {
    return (await platform.roles.get(ref)).id;
  } catch (error) {
    if (!(error instanceof RoleNotFoundError)) throw error;
  }
  for await (const role of platform.roles.listAll({ limit: 200, include_deleted: true })) {
    if (role.name === ref) return role.id;
  }
  throw new RoleNotFoundError(
    { status: 404, code: 'not_found', message: `no role ${JSON.stringify(ref)} in this tenant` },
    { hint: 'give the role id (role_…) of a deleted role, or see `svc roles ls --include-deleted`' },
  );
}
