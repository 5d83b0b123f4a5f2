// Over 300 lines: the program as one piece: its global flags (defined once, read by the launcher
// and completion), the command tree, runCli's path from an error to an exit code and main's
// signals and streams; argv and commander-error helpers live in cli-argv.ts and cli-errors.ts.
import { Command, CommanderError, Option } from 'commander';
import {
  type ArgvFlags,
  argvFlags,
  flagGiven,
  nestedHelpTopic,
  targetCommand,
  unknownBeforeHelp,
  unknownHelpTopic,
  verbWord,
} from './cli-argv.js';
import { defaultSubcommandTypo, fromCommanderError } from './cli-errors.js';
import { refuseRepeatedValues, refuseSeveralTenants, refuseUnexpandedPaths } from './cli-options.js';
import type { MakeContext } from './commands/kit.js';
import { COMMANDS, type CommandEntry } from './commands/manifest.js';
import { envSwitchOrOff } from './config/env-flags.js';
import { checkDirectoryVariables, UNEXPANDED_DIRECTORY } from './config/paths.js';
import type { TargetSettings } from './config/settings.js';
import type { Context, ContextDeps, GlobalOptions } from './context.js';
import { ClosedPipeError, exitCodeFor, SvcError, stdoutError, UsageError } from './errors.js';
import { renderError } from './output/errors.js';
import { fieldFlagsOf } from './output/field-flags.js';
import { systemIO } from './output/io.js';
import { useUnicodeMarks } from './output/symbols.js';
import { checkLauncherSwitches, runtimeFor } from './runtime/index.js';
import { inCommand } from './system/command-scope.js';
import { interruptHandler } from './system/interrupts.js';
import { releaseLostTerminals, standardTerminals } from './system/lost-terminal.js';
import { VERSION } from './version.js';

/** Streams that discard everything: for building the program only to read its definition. */
const discard = { write: () => true } as unknown as ContextDeps['io']['stdout'];
const SILENT_IO = { stdout: discard, stderr: discard } as ContextDeps['io'];

/**
 * --json or --ndjson on the line: --ndjson is a machine's stream as much as --json, errors alike.
 * Only as options (before `--`), as commander reads them: `svc roles get -- --json` is text.
 */
function machineArgv(argv: string[]): boolean {
  return flagGiven(argv, '--json') || flagGiven(argv, '--ndjson');
}

/** The global flags, read from the root program's own options: those that take a value (`-p NAME`), the others. */
export function globalFlags(): ArgvFlags {
  return argvFlags(rootProgram(SILENT_IO));
}

/** The global flags that take a value (`-p NAME`). */
export function valueFlags(): string[] {
  return [...globalFlags().valued];
}

/**
 * What bin/svc.js must know before it loads this bundle; the build writes it to
 * dist/launcher.json (see src/runtime/index.ts): the global flags that take a value and those
 * that do not (to read a group of short flags, `-yp NAME`, as cli-argv.ts does), and the
 * command words with the name of their code cache (an alias shares its command's; any other word
 * shares one, so typos cannot fill the cache directory).
 */
export function launcherFacts(): {
  valueFlags: string[];
  plainFlags: string[];
  commands: Record<string, string>;
  unexpandedDirectory: string;
} {
  const commands: Record<string, string> = { help: 'help' };
  for (const entry of COMMANDS) {
    for (const word of [entry.name, ...(entry.aliases ?? [])]) commands[word] = entry.name;
  }
  const { valued, plain } = globalFlags();
  return {
    valueFlags: [...valued],
    plainFlags: [...plain],
    commands,
    unexpandedDirectory: UNEXPANDED_DIRECTORY.source,
  };
}

/**
 * Descriptions are written as paragraphs with line breaks for the source's sake; commander
 * wraps them to the terminal, so single breaks are joined (indented and list lines are kept).
 */
export function reflow(text: string): string {
  return text
    .split('\n\n')
    .map((paragraph) =>
      paragraph
        .split('\n')
        .reduce(
          (out, line, i) => (i === 0 ? line : `${out}${/^(\s|[-*] |\$ )/.test(line) ? '\n' : ' '}${line}`),
          '',
        ),
    )
    .join('\n\n');
}

/** Output, help and error settings shared by every command of the tree, and its options each given once. */
function configure(command: Command, io: ContextDeps['io']): Command {
  // The root's --tenant may repeat for a verb that acts in several tenants (refuseSeveralTenants).
  refuseRepeatedValues(command, command.parent ? [] : ['tenant']);
  refuseUnexpandedPaths(command);
  return command
    .description(reflow(command.description()))
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: () => {},
    })
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError(true)
    .exitOverride();
}

/**
 * A global flag that takes a value. An empty value (`--tenant "$T"` with T unset) is a usage
 * error: read as "not given", the command would act on the profile's tenant (or profile, or
 * server) instead of the one the script meant. An empty environment variable still means unset.
 */
function valueOption(flags: string, description: string, what: string): Option {
  const option = new Option(flags, description);
  const name = option.short ? `${option.short}/${option.long}` : option.long;
  return option.argParser((value: string) => {
    if (value.trim() === '') throw new UsageError(`${name} is empty; give ${what}, or leave the flag out`);
    return value;
  });
}

function rootProgram(io: ContextDeps['io']): Command {
  const program = new Command('svc')
    .description(
      'svc — admin CLI for the reconciliation platform: OAuth clients, roles, tenants, webhooks.\n' +
        'Try `svc sandbox start` for a local platform, then `svc tenants ls`.',
    )
    .version(VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(valueOption('-p, --profile <name>', 'profile to use (env SVC_PROFILE)', 'a profile name'))
    .addOption(valueOption('--base-url <url>', 'API base URL (env SVC_BASE_URL)', 'the API base URL'))
    .addOption(
      valueOption(
        '--app-url <url>',
        'browser app URL, defaults to the base URL (env SVC_APP_URL)',
        'the browser app URL',
      ),
    )
    .addOption(
      valueOption('--tenant <id>', 'tenant sent as X-Tenant-Id (env SVC_TENANT)', 'a tenant id or slug'),
    )
    .addOption(
      valueOption('--org <id>', 'organisation sent as X-SVC-Org-Id (env SVC_ORG)', 'an organisation id'),
    )
    .addOption(new Option('--json', 'print one JSON document; errors as JSON on stderr'))
    .addOption(
      new Option(
        '--ndjson',
        'print one JSON object per line (lists, bulk results); errors as JSON on stderr',
      ),
    )
    .addOption(new Option('--wide', 'terminal tables: every column, ids whole (lines may wrap)'))
    .addOption(new Option('--debug', 'trace HTTP requests on stderr, secrets masked (env SVC_DEBUG=1)'))
    .addOption(new Option('--no-color', 'disable colour (env NO_COLOR)'))
    .addOption(
      new Option(
        '-y, --yes',
        'confirm destructive actions without asking (a No at the question exits 2, nothing changed)',
      ),
    )
    .addOption(
      valueOption(
        '--timeout <seconds>',
        'per-request timeout (default 30, env SVC_TIMEOUT)',
        'a number of seconds',
      ),
    )
    .addOption(
      new Option(
        '--allow-insecure-http',
        'send credentials over plain http to hosts that are not loopback (env SVC_ALLOW_INSECURE_HTTP=1)',
      ),
    );
  // --tenant keeps its last value (the tenant of the call); every value given is kept too, in
  // order, for commands that act in several tenants (`svc export --tenant a --tenant b`).
  program.on('option:tenant', (value: string) => {
    const given = (program.getOptionValue('tenants') as string[] | undefined) ?? [];
    program.setOptionValueWithSource('tenants', [...given, value], 'cli');
  });
  refuseSeveralTenants(program);
  return configure(program, io);
}

function configureTree(command: Command, io: ContextDeps['io']): void {
  for (const sub of command.commands) {
    configure(sub, io);
    configureTree(sub, io);
  }
}

/**
 * Builds the command tree. The command being run is loaded in full; the others are stubs that
 * only carry a name and a summary for `svc --help`. `loadAll` loads everything (completions,
 * docs).
 */
export async function buildProgram(
  make: MakeContext,
  io: ContextDeps['io'],
  argv: string[],
  options: { loadAll?: boolean } = {},
): Promise<Command> {
  // With --json/--ndjson stderr is only the error object: the help commander shows for a mistake
  // (a missing subcommand) is left out; the error's hint points at it.
  const shown = machineArgv(argv) ? { ...io, stderr: discard } : io;
  const program = rootProgram(shown);
  const target = options.loadAll ? undefined : targetCommand(argv, argvFlags(program));
  for (const entry of COMMANDS) {
    let command: Command;
    if (options.loadAll) {
      command = (await entry.load()).default(make);
    } else if (entry === target) {
      command = (await entry.load()).default(make, verbWord(argv, argvFlags(program)));
    } else {
      command = new Command(entry.name).description(entry.summary);
    }
    command.helpGroup(entry.group);
    for (const alias of entry.aliases ?? []) if (!command.aliases().includes(alias)) command.alias(alias);
    program.addCommand(command, { hidden: entry.hidden === true });
  }
  program.commandsGroup('Tools:').helpCommand('help [command]', 'show help for a command');
  configureTree(program, shown);
  return program;
}

/** The checked-in files generated from the command tree (used by scripts/generate.mjs). */
export async function generatedFiles(): Promise<Record<string, string>> {
  return (await import('./completion/generated.js')).generatedFiles();
}

const notForRunning: MakeContext = async () => {
  throw new Error('this program is for generating completions and docs, not for running commands');
};

/** The whole command tree, every command loaded (for the completion scripts and docs/cli.md). */
export async function fullProgram(): Promise<Command> {
  return buildProgram(notForRunning, SILENT_IO, [], { loadAll: true });
}

/** The program as `svc --help` builds it (every command a stub with its summary), for docs/cli.md. */
export async function rootHelpProgram(): Promise<Command> {
  return buildProgram(notForRunning, SILENT_IO, []);
}

async function closedAfterwards(ctx: Context): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  return ctx.out.stdoutClosed;
}

interface RunCliOptions {
  /** The runtime a command gets (the binary's main() passes src/runtime's runtimeFor). */
  runtimeFor?: (command: CommandEntry | undefined) => Partial<ContextDeps>;
  /**
   * Told a failed command's exit code once it is known, before the command's context is closed:
   * the binary sets it as the process's, so a loop that drains during the close (an ended
   * standard input at a prompt) ends with it, never 0 after an error line (review20c F8).
   */
  onFailure?: (code: number) => void;
}

/**
 * Runs one svc command line and returns its exit code. Used by the real binary and by
 * in-process tests alike. In a scope of its own (system/command-scope.ts): what the command is
 * (a bulk command has --concurrency) is known to the words of its errors, the last line's too.
 */
export function runCli(argv: string[], deps: ContextDeps, options: RunCliOptions = {}): Promise<number> {
  return inCommand(() => runCommandLine(argv, deps, options));
}

async function runCommandLine(argv: string[], deps: ContextDeps, options: RunCliOptions): Promise<number> {
  const failed = (code: number): number => {
    options.onFailure?.(code);
    return code;
  };
  let ctx: Context | undefined;
  let program: Command | undefined;
  /** The command whose action made the context: its declared field flags name a 400's field. */
  let acting: Command | undefined;
  const make: MakeContext = async (cmd, made = {}) => {
    acting ??= cmd;
    if (!ctx) {
      const { createContext } = await import('./context.js');
      const runtime = program && options.runtimeFor?.(targetCommand(argv, argvFlags(program)));
      ctx = createContext({ ...deps, ...runtime }, cmd.optsWithGlobals<GlobalOptions>(), {
        requestLimits: 'later',
      });
    }
    // Reading the timeout reads (and checks) every request limit: a bad one is refused here.
    if (!made.argumentsFirst) void ctx.timeoutMs;
    return ctx;
  };
  const json = machineArgv(argv);
  const debug = flagGiven(argv, '--debug') || envSwitchOrOff(deps.env, 'SVC_DEBUG');
  // svc's marks in what it composes from here on, as the locale shows them (symbols.ts).
  useUnicodeMarks(deps.io.unicode || json);
  try {
    checkLauncherSwitches(deps.env);
    checkDirectoryVariables(deps.env);
    program = await buildProgram(make, deps.io, argv);
    const unknownTopic = unknownHelpTopic(argv, argvFlags(program));
    if (unknownTopic) throw unknownTopic;
    const topic = nestedHelpTopic(program, argv, argvFlags(program));
    if (topic instanceof UsageError) throw topic;
    const typo = unknownBeforeHelp(program, argv, argvFlags(program));
    if (typo) throw typo;
    if (topic) {
      topic.outputHelp();
      return 0;
    }
    await program.parseAsync(argv, { from: 'user' });
    // A write to a reader that already went away fails a moment later: look once more.
    if (ctx && (await closedAfterwards(ctx))) {
      if (ctx.out.stdoutFailure !== undefined || ctx.lastChange() !== undefined)
        throw new ClosedPipeError(ctx.out.stdoutFailure);
    }
    return 0;
  } catch (caught) {
    let error = caught;
    if (error instanceof CommanderError) {
      // A missing argument's list line repeats the run's -p/--tenant (svcCommand): its settings, when they can be read.
      let settings: TargetSettings | undefined;
      if (error.code === 'commander.missingArgument' && program) {
        try {
          settings = (await make(program, { argumentsFirst: true })).settings();
        } catch {
          settings = undefined;
        }
      }
      const parsed = fromCommanderError(error, program, argv, settings);
      if (parsed === 'help') return 0;
      error = parsed;
    }
    if (error instanceof ClosedPipeError) {
      // The reader went away: a command ends with the outcome it declared before writing (a
      // refused call, a verdict, changes pending, a test delivery that failed: never 0), changed
      // something or not; that outcome is what the output would have said. Otherwise a command
      // that changed something says so, and so does any command whose write to stdout failed (a
      // full disk); only a command whose outcome is a success (a listing) ends quietly with 0.
      const change = ctx?.lastChange();
      const outcome = error.failure === undefined ? ctx?.out.declaredOutcome : undefined;
      if (outcome !== undefined) error = outcome;
      else if (change === undefined && error.failure === undefined) return 0;
      else error = stdoutError(error.failure, change, ctx?.onlyCopyLost());
    }
    if (error instanceof SvcError && error.silent) return failed(exitCodeFor(error));
    const meant =
      error instanceof SvcError && error.category === 'not_found' && program
        ? defaultSubcommandTypo(program, argv)
        : undefined;
    // What the run keeps for its end is said before the error, the last line of stderr (review23a F2).
    await ctx?.sayAtEnd();
    const text = renderError(error, {
      json,
      debug,
      secrets: ctx?.secrets.values() ?? [],
      ...(meant ? { suggestion: `did you mean \`${meant}\`?` } : {}),
      fields: fieldFlagsOf(acting),
    });
    try {
      deps.io.stderr.write(text);
    } catch {
      // stderr is gone too
    }
    return failed(exitCodeFor(error));
  } finally {
    await ctx?.close();
  }
}

/** For bin/svc.js, before it writes a code cache, and to make the cache's directory. */
export { restoreDefaultFlags } from './runtime/index.js';
export { makeDirectories } from './system/directories.js';

/** The process entry point used by bin/svc.js. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const env = process.env;
  const io = systemIO(env, { noColor: flagGiven(argv, '--no-color') });
  // A reader that went away (`svc … | head -1`): the stream is destroyed and the next write says
  // so (src/output), so a listing ends quietly and a change in progress ends properly (exit 141).
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
  // A terminal that went away must not make Node abort as the process ends (lost-terminal.ts).
  const terminals = standardTerminals();
  process.on('exit', () => releaseLostTerminals(terminals));
  const controller = new AbortController();
  // Ctrl-C, a kill and a closed terminal (SSH dropped) all stop the command the same way, so it
  // can finish what it must (a bulk run's journal, a webhook put back by `listen --webhook`);
  // a second signal exits at once, saying where the command stopped (src/system/interrupts.ts).
  const onSignal = interruptHandler({
    abort: () => controller.abort(),
    exit: (code) => process.exit(code),
    write: (text) => {
      try {
        io.stderr.write(text);
      } catch {
        // stderr is gone too
      }
    },
    render: (error) => renderError(error, { json: machineArgv(argv), debug: false }),
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  const code = await runCli(
    argv,
    { io, env, signal: controller.signal, system: true },
    {
      runtimeFor,
      onFailure: (failure) => {
        process.exitCode = failure;
      },
    },
  );
  // Exit once stdout has drained, even if a keep-alive socket or timer would hold the loop open.
  process.exitCode = code;
  if (process.stdout.writableLength === 0 || process.stdout.destroyed) process.exit(code);
  process.stdout.once('drain', () => process.exit(code));
  setTimeout(() => process.exit(code), 2000).unref();
}
