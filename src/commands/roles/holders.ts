import { Command, Option } from 'commander';
import type { RoleAssignment } from '../../api/schemas/roles.js';
import type { Context } from '../../context.js';
import type { Column } from '../../output/output.js';
import { findRoleByRef } from '../../platform/role-ref.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import { EXPIRES_COLUMN } from './shared.js';

export interface RolesHoldersOptions {
  role: string;
  includeInactive: boolean;
}

export function parseRolesHolders(role: unknown, flags: Record<string, unknown>): RolesHoldersOptions {
  return { role: nonEmpty('ROLE', role), includeInactive: flags.all === true };
}

export const HOLDER_COLUMNS: Array<Column<RoleAssignment>> = [
  { header: 'user', value: (a) => a.user_id, kind: 'id' },
  { header: 'status', value: (a) => a.status, kind: 'status' },
  EXPIRES_COLUMN,
  { header: 'assigned by', value: (a) => a.assigned_by },
  { header: 'assigned', value: (a) => a.assigned_at, kind: 'time' },
  { header: 'audit trail id', value: (a) => a.audit_trail_id, kind: 'id', optional: true },
  { header: 'justification', value: (a) => a.justification, optional: true },
];

export async function runRolesHolders(ctx: Context, options: RolesHoldersOptions): Promise<void> {
  const platform = await ctx.platform();
  const role = await findRoleByRef(platform, options.role, { deleted: true });
  const holders = platform.roles.listAllTenantAssignments({
    role_id: role.id,
    limit: 500,
    ...(options.includeInactive ? { include_inactive: true } : {}),
  });
  await ctx.out.list(holders, HOLDER_COLUMNS, {
    empty: `Nobody holds ${role.name} in this tenant${options.includeInactive ? '' : ' (--all shows expired and revoked grants)'}.`,
  });
}

export function holdersCommand(make: MakeContext): Command {
  return new Command('holders')
    .summary('List who holds a role')
    .description(
      'List the users who hold a role in the tenant, oldest grant first, with expiry, who granted it\n' +
        'and the audit trail id. With --all, expired, revoked and role-deleted grants too (status);\n' +
        'a deleted role is found by its name, as `svc audit ls --role` finds it.\n' +
        'Streams every page: --ndjson for pipelines.',
    )
    .argument('<role>', 'role id or name')
    .addOption(new Option('--all', 'include expired, revoked and role-deleted grants'))
    .addHelpText(
      'after',
      examples(
        ['svc roles holders tenant_admin', 'who can do everything here'],
        [
          'svc roles holders fx-desk --ndjson | jq -r .user_id',
          'the holders of a custom role, one id per line',
        ],
      ),
    )
    .action(async (role: string, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseRolesHolders(role, flags);
      await runRolesHolders(await make(cmd), options);
    });
}
