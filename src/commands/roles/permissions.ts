import { Command } from 'commander';
import type { PermissionEntry } from '../../api/schemas/roles.js';
import type { Context } from '../../context.js';
import type { Column } from '../../output/output.js';
import { examples, listVerb, type MakeContext } from '../kit.js';

const PERMISSION_COLUMNS: Array<Column<PermissionEntry>> = [
  { header: 'permission', value: (p) => p.name },
  { header: 'description', value: (p) => p.description },
  { header: 'built-in roles', value: (p) => p.builtin_roles, optional: true },
];

export async function runRolesPermissions(ctx: Context): Promise<void> {
  const data = await (await ctx.platform()).roles.permissions();
  await ctx.out.list(data.items, PERMISSION_COLUMNS, { empty: 'The platform lists no permissions.' });
}

export function permissionsCommand(make: MakeContext): Command {
  return listVerb(new Command('permissions'))
    .summary('List the permissions a role can grant')
    .description(
      'The permission catalog: every permission a custom role may hold, what it allows, and the\n' +
        'built-in roles that grant it (least privileged first). A permission grants every more\n' +
        'specific one below it: rule.write grants rule.write.fx.',
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
