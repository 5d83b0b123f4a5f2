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
