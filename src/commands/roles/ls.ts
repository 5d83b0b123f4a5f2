import { Command, Option } from 'commander';
import type { RoleKind } from '../../api/roles.js';
import type { Role } from '../../api/schemas/roles.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { examples, type MakeContext } from '../kit.js';
import { ROLE_COLUMNS } from './shared.js';

export interface RolesLsOptions {
  kind: RoleKind | undefined;
  includeDeleted: boolean;
}

export function parseRolesLs(flags: Record<string, unknown>): RolesLsOptions {
  if (flags.custom === true && flags.builtin === true) {
    throw new UsageError('--custom and --builtin cannot be combined; leave both out to list every role');
  }
  return {
    kind: flags.custom === true ? 'custom' : flags.builtin === true ? 'builtin' : undefined,
    includeDeleted: flags.includeDeleted === true,
  };
}

export async function runRolesLs(ctx: Context, options: RolesLsOptions): Promise<void> {
  const platform = await ctx.platform();
  const query = {
    kind: options.kind,
    include_deleted: options.includeDeleted ? true : undefined,
    limit: 200,
  };
  const columns = options.includeDeleted
    ? [...ROLE_COLUMNS, { header: 'deleted', value: (r: Role) => r.deleted_at, kind: 'time' as const }]
    : ROLE_COLUMNS;
  await ctx.out.list(platform.roles.listAll(query), columns, {
    empty:
      options.kind === 'custom' ? 'No custom roles yet: create one with `svc roles create`.' : 'No roles.',
  });
  platform.sayTwice((note) => ctx.out.info(note), 'printed');
}

export function lsCommand(make: MakeContext): Command {
  return new Command('ls')
    .alias('list')
    .summary('List the roles of the tenant')
    .description(
      'List the built-in roles (tenant_admin, tenant_analyst, …, org_admin) and the custom ' +
        'roles of the tenant, with the permissions each grants. Built-in roles come first; their ' +
        'id is their name.',
    )
    .addOption(new Option('--custom', 'only custom roles'))
    .addOption(new Option('--builtin', 'only built-in roles'))
    .addOption(new Option('--include-deleted', 'also list soft-deleted custom roles'))
    .addHelpText(
      'after',
      examples(
        ['svc roles ls', 'every role, as a table on a terminal'],
        ['svc roles ls --custom --json', 'custom roles as JSON'],
        ['svc roles ls --ndjson | jq -r .name', 'role names, one per line'],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseRolesLs(flags);
      await runRolesLs(await make(cmd), options);
    });
}
