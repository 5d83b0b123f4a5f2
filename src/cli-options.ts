import type { EventEmitter } from 'node:events';
import type { Command, Option } from 'commander';
import { commandPath } from './cli-errors.js';
import { isRepeatable, takesSeveralTenants } from './commands/kit.js';
import { UsageError } from './errors.js';

/**
 * An option that takes one value is given once. Commander keeps the last of two silently, so
 * `svc apply -f a.yaml -f b.yaml --prune` applied b.yaml alone and revoked what a.yaml declares:
 * every such option of every command (the global ones too, wherever on the line) refuses a second
 * value as a usage error before anything runs. Options whose values add up (kit's collect,
 * variadic) repeat; so does --tenant, for a verb that acts in several tenants (kit's severalTenants).
 */

const nameOf = (option: Option) => [option.short, option.long].filter(Boolean).join('/');

function givenTwice(option: Option, who: string): UsageError {
  return new UsageError(`${nameOf(option)} is given more than once`, {
    hint: `${who} (a second would replace the first, not add to it): give it once`,
  });
}

/** Refuses a second value of each of the command's own single-value options (but `except`). */
export function refuseRepeatedValues(command: Command, except: readonly string[] = []): void {
  const words = commandPath(command);
  for (const option of command.options) {
    if (!(option.required || option.optional) || isRepeatable(option) || except.includes(option.name()))
      continue;
    // Before commander's own listener sets the value: the source is 'cli' from the first one on.
    (command as unknown as EventEmitter).prependListener(`option:${option.name()}`, () => {
      if (command.getOptionValueSource(option.attributeName()) === 'cli')
        throw givenTwice(option, `${words} takes one ${nameOf(option)}`);
    });
  }
}

/**
 * The global --tenant given more than once: kept in `tenants` for a verb that acts in several
 * tenants, refused (when the verb is known) for every other.
 */
export function refuseSeveralTenants(program: Command): void {
  program.hook('preAction', (_program, action) => {
    const tenants = program.getOptionValue('tenants') as string[] | undefined;
    if ((tenants?.length ?? 0) < 2 || takesSeveralTenants(action)) return;
    const tenant = program.options.find((o) => o.name() === 'tenant')!;
    throw givenTwice(tenant, `${commandPath(action)} acts in one tenant`);
  });
}

/**
 * A flag whose value is a path: its value placeholder names one (`<file>`, `<dir>`, `<path>`, or a
 * file name such as `<plan.json>`).
 */
export const PATH_PLACEHOLDER = /<(file|dir|path|[\w-]+\.\w+)>$/;

/**
 * A path flag's value that starts with `~` (attack20 F12): bash and zsh expand `~` only at the
 * start of a word, so `--journal=~/j.ndjson` reaches svc as the text `~/j.ndjson`. Taken literally
 * it made a folder named `~` in the current directory (the classic `rm -rf ~` accident), and a
 * resume hint naming `~/j.ndjson` sent the user to HOME, where nothing was. Refused as the
 * directory variables are (config/paths.ts UNEXPANDED_DIRECTORY), while commander reads the line:
 * before anything is made or sent. A file whose name starts with `~` is `./~name`.
 */
export function refuseUnexpandedPaths(command: Command): void {
  for (const option of command.options) {
    if (!PATH_PLACEHOLDER.test(option.flags)) continue;
    (command as unknown as EventEmitter).prependListener(`option:${option.name()}`, (value: unknown) => {
      if (typeof value !== 'string' || !value.startsWith('~')) return;
      const flag = option.long ?? option.short!;
      const home =
        value === '~' ? '"$HOME"' : value.startsWith('~/') ? `"$HOME${value.slice(1)}"` : undefined;
      // `~name` is another user's home to a shell, never expanded when no such user exists: a
      // file of that name is given as ./~name (review20b F4).
      throw new UsageError(`${flag} ${value} starts with a ~ that no shell expanded`, {
        hint:
          home || value.includes('/')
            ? `write \`${flag} ${value}\` with a space (a shell expands ~ only at the start of a word, not after =)${home ? `, or ${home}` : ''}; svc did nothing`
            : `for a file whose name starts with ~, write \`${flag} ./${value}\`; for your home, \`${flag} ~/…\` with a space before it; svc did nothing`,
      });
    });
  }
}
