import { Command } from 'commander';
import type { RoleAssignment } from '../../api/schemas/roles.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import type { Column } from '../../output/output.js';
import { findRoleByRef } from '../../platform/role-ref.js';
import { shellWord } from '../../system/shell-words.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import { DEFAULT_LIMIT } from '../listing.js';
import {
  type AssignmentListingOptions,
  assignmentListingOptions,
  listTenantAssignments,
  noteAllMeaning,
  parseAssignmentListing,
} from './assignment-listing.js';
import { EXPIRES_COLUMN } from './shared.js';

export interface RolesHoldersOptions extends AssignmentListingOptions {
  role: string;
}

export function parseRolesHolders(role: unknown, flags: Record<string, unknown>): RolesHoldersOptions {
  return { role: nonEmpty('ROLE', role), ...parseAssignmentListing(flags) };
}

export const HOLDER_COLUMNS: Array<Column<RoleAssignment>> = [
  { header: 'user', value: (a) => a.user_id, kind: 'id' },
  { header: 'status', value: (a) => a.status, kind: 'status' },
  EXPIRES_COLUMN,
  { header: 'assigned by', value: (a) => a.assigned_by, kind: 'name' },
  { header: 'assigned', value: (a) => a.assigned_at, kind: 'time' },
  { header: 'audit trail id', value: (a) => a.audit_trail_id, kind: 'id', optional: true },
  { header: 'justification', value: (a) => a.justification, optional: true },
];

export async function runRolesHolders(ctx: Context, options: RolesHoldersOptions): Promise<void> {
  noteAllMeaning(ctx, options);
  const platform = await ctx.platform();
  const role = await findRoleByRef(platform, options.role, { deleted: true });
  await listTenantAssignments(
    ctx,
    platform,
    options,
    { role_id: role.id },
    {
      columns: HOLDER_COLUMNS,
      empty: `nobody holds ${role.name} in this tenant${options.includeEnded ? '' : ' (--include-ended shows expired and revoked grants)'}`,
      command: svcCommand(ctx.settings(), `roles holders ${shellWord(options.role)}`),
    },
  );
}

export function holdersCommand(make: MakeContext): Command {
  const command = new Command('holders')
    .summary('List who holds a role')
    .description(
      'List the users who hold a role in the tenant, oldest grant first, with expiry, who granted it\n' +
        'and the audit trail id. With --include-ended, expired, revoked and role-deleted grants too\n' +
        '(status); a deleted role is found by its name, as `svc audit ls --role` finds it.\n' +
        `Without --all, the first ${DEFAULT_LIMIT} (or --limit) are printed and where to continue is shown on stderr;\n` +
        '--all streams every page (--ndjson for pipelines); it used to mean --include-ended here, and says so\n' +
        'on stderr when given without it.',
    )
    .argument('<role>', 'role id or name');
  for (const option of assignmentListingOptions()) command.addOption(option);
  return command
    .addHelpText(
      'after',
      examples(
        ['svc roles holders tenant_admin', 'who can do everything here'],
        [
          'svc roles holders fx-desk --all --no-include-ended --ndjson | jq -r .user_id',
          'every holder of a custom role, one id per line',
        ],
        ['svc roles holders fx-desk --all --include-ended', 'every grant of the role, ended ones too'],
      ),
    )
    .action(async (role: string, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseRolesHolders(role, flags);
      await runRolesHolders(await make(cmd), options);
    });
}
