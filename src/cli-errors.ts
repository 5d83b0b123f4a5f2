import type { Command, CommanderError, Option } from 'commander';
import { type Aliased, beginningOf, type Candidate, closest } from './api/suggest.js';
import { missingArgument } from './commands/missing-argument.js';
import type { TargetSettings } from './config/settings.js';
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
  settings?: TargetSettings,
): UsageError | 'help' {
  // `svc help`, `svc help roles`: help asked for (exit code 0), not help shown for a mistake.
  if (HELP_CODES.has(error.code) || (error.code === 'commander.help' && error.exitCode === 0)) return 'help';
  const command = program ? commandFromArgv(program, argv) : undefined;
  const missing = /^error: missing required argument '([^']+)'/.exec(error.message)?.[1];
  if (missing !== undefined && command) return missingOf(missing, command, settings);
  return usageError(error, command);
}

/**
 * commander's `missing required argument 'webhook'` as svc says every argument left out
 * (missingArgument): `missing WEBHOOK; see \`svc webhooks ls\``, the list filled in with the
 * arguments given before it and the run's target flags.
 */
function missingOf(name: string, command: Command, settings: TargetSettings | undefined): UsageError {
  const given: Record<string, string> = {};
  command.registeredArguments.forEach((argument, i) => {
    const value = command.args[i];
    if (value !== undefined) given[argument.name()] = value;
  });
  const path = commandPath(command);
  return missingArgument(name, { command: path, noun: path.split(' ')[1] ?? '', given, settings });
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
  const valued = valueOfFlag(message, command);
  if (valued) return valued;
  return new UsageError(withBeginningFirst(error, command, message).replace(/\n+/g, ' ').trim(), {
    hint: `see \`${commandPath(command) || 'svc'} --help\``,
  });
}

/** Flags whose value, typed with `=`, is a credential now in the shell's history. */
const SECRET_FLAGS = new Set(['--with-token', '--client-secret-stdin']);

/**
 * `--flag=VALUE` of a flag that takes no value is commander's "unknown option '--flag=VALUE'":
 * the value echoed whole, a token of `svc login --with-token=TOKEN` too (review20b F10). The flag
 * is named as one that takes no value, the value never shown; a credential's flag says to rotate
 * it, as `login --with-token TOKEN` does. Any other unknown `--word=VALUE` keeps its value out
 * of the message as well (svc cannot know what it holds).
 */
function valueOfFlag(message: string, command: Command | undefined): UsageError | undefined {
  const unknown = /^unknown option '(--[^'=]+)=([^']*)'/s.exec(message);
  if (!unknown) return undefined;
  const flag = unknown[1]!;
  const help = `see \`${commandPath(command) || 'svc'} --help\``;
  const { known, shown } = optionNames(command);
  if (!known.includes(flag)) {
    // The flag part suggested as a flag typed with a space is (review20d D7): a shown one only,
    // the command's own before the global ones.
    const guess = beginningOf(flag, ...shown) ?? closest(flag, shown.flat());
    return new UsageError(
      `unknown option '${flag}=…' (its value not shown)${guess ? ` (Did you mean ${guess}?)` : ''}`,
      { hint: help },
    );
  }
  const secret = SECRET_FLAGS.has(flag);
  return new UsageError(
    `${flag} takes no value, and was given one (${flag}=…, not shown)${secret ? ': it reads the secret from standard input' : ''}`,
    {
      hint: secret
        ? 'the value you typed is now in your shell history (and was visible to other processes): rotate it'
        : help,
    },
  );
}

/**
 * commander guesses an unknown option or command by edit distance alone, so `--event` was taken
 * for `--tenant`, and a short word (`--all`, `web`) got no guess at all; the one name the word is
 * the beginning of (`--event-type`) comes first, as svc's own suggestions do
 * (src/api/suggest.ts): the command's own options before the global ones (`--all` is
 * `--all-tenants` of export, not the global `--allow-insecure-http`), and a command with its
 * aliases as one (webhooks, webhook). commander's guess stands otherwise.
 */
function withBeginningFirst(error: CommanderError, command: Command | undefined, message: string): string {
  const unknown = /^unknown (option|command) '([^']+)'/.exec(message);
  if (!unknown || !command) return message;
  const [, kind, word] = unknown as unknown as [string, string, string];
  // An option as commander looks: this command's visible options, then its parents' (the global ones).
  const tiers: Candidate[][] = kind === 'option' ? optionNames(command).shown : [commandCandidates(command)];
  if (error.code === 'commander.help') return message;
  // A command is svc's guess alone (closest: a command and its aliases are one; a word near none
  // gets none, where commander's said "oauth" for "nosuch"); an option keeps commander's otherwise.
  const begun = kind === 'command' ? closest(word, tiers[0]!) : beginningOf(word, ...tiers);
  if (begun === undefined) return kind === 'command' ? `unknown command '${word}'` : message;
  return `unknown ${kind} '${word}' (Did you mean ${begun}?)`;
}

/**
 * The long options of a command and its parents, in one walk: `known`, every one (hidden ones
 * too: `--data` of `svc api` is a flag, given or not), and `shown`, the visible ones per command,
 * the command's own first: the only ones a suggestion may name (a hidden flag is never offered).
 */
function optionNames(command: Command | undefined): { known: string[]; shown: string[][] } {
  const known: string[] = [];
  const shown: string[][] = [];
  const long = (options: readonly Option[]) =>
    options.flatMap((option) => (option.long ? [option.long] : []));
  for (let c: Command | null | undefined = command; c; c = c.parent) {
    known.push(...long(c.options));
    // Visible: what the help shows, its own `--help` too (commander keeps it out of `options`).
    shown.push(long(c.createHelp().visibleOptions(c)));
  }
  return { known, shown };
}

/** A command's visible subcommands, each with its aliases, as suggestions. */
export function commandCandidates(command: Command): Aliased[] {
  return command
    .createHelp()
    .visibleCommands(command)
    .map((c) => ({ name: c.name(), aliases: c.aliases() }));
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
  const match = closest(
    word,
    current.commands.map((c) => ({ name: c.name(), aliases: c.aliases() })),
  );
  const verb = current.commands.find((c) => c.name() === match || c.aliases().includes(match ?? ''));
  return verb === undefined ? undefined : `${commandPath(current)} ${verb.name()}`;
}
