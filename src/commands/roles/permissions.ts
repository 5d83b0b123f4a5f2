import { Command } from 'commander';
import type { PermissionEntry } from '../../api/schemas/roles.js';
import type { Context } from '../../context.js';
import type { Column } from '../../output/output.js';
import { examples, listVerb, type MakeContext } from '../kit.js';

const PERMISSION_COLUMNS: Array<Column<PermissionEntry>> = [
  { header: 'permission', value: (p) => p.name, kind: 'name' },
  { header: 'description', value: (p) => p.description },
  { header: 'built-in roles', value: (p) => p.builtin_roles, optional: true },
  // organization: granted by org_role (org_admin) only; a custom role carrying it is refused.
  { header: 'scope', value: (p) => p.scope, optional: true },
];

export async function runRolesPermissions(ctx: Context): Promise<void> {
  const data = await (await ctx.platform()).roles.permissions();
  await ctx.out.list(data.items, PERMISSION_COLUMNS, { empty: 'the platform lists no permissions' });
}

export function permissionsCommand(make: MakeContext): Command {
  return listVerb(new Command('permissions'))
    .summary('List the permissions a role can grant')
    .description(
      'The permission catalog: every permission, what it allows, the built-in roles that grant it\n' +
        '(least privileged first) and its scope. A custom role may hold the tenant ones; an\n' +
        'organization one (tenant.read) is granted by org_admin only and refused in a custom role.\n' +
        'A permission grants every more specific one below it: rule.write grants rule.write.fx.',
    )
    .addHelpText(
      'after',
      examples(
        ['svc roles permissions', 'the catalog'],
        [
          'svc roles create --name fx-desk --permission exception.read --permission rule.write.fx',
          'then use them',
        ],
      ),
    )
    .action(async (_flags: unknown, cmd: Command) => runRolesPermissions(await make(cmd)));
}
