/**
 * USER and ROLE given the other way round (`roles assign tenant_admin usr_analyst`): refused before
 * anything is sent, with the command line meant — the same line, the two words swapped, in the
 * run's command lines (its -p, --tenant, --base-url: svcCommand) and with the flags the user gave.
 * A bare `svc roles revoke usr_lead tenant_viewer` pasted in the same shell asked to revoke a grant
 * in the active profile's default tenant, and the assign line lost --expires-in and
 * --justification (attack25a F4).
 */
import type { Command, Option } from 'commander';
import { BUILTIN_TENANT_ROLES } from '../../api/constants.js';
import { svcCommand, TARGET_FLAGS } from '../../config/settings.js';
import { UsageError } from '../../errors.js';
import { ROLE_ID } from '../../platform/role-ref.js';
import { shellWord } from '../../system/shell-words.js';
import type { MakeContext } from '../kit.js';

/**
 * The refusal, with the words of the command meant (`roles revoke U R`), before the run's options
 * are known; `order` the arguments as the verb takes them (`USER ROLE`, `TENANT KEY`: the rule of
 * `tenants api-keys get/revoke`, where a key id is never a tenant).
 */
export class SwappedArguments extends UsageError {
  constructor(
    readonly words: string,
    readonly order = 'USER ROLE',
  ) {
    super(swappedWords(order, `svc ${words}`));
  }
}

const swappedWords = (order: string, line: string) => `arguments are ${order}: did you mean \`${line}\`?`;

/**
 * Throws when the first argument is a role (a built-in name or a role id) and the second looks like
 * a user id. A custom role's name is not guessed at (it would take a lookup); the platform's
 * "unknown role" answers that case.
 */
export function refuseSwapped(
  verb: 'assign' | 'revoke',
  user: string | undefined,
  role: string | undefined,
): void {
  if (user === undefined || role === undefined || !/^usr_/.test(role)) return;
  if (!(BUILTIN_TENANT_ROLES as readonly string[]).includes(user) && !ROLE_ID.test(user)) return;
  throw new SwappedArguments(`roles ${verb} ${shellWord(role)} ${shellWord(user)}`);
}

/**
 * `parse()`, whose refusal of swapped arguments is said with the run's command line: its global
 * target options and the command's own flags as given.
 */
export async function parsedUnswapped<T>(make: MakeContext, cmd: Command, parse: () => T): Promise<T> {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof SwappedArguments)) throw error;
    const ctx = await make(cmd, { argumentsFirst: true });
    throw new UsageError(
      swappedWords(error.order, svcCommand(ctx.settings(), `${error.words}${givenFlags(cmd)}`)),
    );
  }
}

/**
 * The options given on the command line, each as ` --flag VALUE` (one shell word a value): the
 * command's own, then the global ones (`--yes`, `--json` …) but the target options.
 */
export function givenFlags(cmd: Command): string {
  const words: string[] = [];
  const global = (command: Command) => command.parent === null;
  const commands: Command[] = [cmd];
  for (let up = cmd.parent; up !== null; up = up.parent) commands.push(up);
  for (const command of commands) flagsOf(command, global(command), words);
  return words.map((word) => ` ${word}`).join('');
}

function flagsOf(cmd: Command, global: boolean, words: string[]): void {
  for (const option of cmd.options as Option[]) {
    const key = option.attributeName();
    if (cmd.getOptionValueSource(key) !== 'cli' || option.long === undefined) continue;
    // The run's target options: svcCommand repeats them from the settings (or, from the environment, leaves them out).
    if (global && TARGET_FLAGS.has(option.long)) continue;
    const value: unknown = cmd.getOptionValue(key);
    if (typeof value === 'boolean') {
      // A --no-x option given holds false; a plain switch, true.
      if (value === !option.negate) words.push(option.long);
      continue;
    }
    for (const one of Array.isArray(value) ? value : [value]) words.push(option.long, shellWord(String(one)));
  }
}
