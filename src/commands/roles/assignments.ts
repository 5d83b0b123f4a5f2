import { Command, Option } from 'commander';
import type { RoleAssignment } from '../../api/schemas/roles.js';
import type { Context } from '../../context.js';
import type { Column } from '../../output/output.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import { ASSIGNMENT_COLUMNS, resolveRole } from './shared.js';

export interface RolesAssignmentsOptions {
  /** One user's assignments; undefined: every assignment of the tenant. */
  user: string | undefined;
  role: string | undefined;
  includeInactive: boolean;
}

export function parseRolesAssignments(
  user: unknown,
  flags: Record<string, unknown>,
): RolesAssignmentsOptions {
  return {
    user: user === undefined ? undefined : nonEmpty('USER', user),
    role: flags.role === undefined ? undefined : nonEmpty('--role', flags.role),
    includeInactive: flags.all === true,
  };
}

/** The tenant-wide list names the user in its first column. */
const TENANT_COLUMNS: Array<Column<RoleAssignment>> = [
  { header: 'user', value: (a) => a.user_id, kind: 'id' },
  ...ASSIGNMENT_COLUMNS,
];

export async function runRolesAssignments(ctx: Context, options: RolesAssignmentsOptions): Promise<void> {
  const platform = await ctx.platform();
  const inactive = options.includeInactive ? { include_inactive: true } : {};
  if (options.user !== undefined && options.role === undefined) {
    const data = await platform.roles.listAssignments(options.user, inactive);
    await ctx.out.list(data.items, ASSIGNMENT_COLUMNS, {
      empty: `${options.user} holds no role in this tenant${options.includeInactive ? '' : ' (--all shows expired and revoked ones)'}.`,
    });
    return;
  }
  const role = options.role === undefined ? undefined : await resolveRole(platform, options.role);
  const rows = platform.roles.listAllTenantAssignments({
    limit: 500,
    ...(role ? { role_id: role.id } : {}),
    ...(options.user === undefined ? {} : { user_id: options.user }),
    ...inactive,
  });
  await ctx.out.list(rows, TENANT_COLUMNS, { empty: 'No role assignments match.' });
}

export function assignmentsCommand(make: MakeContext): Command {
  return new Command('assignments')
    .summary("List role assignments: a user's, a role's, or the whole tenant's")
    .description(
      'List the roles a user holds in the tenant, with expiry, who granted them and the audit ' +
        'trail id. Without USER, every assignment of the tenant (oldest first, streamed across ' +
        'pages); --role narrows it to one role (see also `svc roles holders`). With --all, expired, ' +
        'revoked and role-deleted assignments too (see the status column).',
    )
    .argument('[user]', 'user id, e.g. usr_analyst (default: every user)')
    .addOption(new Option('--role <role>', 'only this role (id or name)'))
    .addOption(new Option('--all', 'include expired, revoked and role-deleted assignments'))
    .addHelpText(
      'after',
      examples(
        ['svc roles assignments usr_analyst', 'what usr_analyst holds now'],
        ['svc roles assignments usr_analyst --all --json', 'the whole history, as JSON'],
        ['svc roles assignments --ndjson', 'every assignment of the tenant, one per line'],
      ),
    )
    .action(async (user: string | undefined, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseRolesAssignments(user, flags);
      await runRolesAssignments(await make(cmd), options);
    });
}
