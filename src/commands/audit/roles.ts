import type { Platform } from '../../platform/index.js';
import { findRoleByRef } from '../../platform/role-ref.js';

/** The id of a role named by id or name, for an audit filter; a deleted role's entries stay in the trail. */
export async function resolveRoleId(platform: Platform, ref: string): Promise<string> {
  return (await findRoleByRef(platform, ref, { deleted: true })).id;
}
