import { Command, Option } from 'commander';
import { SUBSCRIPTION_TIERS, type SubscriptionTier, TENANT_PAGE } from '../../api/constants.js';
import type { TenantSummary } from '../../api/schemas/tenants.js';
import type { Context } from '../../context.js';
import type { Column } from '../../output/output.js';
import { choiceFlag, examples, intFlag, type MakeContext, nonEmpty } from '../kit.js';

export interface TenantsLsOptions {
  limit: number | undefined;
  cursor: string | undefined;
  all: boolean;
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
    limit: intFlag('--limit', flags.limit, TENANT_PAGE.min, TENANT_PAGE.max),
    cursor: flags.cursor === undefined ? undefined : nonEmpty('--cursor', flags.cursor),
    all: flags.all === true,
    role: flags.role === undefined ? undefined : nonEmpty('--role', flags.role),
    tier: choiceFlag('--tier', flags.tier, SUBSCRIPTION_TIERS),
  };
  return options;
}

export async function runTenantsLs(ctx: Context, options: TenantsLsOptions): Promise<void> {
  const platform = await ctx.platform();
  const query = {
    limit: options.limit,
    cursor: options.cursor,
    role: options.role,
    subscription_tier: options.tier,
  };
  if (options.all) {
    // --limit is the page size here; every page is fetched and streamed as it arrives.
    await ctx.out.list(platform.tenants.listAll(query), TENANT_COLUMNS, {
      empty: 'No tenants match.',
    });
    return;
  }
  const data = await platform.tenants.list(query);
  await ctx.out.list(data.items, TENANT_COLUMNS, { empty: 'No tenants match.' });
  if (data.next_cursor && !ctx.out.isMachine) {
    ctx.out.info(`More tenants: svc tenants ls --cursor ${data.next_cursor}  (or --all for every page)`);
  }
}

export function lsCommand(make: MakeContext): Command {
  return new Command('ls')
    .alias('list')
    .summary('List the tenants visible to you')
    .description(
      'List the tenants visible to you, with your role in each.\n\n' +
        'With an organisation set (--org, SVC_ORG or the profile), an org_admin lists every tenant of the\n' +
        'organisation; such cross-tenant listings are recorded in the security events log.\n' +
        'Without --all one page is printed and the next cursor is shown on stderr.',
    )
    .addOption(
      new Option(
        '--limit <n>',
        `page size, ${TENANT_PAGE.min}-${TENANT_PAGE.max} (default ${TENANT_PAGE.default})`,
      ),
    )
    .addOption(new Option('--cursor <cursor>', 'start after this cursor (from a previous page)'))
    .addOption(new Option('--all', 'fetch every page, streaming rows as they arrive'))
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
