import { Command, Option } from 'commander';
import { commandLine } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { changedIn } from '../changed-in.js';
import { collect, examples, type MakeContext, nonEmpty } from '../kit.js';
import { permissionFlag, withCatalogHint } from './permission-flags.js';
import { roleFields, withNameTakenHint } from './shared.js';

export interface RolesCreateOptions {
  name: string;
  description: string | undefined;
  permissions: string[];
}

export function parseRolesCreate(flags: Record<string, unknown>): RolesCreateOptions {
  if (flags.name === undefined) throw new UsageError('--name is required');
  const permissions = permissionFlag('--permission', flags.permission);
  if (permissions.length === 0) {
    throw new UsageError('a role needs at least one --permission', {
      hint: 'e.g. --permission exception.read --permission exception.write',
    });
  }
  return {
    name: nonEmpty('--name', flags.name),
    description: flags.description === undefined ? undefined : String(flags.description),
    permissions,
  };
}

export async function runRolesCreate(ctx: Context, options: RolesCreateOptions): Promise<void> {
  const platform = await ctx.platform();
  const data = await withNameTakenHint(
    commandLine(ctx.settings()),
    withCatalogHint(
      commandLine(ctx.settings()),
      platform.roles.create({
        name: options.name,
        ...(options.description === undefined ? {} : { description: options.description }),
        permissions: options.permissions,
      }),
    ),
    options.name,
  );
  await ctx.out.record(data, roleFields(data));
  if (!ctx.out.isMachine)
    ctx.out.success(`created role ${data.name} (${data.id})${changedIn(ctx.settings())}`);
}

export function createCommand(make: MakeContext): Command {
  return new Command('create')
    .summary('Create a custom role')
    .description(
      'Create a custom role in the tenant. Permissions are dotted lowercase identifiers from ' +
        "the platform's permission catalog (exception.read, rule.write.fx, …); a permission also " +
        'grants the more specific ones below it. Names are unique in the tenant.',
    )
    .addOption(
      new Option(
        '--name <name>',
        'role name, e.g. fx-desk (lowercase, digits, _ and -; not starting with tenant_, org_ or role_)',
      ),
    )
    .addOption(new Option('--description <text>', 'what the role is for'))
    .addOption(
      new Option('--permission <permission>', 'a permission the role grants (repeatable)').argParser(collect),
    )
    .addHelpText(
      'after',
      examples(
        [
          'svc roles create --name fx-desk --permission exception.read --permission exception.resolve.fx_difference',
          'a role for the FX desk',
        ],
        [
          'svc roles create --name rule-fx --permission rule.read,rule.write.fx --json',
          'comma-separated, as JSON',
        ],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseRolesCreate(flags);
      await runRolesCreate(await make(cmd), options);
    });
}
