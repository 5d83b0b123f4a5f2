import type { Command } from 'commander';
import { closest } from './api/suggest.js';
import { commandCandidates, commandPath } from './cli-errors.js';
import { COMMANDS, type CommandEntry } from './commands/manifest.js';
import { UsageError } from './errors.js';

/**
 * Reading argv before commander does: which top-level command it names, so the launcher and
 * runCli load only that command and give it its runtime, and which verb, so a group builds only
 * that one. `flags` are the options of the level read (cli.ts argvFlags): `-p prod roles ls`
 * names roles, not prod, and `-yp prod roles ls` too.
 */

/** A level's flags as written on the command line: those that take a value, and the others. */
export interface ArgvFlags {
  /** `-p`, `--profile`: the next word (or the rest of a group, `-pprod`) is the value. */
  valued: readonly string[];
  /** `-y`, `--json`: no value. `-h` and `--help` are help whatever the lists say. */
  plain: readonly string[];
}

/**
 * argv as commander reads it (its parseOptions), one token per meaning: a word that is no option
 * or value, a flag (with its value), a help flag, the end of options (`--`; every word after it
 * is a word), or `unsure`: a group of short flags with a letter this level does not know, which
 * commander passes on whole to the subcommand (`-yx`), so what follows may be read otherwise.
 * A group is read letter by letter: `-yp NAME` is `-y -p NAME`, `-ypNAME` too, `-yh` is help; an h
 * before the group's last letter is unknown to commander (`-hy`, `-yhp`: unsure).
 */
type ArgvToken = { kind: 'word'; word: string } | { kind: 'flag' | 'help' | 'end' | 'unsure' };

function* argvTokens(argv: readonly string[], flags: ArgvFlags): Generator<ArgvToken> {
  const valued = new Set(flags.valued);
  const plain = new Set(flags.plain);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      yield { kind: 'end' };
      for (const word of argv.slice(i + 1)) yield { kind: 'word', word };
      return;
    }
    if (arg === '-h' || arg === '--help') yield { kind: 'help' };
    else if (valued.has(arg)) {
      i++;
      yield { kind: 'flag' };
    } else if (arg.length > 2 && arg[0] === '-' && arg[1] !== '-' && !plain.has(arg)) {
      let at = 1;
      for (; at < arg.length; at++) {
        const letter = `-${arg[at]}`;
        // commander splits a group only while its letter is a known option, and help is no option
        // (read as a whole word): the group's last letter h is help (`-yh`), any other is unknown,
        // handed on with what follows unread (`-hp`, `-yhp`; review24f L1).
        if (letter === '-h') {
          yield { kind: at === arg.length - 1 ? 'help' : 'unsure' };
          break;
        } else if (valued.has(letter)) {
          if (at === arg.length - 1) i++;
          break;
        } else if (!plain.has(letter)) {
          yield { kind: 'unsure' };
          break;
        }
      }
      yield { kind: 'flag' };
    } else if (arg.startsWith('-')) yield { kind: 'flag' };
    else yield { kind: 'word', word: arg };
  }
}

/** The first `limit` words of argv that are not options or option values (one after `--`). */
function commandWords(argv: string[], flags: ArgvFlags, limit = 2): string[] {
  const words: string[] = [];
  let ended = false;
  for (const token of argvTokens(argv, flags)) {
    if (words.length >= limit) break;
    if (token.kind === 'end') ended = true;
    if (token.kind !== 'word') continue;
    words.push(token.word);
    if (ended) break;
  }
  return words;
}

const findEntry = (name: string | undefined) =>
  COMMANDS.find((entry) => entry.name === name || entry.aliases?.includes(name ?? ''));

/** The top-level command named on the command line (`svc [globals] NAME …`, or `svc help NAME`). */
export function targetCommand(argv: string[], flags: ArgvFlags): CommandEntry | undefined {
  const words = commandWords(argv, flags);
  return findEntry(words[0] === 'help' ? words[1] : words[0]);
}

/**
 * The word after the top-level command's name (`svc [globals] NAME VERB …`, or `svc help NAME
 * VERB`): the verb a group may build alone (kit.ts verbsOnly). Undefined when there is none, or
 * when before it comes a help flag (`svc webhooks -h verify` and `-yh verify` are the group's
 * help, every verb listed), `--`, or a group of short flags not read for sure: then every verb is
 * built, which is always right.
 */
export function verbWord(argv: string[], flags: ArgvFlags): string | undefined {
  const words: string[] = [];
  for (const token of argvTokens(argv, flags)) {
    if (token.kind === 'flag') continue;
    if (token.kind !== 'word') return undefined;
    words.push(token.word);
    if (words.length === (words[0] === 'help' ? 3 : 2)) return token.word;
  }
  return undefined;
}

/** Whether argv asks for help (`-h`, `--help`, or h last in a group of short flags) before `--`. */
function helpGiven(argv: string[], flags: ArgvFlags): boolean {
  for (const token of argvTokens(argv, flags)) {
    if (token.kind === 'end') return false;
    if (token.kind === 'help') return true;
  }
  return false;
}

/**
 * `svc help NAME` for a NAME that is no command: the one line `svc NAME` gets (commander would
 * print the whole top-level help to stderr instead).
 */
export function unknownHelpTopic(argv: string[], flags: ArgvFlags): UsageError | undefined {
  const [first, name] = commandWords(argv, flags);
  if (first !== 'help' || name === undefined || findEntry(name) || name === 'help') return undefined;
  const match = closest(
    name,
    COMMANDS.map((entry) => ({ name: entry.name, aliases: entry.aliases ?? [] })),
  );
  return new UsageError(`unknown command '${name}'${match ? ` (Did you mean ${match}?)` : ''}`, {
    hint: 'see `svc --help`',
  });
}

/**
 * `svc help roles assign` and deeper: the command whose help to print (commander's help command
 * reads only the first word, so it printed the `roles` help), or the one line `svc roles asign`
 * gets when a word names no command there. `svc help help` is the program's help. Undefined for
 * `svc help` and `svc help NAME`, which commander answers (and unknownHelpTopic checks).
 */
export function nestedHelpTopic(
  program: Command,
  argv: string[],
  flags: ArgvFlags,
): Command | UsageError | undefined {
  const [first, ...names] = commandWords(argv, flags, Number.POSITIVE_INFINITY);
  if (first !== 'help') return undefined;
  if (names.length === 1 && names[0] === 'help') return program;
  if (names.length < 2) return undefined;
  let current = program;
  for (const name of names) {
    const sub = subcommand(current, name);
    if (!sub) return unknownSubcommand(current, name);
    current = sub;
  }
  return current;
}

/**
 * `svc roles asign --help`: a word that names no verb of its group, before --help or -h. commander
 * printed the group's help and exited 0, so a typo went unnoticed; this is the one line (exit 2)
 * `svc help roles asign` and `svc roles asign` give. A word after a verb is no typo, nor is one
 * after a group that takes it as its default verb's argument (`svc webhooks dlq WEBHOOK`, ls by
 * default) unless more words follow than that verb takes (`svc webhooks dlq discardd wh_1`):
 * then it is the same one line with --help or without (commander said "too many arguments for
 * 'ls'" without, and printed the group's help with it).
 */
export function unknownBeforeHelp(
  program: Command,
  argv: string[],
  flags: ArgvFlags,
): UsageError | undefined {
  const options = optionWords(argv);
  const help = helpGiven(options, flags);
  const names = commandWords(options, flags, Number.POSITIVE_INFINITY);
  if (names[0] === 'help') return undefined;
  let current = program;
  for (const [depth, name] of names.entries()) {
    if (current.commands.length === 0 || current.registeredArguments.length > 0) return undefined;
    const sub = subcommand(current, name);
    if (sub) {
      current = sub;
      continue;
    }
    const byDefault = defaultSubcommand(current);
    if (byDefault === undefined) return help ? unknownSubcommand(current, name) : undefined;
    const verbFlags = argvFlags(byDefault);
    const operands = commandWords(
      options,
      { valued: [...flags.valued, ...verbFlags.valued], plain: [...flags.plain, ...verbFlags.plain] },
      Number.POSITIVE_INFINITY,
    );
    const takes = maxArguments(byDefault);
    if (operands.length - depth <= takes) return undefined;
    // A typo of a verb (`dlq discardd wh_1`) is that; otherwise the first word is the default
    // verb's argument (a webhook id) and the words beyond what it takes are the mistake.
    if (closest(name, verbsOf(current)) !== undefined) return unknownSubcommand(current, name);
    return tooManyWords(current, byDefault, operands.slice(depth + takes));
  }
  return undefined;
}

/**
 * Words beyond the arguments of a group's default verb (`svc webhooks dlq W --since 2 hours`):
 * named, with the likely cause (a flag's value with a space, a second value after a flag).
 */
function tooManyWords(group: Command, verb: Command, extra: string[]): UsageError {
  const args = verb.registeredArguments.map((arg) => arg.name().toUpperCase()).join(' ');
  const words = extra.map((word) => JSON.stringify(word)).join(', ');
  const path = commandPath(group) || 'svc';
  return new UsageError(`too many arguments: ${words} (${path} takes ${args || 'none'})`, {
    hint: `a flag takes one word: quote a value with spaces, or give the flag again for another value; see \`${path} --help\``,
  });
}

/** A group's verbs as candidates for a typo (help aside). */
function verbsOf(command: Command) {
  return commandCandidates(command).filter((c) => c.name !== 'help');
}

/** The verb a group runs when its first word names none (`webhooks dlq WEBHOOK` is `dlq ls`). */
function defaultSubcommand(command: Command): Command | undefined {
  const name = (command as unknown as { _defaultCommandName?: string | null })._defaultCommandName;
  return typeof name === 'string' ? subcommand(command, name) : undefined;
}

/** A command's own options as written on the command line: those that take a value (`--since`, `-n`), the others. */
export function argvFlags(command: Command): ArgvFlags {
  const written = (takesValue: boolean) =>
    command.options
      .filter((option) => (option.required || option.optional) === takesValue)
      .flatMap((option) => [option.short, option.long].filter((flag): flag is string => flag !== undefined));
  return { valued: written(true), plain: written(false) };
}

/** How many arguments a command takes: unlimited when its last one is variadic. */
function maxArguments(command: Command): number {
  const args = command.registeredArguments;
  return args.some((arg) => arg.variadic) ? Number.POSITIVE_INFINITY : args.length;
}

/** The words of argv before the end of options (`--`): after it, `--json` is an operand, not a flag. */
export function optionWords(argv: string[]): string[] {
  const end = argv.indexOf('--');
  return end === -1 ? argv : argv.slice(0, end);
}

/** Whether `flag` is given as an option (before `--`), as commander reads it. */
export function flagGiven(argv: string[], flag: string): boolean {
  return optionWords(argv).includes(flag);
}

function subcommand(command: Command, name: string): Command | undefined {
  return command.commands.find((c) => c.name() === name || c.aliases().includes(name));
}

function unknownSubcommand(command: Command, name: string): UsageError {
  const match = closest(name, verbsOf(command));
  return new UsageError(`unknown command '${name}'${match ? ` (Did you mean ${match}?)` : ''}`, {
    hint: `see \`${commandPath(command) || 'svc'} --help\``,
  });
}
