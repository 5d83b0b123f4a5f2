import { grantsPermission } from '../api/roles.js';
import type { LiveTenant } from './live.js';
import type { PlanChange } from './plan.js';

/**
 * What it takes to administer a tenant with svc apply: reading and managing roles and grants,
 * webhooks and OAuth clients. A plan may not take any of these away from the caller.
 */
export const ADMINISTERING = [
  'role.read',
  'role.manage',
  'role.assign',
  'webhook.read',
  'webhook.manage',
  'oauth_client.manage',
] as const;

/**
 * Marks the changes that would take away the caller's own administration of the tenant
 * (revoking their grant, deleting or narrowing a role they hold) as `refused`; svc apply will
 * not make them. The caller's grants after the plan still count when they merely get an expiry:
 * they administer until then, and the platform keeps the last tenant_admin anyway.
 */
export function refuseLockout(live: LiveTenant, changes: PlanChange[], caller: string): number {
  const mine = [...live.grants.values()].filter((g) => g.user === caller).map((g) => g.roleName);
  if (mine.length === 0) return 0;
  const permissionsOf = (role: string) => live.roles.get(role)?.permissions ?? [];
  const revoked = new Set(
    changes
      .filter((c) => c.kind === 'grant' && c.action === 'delete' && c.grant?.user === caller)
      .map((c) => c.grant!.role),
  );
  const deleted = new Set(
    changes.filter((c) => c.kind === 'role' && c.action === 'delete').map((c) => c.name),
  );
  const narrowed = new Map(
    changes
      .filter((c) => c.kind === 'role' && c.action === 'update')
      .flatMap((c) => {
        const permissions = c.fields.find((f) => f.field === 'permissions')?.to as string[] | undefined;
        return permissions ? [[c.name, permissions] as const] : [];
      }),
  );
  const before = mine.flatMap(permissionsOf);
  const after = mine
    .filter((role) => !revoked.has(role) && !deleted.has(role))
    .flatMap((role) => narrowed.get(role) ?? permissionsOf(role));
  const lost = ADMINISTERING.filter((p) => grantsPermission(before, p) && !grantsPermission(after, p));
  if (lost.length === 0) return 0;
  const reason = `it would take away your own administration of ${live.tenant.slug} (${lost.join(', ')}); keep it in the file, or have another administrator make this change`;
  let refused = 0;
  for (const change of changes) {
    const role = change.kind === 'grant' ? change.grant?.role : change.name;
    const yours =
      role !== undefined &&
      mine.includes(role) &&
      ((change.kind === 'grant' && change.action === 'delete' && change.grant?.user === caller) ||
        (change.kind === 'role' && (change.action === 'delete' || narrowed.has(role))));
    if (!yours) continue;
    const removes = lost.some((p) => grantsPermission(permissionsOf(role), p));
    if (!removes) continue;
    change.refused = reason;
    refused++;
  }
  return refused;
}
