import { Command } from 'commander';
import type { Context } from '../../context.js';
import { findRoleByRef } from '../../platform/role-ref.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import { roleFields } from './shared.js';

export interface RolesGetOptions {
  role: string;
}

export function parseRolesGet(role: unknown): RolesGetOptions {
  return { role: nonEmpty('ROLE', role) };
}

export async function runRolesGet(ctx: Context, options: RolesGetOptions): Promise<void> {
  const role = await findRoleByRef(await ctx.platform(), options.role, { deleted: true });
  await ctx.out.record(role, roleFields(role));
}

export function getCommand(make: MakeContext): Command {
  return new Command('get')
    .summary('Show one role and its permissions')
    .description(
      'Show a role, named by id or by name, with the permissions it grants. A deleted role is found\n' +
        'too (by name: the one deleted last, unless a live role has the name).',
    )
    .argument('<role>', 'role id (role_…, or a built-in name) or name')
    .addHelpText(
      'after',
      examples(
        ['svc roles get tenant_analyst', 'a built-in role'],
        ['svc roles get fx-desk --json', 'a custom role, by name, as JSON'],
      ),
    )
    .action(async (role: string, _flags: unknown, cmd: Command) => {
      const options = parseRolesGet(role);
      await runRolesGet(await make(cmd), options);
    });
}
