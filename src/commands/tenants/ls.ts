import { Command, Option } from 'commander';
import {
  BUILTIN_TENANT_ROLES,
  ORG_ADMIN,
  SUBSCRIPTION_TIERS,
  type SubscriptionTier,
  TENANT_PAGE,
} from '../../api/constants.js';
import { RESERVED_ROLE_PREFIXES, ROLE_NAME_RE } from '../../api/roles.js';
import type { TenantSummary } from '../../api/schemas/tenants.js';
import { didYouMean } from '../../api/suggest.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { quoted } from '../../output/format.js';
import type { Column } from '../../output/output.js';
import { identityDespiteTenant, notYoursWarning } from '../../platform/tenant-ref.js';
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
  { header: 'slug', value: (t) => t.slug, kind: 'name' },
  { header: 'name', value: (t) => t.display_name },
  { header: 'tier', value: (t) => t.subscription_tier, optional: 3 },
  { header: 'role', value: (t) => t.role, kind: 'name', optional: 4 },
  { header: 'currency', value: (t) => t.default_currency, optional: 2 },
  { header: 'time zone', value: (t) => t.time_zone, optional: 1 },
  { header: 'created', value: (t) => t.created_at, kind: 'time' },
];

/** The roles a tenant summary names by themselves: the reference's built-in ones and org_admin. */
const NAMED_ROLES: readonly string[] = [...BUILTIN_TENANT_ROLES, ORG_ADMIN];

/**
 * --role: the caller's role in a tenant is a built-in role, org_admin, or a custom role's name. A
 * value none of those can be (a reserved prefix that names no built-in role, a name no custom
 * role may take) is refused before the request: the answer would be an empty list that reads as
 * "you hold it nowhere".
 */
function roleFlag(role: string): string {
  if (NAMED_ROLES.includes(role)) return role;
  const customName = ROLE_NAME_RE.test(role) && !RESERVED_ROLE_PREFIXES.some((p) => role.startsWith(p));
  if (customName) return role;
  const lower = role.toLowerCase();
  const suggestion = NAMED_ROLES.includes(lower)
    ? ` (did you mean ${lower}?)`
    : didYouMean(lower, NAMED_ROLES);
  throw new UsageError(`--role ${quoted(role)} is not a role name${suggestion}`, {
    hint: `give ${NAMED_ROLES.join(', ')}, or a custom role's name`,
  });
}

export function parseTenantsLs(flags: Record<string, unknown>): TenantsLsOptions {
  const options: TenantsLsOptions = {
    ...parseListing(flags),
    role: flags.role === undefined ? undefined : roleFlag(nonEmpty('--role', flags.role)),
    tier: choiceFlag('--tier', flags.tier, SUBSCRIPTION_TIERS),
  };
  return options;
}

export async function runTenantsLs(ctx: Context, options: TenantsLsOptions): Promise<void> {
  const platform = await ctx.platform();
  const query = { role: options.role, subscription_tier: options.tier };
  // Which tenants you have does not depend on the run's tenant: one that is not yours (a profile
  // reused for another login) is said, and the list asked without it, not refused.
  let outside: { tenant: null } | undefined;
  if (ctx.settings().sources.tenant === 'profile') {
    const { identity, refused } = await identityDespiteTenant(platform, ctx.settings());
    if (refused) {
      ctx.out.warn(notYoursWarning(ctx.settings(), identity.tenants, Boolean(ctx.env.SVC_TOKEN?.trim())));
      outside = { tenant: null };
    }
  }
  const listing = new Listing<TenantSummary>(options, TENANT_PAGE.max);
  const tenants = listing.items((page) => platform.tenants.list({ ...query, ...page }, outside));
  const custom = options.role !== undefined && !NAMED_ROLES.includes(options.role);
  await ctx.out.list(tenants, TENANT_COLUMNS, {
    empty: custom
      ? `no tenants match: ${options.role} is not a built-in role, so it matched custom role names exactly, and you hold none by that name`
      : 'no tenants match',
  });
  const filters = flagWords([
    ['--role', options.role],
    ['--tier', options.tier],
  ]);
  listing.hintMore(ctx, svcCommand(ctx.settings(), `tenants ls${filters}`));
}

export function lsCommand(make: MakeContext): Command {
  const command = new Command('ls')
    .alias('list')
    .summary('List the tenants visible to you')
    .description(
      'List the tenants visible to you, with your highest live role in each.\n\n' +
        'With an organisation set (--org, SVC_ORG or the profile), an org_admin lists every tenant of the\n' +
        'organisation; such cross-tenant listings are recorded in the security events log.\n' +
        `Without --all, the first ${DEFAULT_LIMIT} (or --limit) are printed and where to continue is shown on stderr.`,
    );
  for (const option of listingOptions('tenants')) command.addOption(option);
  return command
    .addOption(
      new Option(
        '--role <role>',
        "only tenants where you hold this role (any of your live roles there, not only the one shown): a built-in role (e.g. tenant_admin), org_admin or a custom role's name",
      ),
    )
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
