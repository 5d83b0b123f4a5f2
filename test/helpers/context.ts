/**
 * The one way to run svc's verbs in a test: an in-process Context over buffers, with an injected
 * clock, the terminals the test claims (TTY or not, a width), stdin, a scripted prompter, and an
 * environment whose config, state and cache directories are temporary.
 *
 * - `testContext(options)` gives a Context to call a verb's run function with
 *   (`runTenantsLs(ctx, parseTenantsLs(flags))`), and its stdout/stderr.
 * - `runInProcess(argv, env, options)` runs a whole command line (parsing, exit code) the way
 *   the binary does after start-up.
 * - `useSandboxContext()` (test/helpers/sandbox.ts) pairs both with a sandbox on an ephemeral
 *   port, as its admin in Acme Treasury: see test/commands/tenants/ls.test.ts for the shape.
 *
 * Past 300 lines: the Context, its fake IO, clock and prompter and the temporary directories are
 * what every in-process test is built from, kept in the one file they are imported from.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { JournalDisk } from '../../src/bulk/journal-disk.js';
import { runCli } from '../../src/cli.js';
import { COMMANDS } from '../../src/commands/manifest.js';
import type { StoreDisk } from '../../src/config/disk.js';
import {
  type Clock,
  type Context,
  type ContextDeps,
  createContext,
  type GlobalOptions,
} from '../../src/context.js';
import { createIO, type Env, type IOStreams } from '../../src/output/io.js';
import type { Browser } from '../../src/system/browser.js';
import { realTimer } from '../../src/system/clock.js';
import type { Choice, Prompter } from '../../src/system/prompter.js';

let warmed: Promise<void> | undefined;

/**
 * Loads every command's modules and those a Context loads when first asked (once per worker):
 * test/helpers/warm-commands.ts calls it before each file that imports this one, so a file's
 * first command does not load them inside its first test's waits and limit.
 */
export function warmCommands(): Promise<void> {
  warmed ??= (async () => {
    await Promise.all([
      import('../../src/context.js'),
      import('../../src/http/client.js'),
      import('../../src/http/paging.js'),
      import('../../src/platform/index.js'),
      import('../../src/output/table.js'),
    ]);
    for (const entry of COMMANDS) await entry.load();
  })();
  return warmed;
}
(globalThis as { __svcWarmCommands?: () => Promise<void> }).__svcWarmCommands = warmCommands;

/** "Now" in tests unless one says otherwise: relative times ("2 years ago") are then exact. */
export const FIXED_NOW = Date.parse('2026-01-15T12:00:00Z');

/**
 * A clock whose waits return at once and move `now()` on by what was asked, recording each wait
 * (retries, Retry-After, polls): a test of waiting asserts the exact waits and takes no time.
 */
export function virtualClock(start = FIXED_NOW): Required<Clock> & { waits: number[] } {
  let now = start;
  const waits: number[] = [];
  return {
    waits,
    now: () => now,
    async sleep(ms, signal) {
      signal?.throwIfAborted();
      waits.push(ms);
      now += ms;
      // Let sockets and timers run, as a real wait would.
      await new Promise((resolve) => setImmediate(resolve));
    },
    // A request's timeout on the real clock: the waits this clock plays are of retries and polls.
    timer: realTimer,
    // A synchronous poll's pause (a named pipe's reader): counted and played, at once.
    sleepSync(ms) {
      waits.push(ms);
      now += ms;
    },
  };
}

export interface FakeIO {
  io: IOStreams;
  stdout: () => string;
  /** stdout's bytes as written (stdout() decodes them as UTF-8). */
  stdoutBytes: () => Buffer;
  stderr: () => string;
}

export interface FakeIOOptions {
  /** true: stdin, stdout and stderr all claim to be terminals; or claim them one by one. */
  tty?: boolean | Partial<Record<'stdin' | 'stdout' | 'stderr', boolean>>;
  /** Terminal width (default 120). */
  columns?: number;
  /** What stdin holds, or a stream the test writes to as the command runs (a pasted line). */
  stdin?: string | Buffer | Readable;
  /** Force colour on or off; otherwise svc's own policy decides from `env` (no env: no colour). */
  color?: boolean;
  env?: Env;
  noColor?: boolean;
  /**
   * Every write to stdout fails with this error code (`ENOSPC`), as process.stdout's do on a full
   * disk or /dev/full: the callback and an 'error' event say so, and the stream stays open.
   */
  stdoutFails?: string;
  /**
   * With stdoutFails: this many writes get through first (seen by stdout()), as a reader that
   * reads a line and leaves (`| head -1`).
   */
  stdoutFailsAfter?: number;
  /**
   * With stdoutFails: a failed write is told in a later turn (its callback, its 'error'), as a
   * pipe's error comes once the bytes reach the descriptor (a write queued behind others, an
   * asynchronous pipe): until then the stream has taken the write without complaint.
   */
  stdoutFailsLate?: boolean;
  /**
   * With stdoutFails: hears of each failed write once svc has (its 'error' event comes after the
   * write's callback), so a test can hold something until the reader has gone.
   */
  stdoutFailed?: () => void;
  /**
   * A stalled reader (a full pipe nobody reads): each write is taken only once `until` settles;
   * `onWrite` hears of each write as it is offered (a line waiting).
   */
  stdoutHeld?: { until: Promise<void>; onWrite?: () => void };
}

/** A stdout that takes each write only once `until` settles, then passes it on to `seen`. */
function heldStdout(held: NonNullable<FakeIOOptions['stdoutHeld']>, seen: Writable): Writable {
  return new Writable({
    write(chunk, _encoding, callback) {
      held.onWrite?.();
      void held.until.then(() => seen.write(chunk, () => callback()));
    },
  });
}

/**
 * A stdout whose every write fails with `code` (after `after` writes that get through, to `seen`),
 * and which is never destroyed (as process.stdout).
 */
function failingStdout(code: string, after: number, seen: Writable, late = false): Writable {
  let left = after;
  return new Writable({
    autoDestroy: false,
    write(chunk, _encoding, callback) {
      if (left-- > 0) return seen.write(chunk, () => callback());
      const fail = () =>
        callback(Object.assign(new Error(`${code}: write failed (test), write`), { code, syscall: 'write' }));
      if (late) setImmediate(fail);
      else fail();
    },
  });
}

/** IOStreams over buffers, claiming the terminals the test asks for (src/output/io.ts createIO). */
export function fakeIO(options: FakeIOOptions = {}): FakeIO {
  const out: string[] = [];
  const outBytes: Buffer[] = [];
  const err: string[] = [];
  const passThrough = new PassThrough();
  const stdout = options.stdoutFails
    ? failingStdout(options.stdoutFails, options.stdoutFailsAfter ?? 0, passThrough, options.stdoutFailsLate)
    : options.stdoutHeld
      ? heldStdout(options.stdoutHeld, passThrough)
      : passThrough;
  // As process.stdout in bin/svc.js: the 'error' events of failed writes are heard by the writer.
  if (options.stdoutFails) stdout.on('error', () => options.stdoutFailed?.());
  const stderr = new PassThrough();
  passThrough.on('data', (chunk: Buffer) => {
    out.push(chunk.toString('utf8'));
    outBytes.push(chunk);
  });
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString('utf8')));
  const claim = (stream: 'stdin' | 'stdout' | 'stderr') =>
    typeof options.tty === 'object' ? options.tty[stream] === true : options.tty === true;
  const stdin =
    options.stdin instanceof Readable
      ? options.stdin
      : Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]);
  const io = createIO(
    { stdin, stdout, stderr },
    {
      stdin: claim('stdin'),
      stdout: claim('stdout'),
      stderr: claim('stderr'),
      columns: options.columns ?? 120,
    },
    options.env ?? { NO_COLOR: '1' },
    { noColor: options.noColor === true },
  );
  if (options.color !== undefined) {
    io.colorStdout = options.color;
    io.colorStderr = options.color;
  }
  return {
    io,
    stdout: () => out.join(''),
    stdoutBytes: () => Buffer.concat(outBytes),
    stderr: () => err.join(''),
  };
}

/**
 * A prompter that gives the scripted answers in order and records the questions; a question
 * beyond the script fails the test (so does any question when no answers are given).
 */
export function scriptedPrompter(answers: unknown[] = []): Prompter & { questions: string[] } {
  const queue = [...answers];
  const questions: string[] = [];
  const next = async <T>(message: string, choices?: Array<Choice<T>>): Promise<T> => {
    questions.push(message);
    if (queue.length === 0) throw new Error(`unexpected prompt: ${message}`);
    const answer = queue.shift();
    if (choices && !choices.some((c) => c.value === answer)) {
      throw new Error(`scripted answer ${JSON.stringify(answer)} is not a choice of "${message}"`);
    }
    return answer as T;
  };
  return {
    questions,
    input: (message) => next(message),
    password: (message) => next(message),
    confirm: (message) => next(message),
    select: (message, choices) => next(message, choices),
  };
}

export function testDeps(
  io: IOStreams,
  env: Record<string, string | undefined>,
  extra: Partial<ContextDeps> = {},
): ContextDeps {
  return { io, env, signal: new AbortController().signal, prompter: scriptedPrompter(), ...extra };
}

export interface VerbOptions extends Omit<FakeIOOptions, 'env'> {
  env?: Record<string, string | undefined>;
  globals?: GlobalOptions;
  /** The clock's time, in ms since the epoch (default FIXED_NOW). */
  now?: number;
  /** Answers for the scripted prompter, in the order the questions come. */
  answers?: unknown[];
  signal?: AbortSignal;
  /** A clock the test moves itself (instead of `now`). */
  clock?: Clock;
  /** A prompter of the test's own (instead of `answers`). */
  prompter?: Prompter;
  /** What "opening a browser" does (e.g. consentBrowser() in test/helpers/oauth.ts). */
  browser?: Browser;
  /** How svc's own files are written (fillableDisk() in test/helpers/disk.ts plays a full disk). */
  disk?: StoreDisk;
  /** How bulk runs write their journals (fillableJournalDisk() in test/helpers/disk.ts). */
  journalDisk?: JournalDisk;
}

function depsFor(
  options: VerbOptions,
  noColor = false,
): { fake: FakeIO; deps: ContextDeps; questions: string[] } {
  const env = options.env ?? {};
  const fake = fakeIO({ env, noColor, ...options });
  const clock: Clock = options.clock ?? { now: () => options.now ?? FIXED_NOW };
  const scripted = scriptedPrompter(options.answers);
  const prompter = options.prompter ?? scripted;
  const deps = testDeps(fake.io, env, {
    clock,
    prompter,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.browser ? { browser: options.browser } : {}),
    ...(options.disk ? { disk: options.disk } : {}),
    ...(options.journalDisk ? { journalDisk: options.journalDisk } : {}),
  });
  return { fake, deps, questions: scripted.questions };
}

/**
 * A Context over buffers, for calling a command's run function in-process; `questions` are the
 * prompts it asked.
 */
export function testContext(options: VerbOptions = {}): FakeIO & { ctx: Context; questions: string[] } {
  const { fake, deps, questions } = depsFor(options, options.globals?.color === false);
  return { ...fake, questions, ctx: createContext(deps, options.globals ?? {}) };
}

/**
 * Runs a whole svc command line in-process (parsing included) and returns its exit code and
 * output. `extra` replaces dependencies: a clock, a prompter, a Ctrl-C signal, streams' TTY flags.
 */
export async function runInProcess(
  argv: string[],
  env: Record<string, string | undefined>,
  options: Omit<VerbOptions, 'env' | 'globals'> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runInProcessBytes(argv, env, options);
  return { code, stdout: stdout.toString('utf8'), stderr };
}

/** runInProcess with stdout's bytes as written (a body that is not UTF-8). */
export async function runInProcessBytes(
  argv: string[],
  env: Record<string, string | undefined>,
  options: Omit<VerbOptions, 'env' | 'globals'> = {},
): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const { fake, deps } = depsFor({ ...options, env }, argv.includes('--no-color'));
  const code = await runCli(argv, deps);
  return { code, stdout: fake.stdoutBytes(), stderr: fake.stderr() };
}

/** A command line running in-process that the test watches and can interrupt (Ctrl-C). */
export interface LiveRun {
  stdout: () => string;
  stderr: () => string;
  /** true once the command has ended. */
  ended: () => boolean;
  /** Resolves with the first match of `pattern` in stderr (waits for it). */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** What Ctrl-C does to the binary: aborts the run's signal. */
  interrupt(): void;
  /** The run's signal (what it holds once the run has ended: test/helpers/signal-holds.ts). */
  signal: AbortSignal;
  done: Promise<{ code: number; stdout: string; stderr: string }>;
}

/**
 * `runInProcess` for commands that wait on the outside world (a login waiting for its browser
 * callback, a listener): the test reads stderr while it runs, acts, then interrupts or awaits it.
 */
export function startInProcess(
  argv: string[],
  env: Record<string, string | undefined>,
  options: Omit<VerbOptions, 'env' | 'globals' | 'signal'> = {},
): LiveRun {
  const controller = new AbortController();
  const { fake, deps } = depsFor({ ...options, env, signal: controller.signal }, argv.includes('--no-color'));
  let ended = false;
  const done = runCli(argv, deps).then((code) => {
    ended = true;
    return { code, stdout: fake.stdout(), stderr: fake.stderr() };
  });
  return {
    stdout: fake.stdout,
    stderr: fake.stderr,
    ended: () => ended,
    interrupt: () => controller.abort(),
    signal: controller.signal,
    done,
    async waitForStderr(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(fake.stderr());
        if (match) return match;
        if (ended) throw new Error(`svc ended before printing ${pattern}\n${fake.stderr()}`);
        if (Date.now() > deadline) throw new Error(`svc did not print ${pattern} in time\n${fake.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    },
  };
}

/**
 * Private SVC_CONFIG_DIR, SVC_STATE_DIR and SVC_CACHE_DIR for the tests of one file, made before
 * them and removed after them.
 */
export function useTempDirs(): () => Record<'SVC_CONFIG_DIR' | 'SVC_STATE_DIR' | 'SVC_CACHE_DIR', string> {
  let root: string | undefined;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'svc-test-'));
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });
  return () => {
    if (!root) throw new Error('temporary directories are made in beforeAll');
    return {
      SVC_CONFIG_DIR: join(root, 'config'),
      SVC_STATE_DIR: join(root, 'state'),
      SVC_CACHE_DIR: join(root, 'cache'),
    };
  };
}

/**
 * Like useTempDirs, but a new set of directories (and NO_COLOR) on every call, for tests that
 * each start from no profile at all; all are removed after each test.
 */
export function useFreshDirs(
  prefix = 'svc-test-',
): () => Record<'SVC_CONFIG_DIR' | 'SVC_STATE_DIR' | 'SVC_CACHE_DIR' | 'NO_COLOR', string> {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const root = mkdtempSync(join(tmpdir(), prefix));
    made.push(root);
    return {
      SVC_CONFIG_DIR: join(root, 'config'),
      SVC_STATE_DIR: join(root, 'state'),
      SVC_CACHE_DIR: join(root, 'cache'),
      NO_COLOR: '1',
    };
  };
}

/** The objects of NDJSON output, one per line (blank lines ignored). */
export function ndjson(text: string): any[] {
  return text
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
