import { Command, Option } from 'commander';
import { SUBSCRIPTION_TIERS, type SubscriptionTier, TENANT_PAGE } from '../../api/constants.js';
import type { TenantSummary } from '../../api/schemas/tenants.js';
import type { Context } from '../../context.js';
import type { Column } from '../../output/output.js';
import { choiceFlag, examples, type MakeContext, nonEmpty } from '../kit.js';
import {
  DEFAULT_LIMIT,
  flagWords,
  Listing,
  type ListingOptions,
  listingOptions,
  parseListing,
} from '../listing.js';

export interface TenantsLsOptions extends ListingOptions {
  role: string | undefined;
  tier: SubscriptionTier | undefined;
}

export const TENANT_COLUMNS: Array<Column<TenantSummary>> = [
  { header: 'id', value: (t) => t.id, kind: 'id' },
  { header: 'slug', value: (t) => t.slug },
  { header: 'name', value: (t) => t.display_name },
  { header: 'tier', value: (t) => t.subscription_tier, optional: 3 },
  { header: 'role', value: (t) => t.role, optional: 4 },
  { header: 'currency', value: (t) => t.default_currency, optional: 2 },
  { header: 'time zone', value: (t) => t.time_zone, optional: 1 },
  { header: 'created', value: (t) => t.created_at, kind: 'time' },
];

export function parseTenantsLs(flags: Record<string, unknown>): TenantsLsOptions {
  const options: TenantsLsOptions = {
    ...parseListing(flags),
    role: flags.role === undefined ? undefined : nonEmpty('--role', flags.role),
    tier: choiceFlag('--tier', flags.tier, SUBSCRIPTION_TIERS),
  };
  return options;
}

export async function runTenantsLs(ctx: Context, options: TenantsLsOptions): Promise<void> {
  const platform = await ctx.platform();
  const query = { role: options.role, subscription_tier: options.tier };
  const listing = new Listing<TenantSummary>(options, TENANT_PAGE.max);
  const tenants = listing.items((page) => platform.tenants.list({ ...query, ...page }));
  await ctx.out.list(tenants, TENANT_COLUMNS, { empty: 'No tenants match.' });
  const filters = flagWords([
    ['--role', options.role],
    ['--tier', options.tier],
  ]);
  listing.hintMore(ctx, `svc tenants ls${filters}`);
}

export function lsCommand(make: MakeContext): Command {
  const command = new Command('ls')
    .alias('list')
    .summary('List the tenants visible to you')
    .description(
      'List the tenants visible to you, with your role in each.\n\n' +
        'With an organisation set (--org, SVC_ORG or the profile), an org_admin lists every tenant of the\n' +
        'organisation; such cross-tenant listings are recorded in the security events log.\n' +
        `Without --all, the first ${DEFAULT_LIMIT} (or --limit) are printed and where to continue is shown on stderr.`,
    );
  for (const option of listingOptions('tenants')) command.addOption(option);
  return command
    .addOption(new Option('--role <role>', 'only tenants where your role is this, e.g. tenant_admin'))
    .addOption(
      new Option('--tier <tier>', 'only tenants on this subscription tier').choices(SUBSCRIPTION_TIERS),
    )
    .addHelpText(
      'after',
      examples(
        ['svc tenants ls', 'the first page, as a table on a terminal'],
        ['svc tenants ls --tier enterprise --role tenant_admin', 'enterprise tenants you administer'],
        ['svc tenants ls --all --ndjson | jq -r .slug', 'every tenant, one JSON object per line'],
        ['svc tenants ls --all --org org_demo', 'every tenant of an organisation (org_admin)'],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseTenantsLs(flags);
      await runTenantsLs(await make(cmd), options);
    });
}
