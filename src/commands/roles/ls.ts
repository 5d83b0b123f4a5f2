import { Command, Option } from 'commander';
import type { RoleKind } from '../../api/roles.js';
import type { Role } from '../../api/schemas/roles.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { examples, type MakeContext } from '../kit.js';
import { Listing, type ListingOptions, listingOptions, parseListing } from '../listing.js';
import { ROLE_COLUMNS } from './shared.js';

/** The largest page GET /v1/roles gives (the sandbox's; the reference shows no bound). */
const ROLE_PAGE_MAX = 200;

export interface RolesLsOptions extends ListingOptions {
  kind: RoleKind | undefined;
  includeDeleted: boolean;
}

export function parseRolesLs(flags: Record<string, unknown>): RolesLsOptions {
  if (flags.custom === true && flags.builtin === true) {
    throw new UsageError('--custom and --builtin cannot be combined; leave both out to list every role');
  }
  return {
    ...parseListing(flags),
    kind: flags.custom === true ? 'custom' : flags.builtin === true ? 'builtin' : undefined,
    includeDeleted: flags.includeDeleted === true,
  };
}

export async function runRolesLs(ctx: Context, options: RolesLsOptions): Promise<void> {
  const platform = await ctx.platform();
  const query = {
    kind: options.kind,
    include_deleted: options.includeDeleted ? true : undefined,
  };
  const listing = new Listing<Role>(options, ROLE_PAGE_MAX);
  const columns = options.includeDeleted
    ? [...ROLE_COLUMNS, { header: 'deleted', value: (r: Role) => r.deleted_at, kind: 'time' as const }]
    : ROLE_COLUMNS;
  await ctx.out.list(
    listing.items((page) => platform.roles.list({ ...query, ...page })),
    columns,
    {
      empty:
        options.kind === 'custom' ? 'no custom roles yet: create one with `svc roles create`' : 'no roles',
    },
  );
  // A cursor is bound to the filters that made it: the continuation repeats them.
  const kind = options.kind === undefined ? '' : ` --${options.kind}`;
  const deleted = options.includeDeleted ? ' --include-deleted' : '';
  listing.hintMore(ctx, svcCommand(ctx.settings(), `roles ls${kind}${deleted}`));
}

export function lsCommand(make: MakeContext): Command {
  const command = new Command('ls')
    .alias('list')
    .summary('List the roles of the tenant')
    .description(
      'List the built-in roles (tenant_admin, tenant_analyst, …, org_admin) and the custom ' +
        'roles of the tenant, with the permissions each grants. Built-in roles come first; their ' +
        'id is their name.',
    );
  for (const option of listingOptions('roles')) command.addOption(option);
  return command
    .addOption(new Option('--custom', 'only custom roles'))
    .addOption(new Option('--builtin', 'only built-in roles'))
    .addOption(new Option('--include-deleted', 'also list soft-deleted custom roles'))
    .addHelpText(
      'after',
      examples(
        ['svc roles ls', 'the first 50 roles, as a table on a terminal'],
        ['svc roles ls --custom --json', 'custom roles as JSON'],
        ['svc roles ls --all --ndjson | jq -r .name', 'every role name, one per line'],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseRolesLs(flags);
      await runRolesLs(await make(cmd), options);
    });
}
