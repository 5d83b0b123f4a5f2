import { namesTenant } from '../api/tenant-id.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

/**
 * `svc plan` and `svc apply` act in the tenants an access file's `tenants:` key names (a saved
 * plan: those it was planned for), not in the run's tenant. A tenant given on the command line by
 * --tenant (`svc --tenant acme-labs apply -f all.yaml`) is honoured as a bound: the run goes ahead
 * only when every tenant it acts in is that one, and is refused (exit 2, before any live state is
 * compared) when the file reaches further — `tenants: all` changed every tenant the credential
 * administers while the command line said one. SVC_TENANT is --tenant's variable (the contract)
 * and bounds the same way: a CI job scoped by it changed every tenant. The profile's tenant is a
 * default for one-tenant verbs, not a bound here (README, "Access as code").
 */
export function refuseBeyondGivenTenant(
  ctx: Context,
  /** `access.yaml's tenants: key names`, `plan.json was planned for`. */
  what: string,
  acting: ReadonlyArray<{ id: string; slug: string }>,
): void {
  const settings = ctx.settings();
  const given = settings.values.tenant;
  const source = settings.sources.tenant;
  if (given === undefined || (source !== 'flag' && source !== 'env')) return;
  if (acting.length === 0 || acting.every((t) => namesTenant(t, given))) return;
  const slugs = acting.map((t) => t.slug);
  const listed = slugs.length > 5 ? `${slugs.slice(0, 5).join(', ')}, …` : slugs.join(', ');
  const tenants = `${acting.length} tenant${acting.length === 1 ? '' : 's'}`;
  const [named, without] =
    source === 'flag'
      ? [`--tenant ${given}`, 'leave out --tenant']
      : [`SVC_TENANT=${given}`, 'run it with SVC_TENANT unset (`SVC_TENANT= svc …`)'];
  throw new UsageError(
    `${named} bounds this run to one tenant, but ${what} ${tenants} (${listed}): svc plan and svc apply act in the tenants the file's tenants: key names; nothing was compared or changed`,
    {
      code: 'outside_given_tenant',
      hint: `name only ${given} in the file's tenants: key, or ${without} to act in all of them`,
    },
  );
}
