import { Command, Option } from 'commander';
import type { RoleAssignment } from '../../api/schemas/roles.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Column } from '../../output/output.js';
import { shellWord } from '../../system/shell-words.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import { DEFAULT_LIMIT, flagWords } from '../listing.js';
import {
  type AssignmentListingOptions,
  assignmentListingOptions,
  inactiveQuery,
  listTenantAssignments,
  noteAllMeaning,
  parseAssignmentListing,
} from './assignment-listing.js';
import { ASSIGNMENT_COLUMNS, resolveRole } from './shared.js';

export interface RolesAssignmentsOptions extends AssignmentListingOptions {
  /** One user's assignments; undefined: every assignment of the tenant. */
  user: string | undefined;
  role: string | undefined;
}

export function parseRolesAssignments(
  user: unknown,
  flags: Record<string, unknown>,
): RolesAssignmentsOptions {
  const options: RolesAssignmentsOptions = {
    user: user === undefined ? undefined : nonEmpty('USER', user),
    role: flags.role === undefined ? undefined : nonEmpty('--role', flags.role),
    ...parseAssignmentListing(flags),
  };
  if (options.user !== undefined && options.role === undefined && options.cursor !== undefined) {
    throw new UsageError(
      "--cursor continues a listing of the tenant's assignments, and a user's come in one answer",
      { hint: 'drop --cursor (or add --role)' },
    );
  }
  return options;
}

/** The tenant-wide list names the user in its first column. */
const TENANT_COLUMNS: Array<Column<RoleAssignment>> = [
  { header: 'user', value: (a) => a.user_id, kind: 'id' },
  ...ASSIGNMENT_COLUMNS,
];

export async function runRolesAssignments(ctx: Context, options: RolesAssignmentsOptions): Promise<void> {
  noteAllMeaning(ctx, options);
  const platform = await ctx.platform();
  if (options.user !== undefined && options.role === undefined) {
    await listUserAssignments(ctx, options, options.user);
    return;
  }
  const role = options.role === undefined ? undefined : await resolveRole(platform, options.role);
  const user = options.user === undefined ? '' : ` ${shellWord(options.user)}`;
  await listTenantAssignments(
    ctx,
    platform,
    options,
    {
      ...(role ? { role_id: role.id } : {}),
      ...(options.user === undefined ? {} : { user_id: options.user }),
    },
    {
      columns: TENANT_COLUMNS,
      empty: 'no role assignments match',
      command: svcCommand(ctx.settings(), `roles assignments${user}${flagWords([['--role', options.role]])}`),
    },
  );
}

/**
 * One user's assignments: GET /v1/users/{id}/roles answers them all at once (a user holds few
 * roles), so --limit cuts that answer and --all is every one.
 */
async function listUserAssignments(
  ctx: Context,
  options: RolesAssignmentsOptions,
  user: string,
): Promise<void> {
  const platform = await ctx.platform();
  const { items } = await platform.roles.listAssignments(user, inactiveQuery(options));
  const shown = options.limit === undefined ? items : items.slice(0, options.limit);
  await ctx.out.list(shown, ASSIGNMENT_COLUMNS, {
    empty: `${user} holds no role in this tenant${options.includeEnded ? '' : ' (--include-ended shows expired and revoked ones)'}`,
  });
  if (shown.length < items.length) {
    const mode = ctx.out.isMachine ? ` --${ctx.out.mode}` : '';
    const ended = options.includeEnded ? ' --include-ended' : '';
    ctx.out.info(
      `${shown.length} of ${items.length} shown; every one with: ${svcCommand(ctx.settings(), `roles assignments ${shellWord(user)}${ended}${mode} --all`)}`,
    );
  }
}

export function assignmentsCommand(make: MakeContext): Command {
  const command = new Command('assignments')
    .summary("List role assignments: a user's, a role's, or the whole tenant's")
    .description(
      'List the roles a user holds in the tenant, with expiry, who granted them and the audit ' +
        'trail id. Without USER, every assignment of the tenant (oldest first); --role narrows it ' +
        'to one role (see also `svc roles holders`). With --include-ended, expired, revoked and ' +
        'role-deleted assignments too (see the status column).\n' +
        `Without --all, the first ${DEFAULT_LIMIT} (or --limit) are printed and where to continue is shown on stderr; ` +
        '--all streams every page (it used to mean --include-ended here, and says so on stderr when given without it).',
    )
    .argument('[user]', 'user id, e.g. usr_analyst (default: every user)')
    .addOption(new Option('--role <role>', 'only this role (id or name)'));
  for (const option of assignmentListingOptions()) command.addOption(option);
  return command
    .addHelpText(
      'after',
      examples(
        ['svc roles assignments usr_analyst', 'what usr_analyst holds now'],
        ['svc roles assignments usr_analyst --include-ended --json', 'the whole history, as JSON'],
        [
          'svc roles assignments --all --no-include-ended --ndjson',
          'every assignment in force, one per line',
        ],
      ),
    )
    .action(async (user: string | undefined, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseRolesAssignments(user, flags);
      await runRolesAssignments(await make(cmd), options);
    });
}
