import { Command, Option } from 'commander';
import type { Role } from '../../api/schemas/roles.js';
import { commandLine } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { doubtAfterLostAnswer } from '../../http/errors.js';
import { RoleNameTakenError, shownBy } from '../../platform/errors.js';
import { attemptStart, foundAfterLostAnswer, unknownAfterLost } from '../../platform/found-after-lost.js';
import type { Platform } from '../../platform/index.js';
import { liveRoleNamed, permissionDifference } from '../../platform/role-ref.js';
import { changedIn } from '../changed-in.js';
import { collect, examples, type MakeContext, nonEmpty } from '../kit.js';
import { permissionFlag, withCatalogHint } from './permission-flags.js';
import { roleFields, sayRoleFoundAfterLost, withNameTakenHint } from './shared.js';

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
  // This machine's time before the first attempt, put on the platform's clock by the latest Date
  // header (the retry's own answer, at the latest) when a role is found after a lost answer: one
  // made clearly before it is not that attempt's (foundAfterLostAnswer; attemptStart).
  const startMs = ctx.clock.now();
  const sent = withNameTakenHint(
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
  let data: Role;
  try {
    data = await sent;
  } catch (error) {
    const found = await madeByLostAttempt(platform, options, error, startMs);
    if (found === undefined) throw error;
    const asked = options.description === undefined ? 'the permissions' : 'the permissions and description';
    return sayRoleFoundAfterLost(
      ctx,
      'created',
      found,
      `its retry found a role of that name with exactly ${asked} asked`,
    );
  }
  await ctx.out.record(data, roleFields(data));
  if (!ctx.out.isMachine)
    ctx.out.success(`created role ${data.name} (${data.id})${changedIn(ctx.settings())}`);
}

/**
 * A 409 role_name_taken to the retry of a creation whose answer was lost (a platform that keeps no
 * stored answers): the role of that name, read back, is most likely the lost attempt's when it has
 * exactly the permissions asked (and the description, when one was given): created, exit 0, as
 * `roles assign` says a grant so found is granted and `svc apply` counts such a role
 * found_after_lost_answer (session 25); `--json` says how it was found. A refusal marked as the
 * lost attempt's own stored answer, a role made clearly before this command, any other role of that
 * name: undefined (foundAfterLostAnswer's rule, shared with roles assign and apply), and the
 * refusal stands as refusalAfterLostAnswer says it. A read that fails, or no live role of that
 * name any more, cannot tell the lost attempt's role from another's: an unknown outcome
 * (outcome_unknown, exit 1; unknownAfterLost) naming `svc roles get NAME`, or, when no live role
 * has the name, `svc roles ls --include-deleted` (review28b L4), never "pick another --name" for a
 * name that may be this command's own (fixout3). Ctrl-C cutting the read: exit 130, the outcome
 * unknown (review28b M1).
 */
async function madeByLostAttempt(
  platform: Platform,
  options: RolesCreateOptions,
  error: unknown,
  startMs: number,
): Promise<{ role: Role; lost: string } | undefined> {
  if (!(error instanceof RoleNameTakenError) || doubtAfterLostAnswer(error) === undefined) return undefined;
  const check = shownBy('roles get', options.name)(platform.svc);
  const what = `the retry was told the name ${options.name} is taken`;
  const lostWhy = doubtAfterLostAnswer(error) ?? '';
  let role: Role | undefined;
  try {
    role = await liveRoleNamed(platform, options.name);
  } catch (read) {
    const why = read instanceof Error ? ` (${read.message})` : '';
    throw unknownAfterLost(
      what,
      lostWhy,
      `the role may be this command's own, made by that attempt, and svc could not read the roles back to tell${why}`,
      `check who made the role before running the command again (\`${check}\` shows it)`,
      read,
    );
  }
  // `svc roles get NAME` answers not found now: the deleted roles are what shows it (review28b L4).
  if (role === undefined)
    throw unknownAfterLost(
      what,
      lostWhy,
      'no live role has that name now: made by that attempt and deleted since, or not, svc cannot tell',
      `no role holds the name now: \`${shownBy('roles ls', '--include-deleted')(platform.svc)}\` shows the deleted ones, and running the command again makes it`,
    );
  const { more, fewer } = permissionDifference(role.permissions, options.permissions);
  if (more.length > 0 || fewer.length > 0) return undefined;
  if (options.description !== undefined && role.description !== options.description) return undefined;
  const lost = foundAfterLostAnswer(error, {
    ...attemptStart(platform, startMs),
    check,
    madeAt: role.created_at,
  });
  return lost === undefined ? undefined : { role, lost };
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
