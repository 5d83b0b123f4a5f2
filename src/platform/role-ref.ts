import { invisibleCharacter } from '../api/characters.js';
import { BUILTIN_TENANT_ROLES } from '../api/constants.js';
import type { Role } from '../api/schemas/roles.js';
import { didYouMean } from '../api/suggest.js';
import { serverTime } from '../api/time.js';
import { NotFoundError } from '../errors.js';
import { BadRequestError, UnprocessableEntityError } from '../http/errors.js';
import { quoted } from '../output/format.js';
import { sym } from '../output/symbols.js';
import { type LineHint, RoleNotFoundError, whereToLook } from './errors.js';
import type { Platform } from './index.js';
import type { CallOptions } from './transport.js';

/** The shape of a custom role's id; custom role names may not take it (the sandbox refuses them). */
export const ROLE_ID = /^role_[0-9a-f]{24}$/;

/** Whether `ref` is a role's id as it is (a built-in role's id is its name): no lookup needed. */
export const isRoleId = (ref: string): boolean =>
  (BUILTIN_TENANT_ROLES as readonly string[]).includes(ref) || ROLE_ID.test(ref);

/**
 * Orders roles live first (no deleted_at), then by deletion, the latest first: by instant however
 * the server wrote it (serverTime: `Z`, `+00:00`, another offset), never as text, where `…Z` and
 * `…+00:00` mixed ordered wrongly. A deleted_at that is not a time comes after every time (among
 * themselves as text, latest first); equal instants keep their order.
 */
export function liveThenLatestDeleted(
  a: { deleted_at?: string | null | undefined },
  b: { deleted_at?: string | null | undefined },
): number {
  // Live: +Infinity; a time: its instant; not a time: -Infinity, then its text.
  const at = (role: typeof a) => {
    if (role.deleted_at === null || role.deleted_at === undefined) return Number.POSITIVE_INFINITY;
    const ms = serverTime(role.deleted_at);
    return Number.isFinite(ms) ? ms : Number.NEGATIVE_INFINITY;
  };
  const [x, y] = [at(a), at(b)];
  if (x !== y) return y > x ? 1 : -1;
  if (x !== Number.NEGATIVE_INFINITY) return 0;
  const [p, q] = [a.deleted_at!, b.deleted_at!];
  return p < q ? 1 : p > q ? -1 : 0;
}

/**
 * A role named by id or name. One GET answers an id (built-in ids are their names; a deleted
 * custom role is still read by id); a name is looked up among the tenant's roles, deleted ones
 * too: a live role of that name first, else the role of that name deleted last. So a name stands
 * for the role its id does, and every verb answers the same by either (attack26a F1: a deleted
 * role's name was an "unknown role", did you mean another, where its id "was deleted"): a change
 * or grant of a deleted role goes to the platform, which refuses it (409 role_deleted), as by id.
 * `deleted` says only how a name no role has is refused: for what reads a role's history (`svc
 * audit ls --role`, `svc roles holders --all`, `svc roles get`), pointing to deleted roles' ids;
 * without, as an unknown role, with a live role's name to suggest, for what changes or grants one.
 */
export async function findRoleByRef(
  platform: Platform,
  ref: string,
  { deleted }: { deleted: boolean },
): Promise<Role> {
  return (await rolesByRef(platform, ref, { deleted }))[0]!;
}

/**
 * Every role `ref` names, the one findRoleByRef chooses first, then the others that have had
 * that name (live first, then the latest deleted first): a name is reused once its role is
 * deleted, so one name can stand for several roles over time (`svc audit ls --role` says so).
 * A ref holding an invisible character is no id (no id holds one), but may be a name: a joiner in
 * an emoji (`👩‍💻-devs`) or a Persian word (review20b F6). It is looked up among the names first,
 * and refused as a paste's leftover (path``'s words: "holds an invisible character") only when no
 * role has it: the server's own names say what a name may hold, not a guess at grapheme clusters.
 */
export async function rolesByRef(
  platform: Platform,
  ref: string,
  { deleted }: { deleted: boolean },
): Promise<Role[]> {
  const invisible = invisibleCharacter(ref) !== undefined;
  if (!invisible) {
    try {
      return [await platform.roles.get(ref)];
    } catch (error) {
      if (!(error instanceof RoleNotFoundError)) throw error;
    }
  }
  const named: Role[] = [];
  const names: string[] = [];
  // For a change or a grant, the live roles first, without include_deleted, which the reference's
  // GET /v1/roles does not have (a strict server refuses it: review26a M2); the deleted ones are
  // asked for only when no live role has the name, and a refusal of that read leaves it unknown.
  if (!deleted) {
    for await (const role of platform.roles.listAll({ limit: 200 })) {
      if (role.deleted_at) continue;
      names.push(role.name);
      if (role.name === ref) named.push(role);
    }
    if (named.length > 0) return named.sort(liveThenLatestDeleted);
  }
  try {
    for await (const role of platform.roles.listAll({ limit: 200, include_deleted: true })) {
      if (deleted) names.push(role.name);
      if (role.name === ref) named.push(role);
    }
  } catch (error) {
    if (deleted || !(error instanceof BadRequestError || error instanceof UnprocessableEntityError))
      throw error;
  }
  if (named.length > 0) return named.sort(liveThenLatestDeleted);
  // No role has that name: the get refuses it before sending, naming the character (path``).
  if (invisible) await platform.roles.get(ref);
  if (!deleted) {
    throw new NotFoundError(`unknown role ${quoted(ref)}${didYouMean(ref, names)} in this tenant`, {
      hint: (whereToLook(RoleNotFoundError) as LineHint)(platform.svc),
    });
  }
  throw new RoleNotFoundError(
    {
      status: 404,
      code: 'not_found',
      message: `no role ${quoted(ref)} in this tenant${didYouMean(ref, [...new Set(names)])}`,
    },
    {
      // role_ is kept for ids (src/api/roles.ts): a name never starts so.
      hint: ref.startsWith('role_')
        ? `no role of this tenant, live or deleted, has that id: see \`${platform.svc('roles ls --include-deleted')}\` for their ids (--tenant for another tenant's)`
        : `give the role id (role_${sym.ellipsis}) of a deleted role, or see \`${platform.svc('roles ls --include-deleted')}\``,
    },
  );
}

/**
 * The live role named `name` (no deleted_at), read among the tenant's roles; undefined when none
 * is. A 409 role_name_taken is read back so: what has the name now, and with which permissions.
 */
export async function liveRoleNamed(
  platform: Platform,
  name: string,
  options?: CallOptions,
): Promise<Role | undefined> {
  let live: Role | undefined;
  for await (const role of platform.roles.listAll({ limit: 200 }, options)) {
    if (!role.deleted_at && role.name === name) live = role;
  }
  return live;
}

/** What a role `has` grants beyond the `wanted` permissions, and what of them it lacks (each sorted). */
export function permissionDifference(
  has: readonly string[],
  wanted: readonly string[],
): { more: string[]; fewer: string[] } {
  const held = new Set(has);
  const asked = new Set(wanted);
  return {
    more: [...held].filter((p) => !asked.has(p)).sort(),
    fewer: [...asked].filter((p) => !held.has(p)).sort(),
  };
}
