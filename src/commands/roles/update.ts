import { Command, Option } from 'commander';
import { addedAndRemoved } from '../../api/roles.js';
import type { Role } from '../../api/schemas/roles.js';
import { commandLine } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { andList } from '../../output/format.js';
import { RoleNameTakenError } from '../../platform/errors.js';
import {
  attemptStart,
  changedByAttempt,
  foundAfterLostAnswer,
  unknownAfterLost,
} from '../../platform/found-after-lost.js';
import { permissionDifference } from '../../platform/role-ref.js';
import { shellWord } from '../../system/shell-words.js';
import { changedIn } from '../changed-in.js';
import { collect, examples, type MakeContext, nonEmpty } from '../kit.js';
import { changeSaid, changesHolders, readHolders } from './holder-change.js';
import { permissionFlag, withCatalogHint } from './permission-flags.js';
import { resolveRole, roleFields, sayRoleFoundAfterLost, withNameTakenHint } from './shared.js';

export interface RolesUpdateOptions {
  role: string;
  name: string | undefined;
  description: string | undefined;
  add: string[];
  remove: string[];
}

export function parseRolesUpdate(role: unknown, flags: Record<string, unknown>): RolesUpdateOptions {
  const options: RolesUpdateOptions = {
    role: nonEmpty('ROLE', role),
    name: flags.name === undefined ? undefined : nonEmpty('--name', flags.name),
    description: flags.description === undefined ? undefined : String(flags.description),
    add: permissionFlag('--add-permission', flags.addPermission),
    remove: permissionFlag('--remove-permission', flags.removePermission),
  };
  if (!options.name && options.description === undefined && !options.add.length && !options.remove.length) {
    throw new UsageError('nothing to change', {
      hint: 'pass --name, --description, --add-permission or --remove-permission',
    });
  }
  const both = addedAndRemoved(options.add, options.remove);
  if (both) throw new UsageError(both);
  return options;
}

export async function runRolesUpdate(ctx: Context, options: RolesUpdateOptions): Promise<void> {
  const platform = await ctx.platform();
  const role = await resolveRole(platform, options.role);
  // A built-in or deleted role goes to the platform even when nothing would change: it refuses
  // any update of one (403 builtin_role_immutable, 409 role_deleted), and that is the answer.
  const refused = role.kind === 'builtin' || Boolean(role.deleted_at);
  const unchanged = refused ? undefined : unchangedBy(role, options);
  if (unchanged) {
    await ctx.out.record(role, roleFields(role));
    if (!ctx.out.isMachine) ctx.out.info(`nothing changed: role ${role.name} (${role.id}) ${unchanged}`);
    return;
  }
  // This machine's time before the first attempt, put on the platform's clock when a rename is
  // found after a lost answer: the role's updated_at says whether it is that attempt's (attemptStart).
  const startMs = ctx.clock.now();
  // add/remove are applied by the server, so two admins editing at once do not undo each other.
  const sent = withNameTakenHint(
    commandLine(ctx.settings()),
    withCatalogHint(
      commandLine(ctx.settings()),
      platform.roles.update(role.id, {
        ...(options.name === undefined ? {} : { name: options.name }),
        ...(options.description === undefined ? {} : { description: options.description }),
        ...(options.add.length ? { add_permissions: options.add } : {}),
        ...(options.remove.length ? { remove_permissions: options.remove } : {}),
      }),
    ),
    options.name,
  );
  let data: Role;
  try {
    data = await sent;
  } catch (error) {
    const found = await renamedByLostAttempt(ctx, role, options, error, startMs);
    if (found === undefined) throw error;
    return sayRoleFoundAfterLost(
      ctx,
      'updated',
      found,
      'its retry was told the name is taken, and the role, read back, is as asked',
    );
  }
  await ctx.out.record(data, roleFields(data));
  if (ctx.out.isMachine) return;
  // The answer says what changed: a server may keep a value svc sent as one it already had. Only
  // what this request sent is its change; any other difference from svc's read is someone else's,
  // made meanwhile (attack28b F4), said apart and never credited to this command.
  const mine = ownChange(role, data, options);
  const others = othersChange(mine, data);
  if (sameRole(role, mine)) {
    ctx.out.info(`nothing changed: role ${data.name} (${data.id}) ${already(data, options)}`);
  } else {
    const said = changesHolders(role, mine)
      ? changeSaid(role, mine, await readHolders(platform, data.id))
      : '';
    ctx.out.success(
      `role ${data.name} (${data.id})${changedIn(ctx.settings())} now ${nowAs(data, options)}${said}`,
    );
  }
  if (others)
    ctx.out.warn(
      `role ${data.name} (${data.id}) also ${others}, which this command did not send: someone else changed it since svc read it`,
    );
}

/** The role as svc read it with only this request's changes, as far as the answer shows them made. */
function ownChange(before: Role, after: Role, options: RolesUpdateOptions): Role {
  const permissions = new Set(before.permissions);
  for (const p of options.add) if (after.permissions.includes(p)) permissions.add(p);
  for (const p of options.remove) if (!after.permissions.includes(p)) permissions.delete(p);
  return {
    ...before,
    ...(options.name === undefined ? {} : { name: after.name }),
    ...(options.description === undefined ? {} : { description: after.description }),
    permissions: [...permissions],
  };
}

/**
 * What the answer shows of what the update asked, in words: `has exception.assign`, `is named fx
 * and does not have rule.read`. Never "updated": when another admin made the same change while this
 * request was in flight, this one changed nothing and its answer is the same as if it had made it
 * (no field of it names who did; the reference shows no PATCH answer), so svc says what is known,
 * the role as asked now (session 28's leftover of attack28b F4). Only what holds is said.
 */
function nowAs(role: Role, options: RolesUpdateOptions): string {
  const facts: string[] = [];
  if (options.name !== undefined && role.name === options.name) facts.push(`is named ${role.name}`);
  if (options.description !== undefined && (role.description ?? '') === options.description)
    facts.push('has that description');
  const has = options.add.filter((p) => role.permissions.includes(p));
  const hasNot = options.remove.filter((p) => !role.permissions.includes(p));
  if (has.length) facts.push(`has ${has.join(', ')}`);
  if (hasNot.length) facts.push(`does not have ${hasNot.join(', ')}`);
  return andList(facts);
}

/** What the answer shows changed beyond this request's own change, in words; '' for nothing. */
function othersChange(mine: Role, after: Role): string {
  const { more: added, fewer: removed } = permissionDifference(after.permissions, mine.permissions);
  const words: string[] = [];
  if (after.name !== mine.name) words.push(`is named ${after.name}`);
  if ((after.description ?? '') !== (mine.description ?? '')) words.push('has another description');
  if (added.length) words.push(`has ${added.join(', ')}`);
  if (removed.length) words.push(`no longer has ${removed.join(', ')}`);
  return andList(words);
}

/**
 * A 409 role_name_taken to the retry of a rename whose answer was lost: the name may be this
 * role's own, given by that attempt (a platform that keeps no stored answers). Names are unique
 * among a tenant's live roles, so the role read back by its id decides it: named otherwise (deleted
 * since or not: review28b L5), the name is another live role's and "pick another --name" is true
 * (undefined: the refusal stands); named
 * as asked, all else as asked and its updated_at this attempt's (changedByAttempt, on the
 * attempt's start: attemptStart), the change is done, most likely by that attempt (returned: exit
 * 0, as `roles create` says of a role so found). Anything else — a read that fails, the role named
 * as asked but deleted since, the rest not as asked, an updated_at before the attempt — cannot tell
 * the lost attempt's rename from another's: an unknown outcome (outcome_unknown, exit 1;
 * unknownAfterLost) whose hint names `svc roles get ID`, never "pick another --name" for a name
 * that may be the role's own (fixout3); Ctrl-C cutting the read: exit 130 (review28b M1).
 * A refusal marked as the lost attempt's own stored answer is a plain one (foundAfterLostAnswer).
 */
async function renamedByLostAttempt(
  ctx: Context,
  role: Role,
  options: RolesUpdateOptions,
  error: unknown,
  startMs: number,
): Promise<{ role: Role; lost: string } | undefined> {
  if (!(error instanceof RoleNameTakenError) || options.name === undefined) return undefined;
  const lost = foundAfterLostAnswer(error);
  if (lost === undefined) return undefined;
  const platform = await ctx.platform();
  const look = commandLine(ctx.settings())(`roles get ${shellWord(role.id)}`);
  const unknown = (found: string, cut?: unknown) =>
    unknownAfterLost(
      `the retry was told the name ${options.name} is taken`,
      lost,
      found,
      `check the role's name before running the command again (\`${look}\` shows it)`,
      cut,
    );
  let now: Role;
  try {
    now = await platform.roles.get(role.id);
  } catch (read) {
    const why = read instanceof Error ? ` (${read.message})` : '';
    throw unknown(
      `the name may be this role's own, given by that attempt, and svc could not read the role back to tell${why}`,
      read,
    );
  }
  // Named otherwise (deleted since or not), the role does not hold the name: another live role
  // does, and the refusal is true (review28b L5).
  if (now.name !== options.name) return undefined;
  if (now.deleted_at)
    throw unknown(
      `role ${role.id} was deleted since (${now.deleted_at}), named ${now.name}: renamed by that attempt or by someone else, svc cannot tell`,
    );
  if (unchangedBy(now, options) === undefined)
    throw unknown(
      `role ${role.id} is named ${now.name} now, but the rest of the change is not as asked: renamed by that attempt or by someone else, svc cannot tell`,
    );
  if (!changedByAttempt(now.updated_at, attemptStart(platform, startMs)))
    throw unknown(
      `role ${role.id} is named ${now.name} now, last updated ${now.updated_at}, before the first attempt was sent: renamed by that attempt or by someone else, svc cannot tell`,
    );
  return { role: now, lost };
}

/** How the role already is as asked (words for "nothing changed"), or undefined when it is not. */
function unchangedBy(role: Role, options: RolesUpdateOptions): string | undefined {
  if (options.name !== undefined && options.name !== role.name) return undefined;
  if (options.description !== undefined && options.description !== (role.description ?? '')) return undefined;
  const held = role.permissions ?? [];
  if (options.add.some((p) => !held.includes(p)) || options.remove.some((p) => held.includes(p)))
    return undefined;
  return already(role, options);
}

/** What `role` already is of what the update asked, in words: `already is named fx and has x`. */
function already(role: Role, options: RolesUpdateOptions): string {
  const facts: string[] = [];
  if (options.name !== undefined) facts.push(`is named ${role.name}`);
  if (options.description !== undefined) facts.push('has that description');
  if (options.add.length) facts.push(`has ${options.add.join(', ')}`);
  if (options.remove.length) facts.push(`does not have ${options.remove.join(', ')}`);
  return `already ${andList(facts)}`;
}

/** Whether an update's answer shows the role as it was before. */
function sameRole(before: Role, after: Role): boolean {
  const permissions = new Set(before.permissions);
  return (
    before.name === after.name &&
    (before.description ?? '') === (after.description ?? '') &&
    after.permissions.length === permissions.size &&
    after.permissions.every((p) => permissions.has(p))
  );
}

export function updateCommand(make: MakeContext): Command {
  return new Command('update')
    .summary('Change a custom role')
    .description(
      'Rename a custom role, change its description, or add and remove permissions. Built-in ' +
        'roles cannot be changed. Users holding the role get the change on their next call; svc says ' +
        'how many hold it and what they really gain or lose (a permission a holder keeps through another ' +
        'role, or through a broader permission the role keeps, is not lost). A role manager changes only roles ' +
        'whose permissions they all hold (a rename too: grants by name follow it), and puts no permission ' +
        'into a role they hold themselves (a grant to themselves: ask another administrator).',
    )
    .argument('<role>', 'role id or name')
    .addOption(new Option('--name <name>', 'new name'))
    .addOption(new Option('--description <text>', 'new description'))
    .addOption(
      new Option('--add-permission <permission>', 'permission to add (repeatable)').argParser(collect),
    )
    .addOption(
      new Option('--remove-permission <permission>', 'permission to remove (repeatable)').argParser(collect),
    )
    .addHelpText(
      'after',
      examples(
        ['svc roles update fx-desk --add-permission rule.write.fx', 'grant one more permission'],
        ['svc roles update fx-desk --name fx-ops --remove-permission exception.read', 'rename and remove'],
      ),
    )
    .action(async (role: string, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseRolesUpdate(role, flags);
      await runRolesUpdate(await make(cmd), options);
    });
}
