import { grantsPermission } from '../../api/roles.js';
import type { Role } from '../../api/schemas/roles.js';
import { lookupMayFail } from '../../errors.js';
import { andList, counted } from '../../output/format.js';
import type { Platform } from '../../platform/index.js';
import { listRoles } from './shared.js';

/**
 * What a change to a custom role's permissions means, said truly: a holder who keeps a permission
 * through another live role, or through a broader permission the role keeps (rule.write grants
 * rule.write.fx), does not lose it, and one who had it already does not gain it. The holders'
 * other live roles are read once (the tenant's active assignments and roles); when they cannot be
 * read, the words are about the role, not its holders.
 */

/** Each holder of the role, with the permissions their other live roles grant. */
export type Holders = Array<{ user: string; elsewhere: string[] }>;

/**
 * The role's holders and what else they hold, from the tenant's active assignments (one listing)
 * and roles; undefined when the server cannot say (the listing is the sandbox's, not the
 * reference's).
 */
export async function readHolders(platform: Platform, roleId: string): Promise<Holders | undefined> {
  try {
    const byUser = new Map<string, string[]>();
    for await (const a of platform.roles.listAllTenantAssignments({ limit: 500 })) {
      const roles = byUser.get(a.user_id);
      if (roles) roles.push(a.role_id);
      else byUser.set(a.user_id, [a.role_id]);
    }
    const holders = [...byUser].filter(([, roles]) => roles.includes(roleId));
    if (holders.length === 0) return [];
    const permissions = new Map((await listRoles(platform)).map((r) => [r.id, r.permissions]));
    return holders.map(([user, roles]) => ({
      user,
      elsewhere: roles.filter((r) => r !== roleId).flatMap((r) => permissions.get(r) ?? []),
    }));
  } catch (error) {
    if (!lookupMayFail(error)) throw error;
    return undefined;
  }
}

/** The permission of `held` that grants `permission` (itself or a broader one), if any. */
const grantedBy = (held: readonly string[], permission: string): string | undefined =>
  held.find((p) => grantsPermission([p], permission));

/**
 * The words after `✓ role … now has …`: `; its 2 holders gain rule.read and lose exception.read`,
 * `; its 1 holder keeps exception.read through another role`, `; nobody holds it`, or, when the
 * holders are unknown, `; it now grants rule.read and no longer grants exception.read`. Empty
 * when nothing but the description changed.
 */
export function changeSaid(before: Role, after: Role, holders: Holders | undefined): string {
  if (!changesHolders(before, after)) return '';
  const { gained, lost } = permissionChange(before, after);
  const renamed = after.name !== before.name;
  if (holders === undefined) return `; ${forRole(before, after, gained, lost)}`;
  if (holders.length === 0) return '; nobody holds it';
  const n = holders.length;
  const one = n === 1;
  const s = one ? 's' : '';
  const words: string[] = [];
  const all = { gain: [] as string[], lose: [] as string[] };
  const partly: string[] = [];
  for (const p of gained) {
    const gainers = holders.filter(
      (h) => !grantsPermission([...before.permissions, ...h.elsewhere], p),
    ).length;
    const via = grantedBy(before.permissions, p);
    if (gainers === n) all.gain.push(p);
    else if (gainers === 0) words.push(`already had ${p} through ${via ?? otherRoles(one)}`);
    else
      partly.push(
        `${gainers}${THEM} ${gainers === 1 ? 'gains' : 'gain'} ${p} (${n - gainers} had it already)`,
      );
  }
  for (const p of lost) {
    const losers = holders.filter((h) => !grantsPermission([...after.permissions, ...h.elsewhere], p)).length;
    const via = grantedBy(after.permissions, p);
    if (losers === n) all.lose.push(p);
    else if (losers === 0) {
      words.push(`keep${s} ${p} through ${via ? `${via}, which the role keeps` : otherRoles(one)}`);
    } else {
      const keepers = n - losers;
      partly.push(
        `${losers}${THEM} ${losers === 1 ? 'loses' : 'lose'} ${p} (${keepers} ${keepers === 1 ? 'keeps' : 'keep'} it through other roles)`,
      );
    }
  }
  if (all.lose.length) words.unshift(`lose${s} ${all.lose.join(', ')}`);
  if (all.gain.length) words.unshift(`gain${s} ${all.gain.join(', ')}`);
  if (renamed && words.length === 0 && partly.length === 0) words.push(`hold${s} it as ${after.name} now`);
  const its = `its ${counted(n, 'holder')}`;
  // `its 2 holders gain x, and 1 of them loses y (…)`; without a first clause, `of its 2 holders, 1 loses y (…)`.
  if (words.length === 0) return `; of ${its}, ${partly.map((w) => w.replace(THEM, '')).join(', and ')}`;
  return `; ${[`${its} ${andList(words)}`, ...partly].join(', and ')}`;
}

const THEM = ' of them';

const permissionChange = (before: Role, after: Role) => ({
  gained: after.permissions.filter((p) => !before.permissions.includes(p)),
  lost: before.permissions.filter((p) => !after.permissions.includes(p)),
});

/** Whether the update changed what holders hold, or its name (not only its description). */
export function changesHolders(before: Role, after: Role): boolean {
  const { gained, lost } = permissionChange(before, after);
  return gained.length > 0 || lost.length > 0 || after.name !== before.name;
}

const otherRoles = (one: boolean) => (one ? 'another role' : 'other roles');

/** The change in words about the role itself, for when its holders cannot be read. */
function forRole(before: Role, after: Role, gained: string[], lost: string[]): string {
  const words: string[] = [];
  const now = gained.filter((p) => !grantedBy(before.permissions, p));
  const still = lost.filter((p) => grantedBy(after.permissions, p));
  if (now.length) words.push(`now grants ${now.join(', ')}`);
  const gone = lost.filter((p) => !still.includes(p));
  if (gone.length) words.push(`no longer grants ${gone.join(', ')}`);
  for (const p of still) words.push(`still grants ${p} through ${grantedBy(after.permissions, p)}`);
  for (const p of gained.filter((q) => !now.includes(q)))
    words.push(`already granted ${p} through ${grantedBy(before.permissions, p)}`);
  if (words.length === 0) words.push(`is named ${after.name} now`);
  return `it ${andList(words)}`;
}
