import type { Role } from '../api/schemas/roles.js';
import { didYouMean } from '../api/suggest.js';
import { NotFoundError } from '../errors.js';
import { RoleNotFoundError } from './errors.js';
import type { Platform } from './index.js';

/**
 * A role named by id or name. One GET answers an id (built-in ids are their names; a deleted
 * custom role is still read by id); a name is looked up among the tenant's roles. With
 * `deleted`, deleted roles count too — a live role of that name first, else the role of that
 * name deleted last — for what reads a role's history (`svc audit ls --role`, `svc roles holders
 * --all`, `svc roles get`); without, only live roles, for what changes or grants one.
 */
export async function findRoleByRef(
  platform: Platform,
  ref: string,
  { deleted }: { deleted: boolean },
): Promise<Role> {
  try {
    return await platform.roles.get(ref);
  } catch (error) {
    if (!(error instanceof RoleNotFoundError)) throw error;
  }
  let gone: Role | undefined;
  const names: string[] = [];
  for await (const role of platform.roles.listAll({
    limit: 200,
    ...(deleted ? { include_deleted: true } : {}),
  })) {
    names.push(role.name);
    if (role.name !== ref) continue;
    if (role.deleted_at === null || role.deleted_at === undefined) return role;
    if (!gone || (gone.deleted_at ?? '') < role.deleted_at) gone = role;
  }
  if (gone) return gone;
  if (!deleted) {
    throw new NotFoundError(`unknown role ${JSON.stringify(ref)}${didYouMean(ref, names)} in this tenant`, {
      hint: 'see `svc roles ls` for the roles of the tenant',
    });
  }
  throw new RoleNotFoundError(
    {
      status: 404,
      code: 'not_found',
      message: `no role ${JSON.stringify(ref)} in this tenant${didYouMean(ref, [...new Set(names)])}`,
    },
    {
      // role_ is kept for ids (src/api/roles.ts): a name never starts so.
      hint: ref.startsWith('role_')
        ? "no role of this tenant, live or deleted, has that id: see `svc roles ls --include-deleted` for their ids (--tenant for another tenant's)"
        : 'give the role id (role_…) of a deleted role, or see `svc roles ls --include-deleted`',
    },
  );
}
