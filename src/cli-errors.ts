import type { Command, CommanderError } from 'commander';
import { beginningOf, closest } from './api/suggest.js';
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
export function commandPath(command: Command | undefined): string {
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
  return new UsageError(withBeginningFirst(error, command, message).replace(/\n+/g, ' ').trim(), {
    hint: `see \`${commandPath(command) || 'svc'} --help\``,
  });
}

/**
 * commander guesses an unknown option or command by edit distance alone, so `--event` was taken
 * for `--tenant`; the one name the word is the beginning of (`--event-type`) comes first, as
 * svc's own suggestions do (src/api/suggest.ts). commander's guess stands otherwise.
 */
function withBeginningFirst(error: CommanderError, command: Command | undefined, message: string): string {
  const unknown = /^unknown (option|command) '([^']+)'/.exec(message);
  if (!unknown || !command) return message;
  const [, kind, word] = unknown as unknown as [string, string, string];
  const candidates: string[] = [];
  if (kind === 'option') {
    // as commander looks: this command's visible options, then its parents' (the global ones)
    for (let c: Command | null = command; c; c = c.parent) {
      for (const option of c.createHelp().visibleOptions(c)) if (option.long) candidates.push(option.long);
    }
  } else {
    for (const c of command.createHelp().visibleCommands(command)) candidates.push(c.name(), ...c.aliases());
  }
  const begun = beginningOf(word, candidates);
  if (begun === undefined || error.code === 'commander.help') return message;
  return `unknown ${kind} '${word}' (Did you mean ${begun}?)`;
}

/**
 * `svc webhooks deliveries lst`: a command with a default subcommand (ls) took a typo of one of
 * its verbs for an argument, and the request drew a 404. The verb it was close to, as a command
 * to run (`svc webhooks deliveries ls`); undefined when the word is no typo of a verb. Asked only
 * after the 404: no guessing before the request.
 */
export function defaultSubcommandTypo(program: Command, argv: string[]): string | undefined {
  let current = program;
  let index = 0;
  for (; index < argv.length; index++) {
    const word = argv[index]!;
    if (word === '--') return undefined;
    const sub = current.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) current = sub;
    else if (!word.startsWith('-') && current.commands.length > 0) break;
  }
  const defaultName = (current as unknown as { _defaultCommandName?: string })._defaultCommandName;
  const word = argv[index];
  if (!defaultName || word === undefined) return undefined;
  const names = new Map<string, string>();
  for (const c of current.commands) for (const n of [c.name(), ...c.aliases()]) names.set(n, c.name());
  const match = closest(word, names.keys());
  return match === undefined ? undefined : `${commandPath(current)} ${names.get(match)}`;
}
