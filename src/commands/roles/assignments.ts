import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import { ASSIGNMENT_COLUMNS } from './shared.js';

export interface RolesAssignmentsOptions {
  user: string;
  includeInactive: boolean;
}

export function parseRolesAssignments(
  user: unknown,
  flags: Record<string, unknown>,
): RolesAssignmentsOptions {
  return { user: nonEmpty('USER', user), includeInactive: flags.all === true };
}

export async function runRolesAssignments(ctx: Context, options: RolesAssignmentsOptions): Promise<void> {
  const platform = await ctx.platform();
  const data = await platform.roles.listAssignments(options.user, {
    include_inactive: options.includeInactive ? true : undefined,
  });
  await ctx.out.list(data.items, ASSIGNMENT_COLUMNS, {
    empty: `${options.user} holds no role in this tenant${options.includeInactive ? '' : ' (--all shows expired and revoked ones)'}.`,
  });
}

export function assignmentsCommand(make: MakeContext): Command {
  return new Command('assignments')
    .summary("List a user's role assignments")
    .description(
      'List the roles a user holds in the tenant, with expiry, who granted them and the audit ' +
        'trail id. With --all, expired, revoked and role-deleted assignments too (see the status ' +
        'column).',
    )
    .argument('<user>', 'user id, e.g. usr_analyst')
    .addOption(new Option('--all', 'include expired, revoked and role-deleted assignments'))
    .addHelpText(
      'after',
      examples(
        ['svc roles assignments usr_analyst', 'what usr_analyst holds now'],
        ['svc roles assignments usr_analyst --all --json', 'the whole history, as JSON'],
      ),
    )
    .action(async (user: string, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseRolesAssignments(user, flags);
      await runRolesAssignments(await make(cmd), options);
    });
}
