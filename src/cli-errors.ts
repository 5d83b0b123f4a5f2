import type { Command, CommanderError } from 'commander';
import { UsageError } from './errors.js';

/** Help or the version was printed: commander stops with these, and nothing went wrong. */
const HELP_CODES = new Set(['commander.helpDisplayed', 'commander.version']);

/**
 * commander's parse errors as svc reports them: help that was asked for (`svc help roles`, exit
 * 0), or a usage error (exit 2) pointing at the help of the command the words named.
 */
export function fromCommanderError(
  error: CommanderError,
  program: Command | undefined,
  argv: string[],
): UsageError | 'help' {
  // `svc help`, `svc help roles`: help asked for (exit code 0), not help shown for a mistake.
  if (HELP_CODES.has(error.code) || (error.code === 'commander.help' && error.exitCode === 0)) return 'help';
  return usageError(error, program ? commandFromArgv(program, argv) : undefined);
}

/**
 * The deepest command named by the words of argv (option values that are not command names are
 * skipped), so parse errors point at the right help.
 */
function commandFromArgv(program: Command, argv: string[]): Command {
  let current = program;
  for (const word of argv) {
    if (word === '--') break;
    const sub = current.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) current = sub;
  }
  return current;
}

/** `svc tenants ls` for a command, for "see … --help" hints. */
function commandPath(command: Command | undefined): string {
  const names: string[] = [];
  for (let c = command; c; c = c.parent ?? undefined) names.unshift(c.name());
  return names.join(' ');
}

/** Turns commander's parse errors into usage errors (exit 2) with a pointer to the right help. */
function usageError(error: CommanderError, command: Command | undefined): UsageError {
  const message = error.message.replace(/^error:\s*/i, '').replace(/\.\s*$/, '');
  if (error.code === 'commander.help') {
    return new UsageError(`${commandPath(command) || 'svc'} needs a subcommand`, {
      hint: `see \`${commandPath(command)} --help\``,
    });
  }
  return new UsageError(message.replace(/\n+/g, ' ').trim(), {
    hint: `see \`${commandPath(command) || 'svc'} --help\``,
  });
}
