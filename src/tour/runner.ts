import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { Chalk } from 'chalk';
import { runCli } from '../cli.js';
import { colorEnabled, createIO } from '../output/io.js';
import type { Sandbox } from '../sandbox/server.js';
import type { ProcessResult } from '../system/run.js';
import { shellWord } from '../system/shell-words.js';

export type StepResult = ProcessResult;

export interface StepOptions {
  /** Standard input for the command; `inputLabel` is what the tour shows instead of it. */
  input?: string;
  inputLabel?: string;
  /** Render as a terminal would (tables, relative times). */
  tty?: boolean;
  /** The exit code this step should end with (default 0). */
  expect?: number;
  env?: Record<string, string>;
}

/**
 * Runs real `svc` command lines against the tour's sandbox, in this process (runCli, as the
 * binary does after start-up), and prints each with its output. A step with `tty` gets streams
 * that claim a terminal of the tour's width, so tables show as they would on your screen.
 * Every command it runs is shown (there is no hidden setup step); output is a pipe's unless the
 * step has `tty`, and the input files are the tour's own (README says so: journey15 F2).
 */
export class Tour {
  readonly sandbox: Sandbox;
  readonly configDir: string;
  readonly #root: string;
  readonly #chalk: InstanceType<typeof Chalk>;
  readonly #width: number;
  readonly #out: Writable;
  /** Steps still running (a background `listen`, or the step a signal came in): interrupted on a signal. */
  readonly #running = new Set<{ interrupt(): void; done: Promise<StepResult> }>();
  #chapter = 0;
  #interrupted = false;

  constructor(sandbox: Sandbox, out: Writable = process.stdout) {
    this.sandbox = sandbox;
    this.#out = out;
    this.#root = mkdtempSync(join(tmpdir(), 'svc-tour-'));
    this.configDir = join(this.#root, 'config');
    const tty = process.stdout.isTTY === true;
    this.#chalk = new Chalk({ level: colorEnabled(tty, process.env, false) ? 1 : 0 });
    this.#width = Math.min(process.stdout.columns ?? 100, 140);
  }

  chapter(title: string): void {
    this.#chapter++;
    this.#out.write(`\n${this.#chalk.bold.cyan(`── ${this.#chapter}. ${title} `.padEnd(60, '─'))}\n`);
  }

  say(text: string): void {
    this.#out.write(`${this.#chalk.dim(text)}\n`);
  }

  /** A command line as the tour shows it: files of the tour's own directory by their names. */
  #shown(args: string[]): string {
    return args
      .map((a) => (a.startsWith(`${this.#root}/`) ? a.slice(this.#root.length + 1) : a))
      .map(shellWord)
      .join(' ');
  }

  /** Output of a step, indented: stdout as it is, stderr (messages) in yellow. */
  show(stdout: string, stderr = ''): void {
    const indent = (text: string) =>
      text
        .trimEnd()
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n');
    if (stdout.trim()) this.#out.write(`${indent(stdout)}\n`);
    if (stderr.trim()) this.#out.write(`${this.#chalk.yellow(indent(stderr))}\n`);
  }

  /** Runs `svc ARGS…`, shows it and its output, and stops the tour if it ends unexpectedly. */
  async svc(args: string[], options: StepOptions = {}): Promise<StepResult> {
    this.#refuseIfInterrupted();
    const shown = this.#shown(args);
    const redirect = options.inputLabel ? ` < ${options.inputLabel}` : '';
    this.#out.write(`\n${this.#chalk.green('$')} ${this.#chalk.bold(`svc ${shown}${redirect}`)}\n`);
    const result: StepResult = await this.#start(args, options).done;
    this.show(result.stdout, result.stderr);
    const expected = options.expect ?? 0;
    if (result.code !== expected) {
      throw new Error(`\`svc ${shown}\` exited ${result.code}, expected ${expected}`);
    }
    if (expected !== 0) this.say(`  (exit ${result.code}, as expected)`);
    return result;
  }

  /**
   * Starts `svc ARGS…` in the background (e.g. `webhooks listen`), shown with `&`, and resolves
   * once its stderr says `ready`; `stop()` interrupts it as Ctrl-C would and gives its result.
   */
  async background(
    args: string[],
    options: { ready: string },
  ): Promise<{ stdout(): string; stderr(): string; stop(): Promise<StepResult> }> {
    this.#refuseIfInterrupted();
    this.#out.write(`\n${this.#chalk.green('$')} ${this.#chalk.bold(`svc ${this.#shown(args)} &`)}\n`);
    const step = this.#start(args, {});
    for (let i = 0; i < 400 && !step.stderr().includes(options.ready); i++) {
      if (step.finished()) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    if (!step.stderr().includes(options.ready)) {
      step.interrupt();
      throw new Error(`\`svc ${this.#shown(args)}\` did not start: ${step.stderr()}`);
    }
    return {
      stdout: step.stdout,
      stderr: step.stderr,
      stop: async () => {
        step.interrupt();
        return step.done;
      },
    };
  }

  /** A chapter whose step ended anyway goes on to its next one: none starts (or is shown) once interrupted. */
  #refuseIfInterrupted(): void {
    if (this.#interrupted) throw new Error('tour interrupted');
  }

  #start(args: string[], options: StepOptions) {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      SVC_CONFIG_DIR: this.configDir,
      // Journals of bulk runs go next to the tour's settings, never to your state directory.
      SVC_STATE_DIR: join(this.#root, 'state'),
      ...(this.#chalk.level === 0 ? { NO_COLOR: '1' } : {}),
      ...options.env,
    };
    const stdout = collector();
    const stderr = collector();
    const io = createIO(
      { stdin: Readable.from(options.input === undefined ? [] : [options.input]), stdout, stderr },
      // Output is shown indented by two columns.
      { stdin: false, stdout: options.tty === true, stderr: false, columns: this.#width - 2 },
      env,
      { noColor: args.includes('--no-color') },
    );
    const interrupt = new AbortController();
    let finished = false;
    const done = runCli(args, { io, env, signal: interrupt.signal, system: true })
      .then((code): StepResult => ({ code, stdout: stdout.text(), stderr: stderr.text() }))
      .finally(() => {
        finished = true;
        this.#running.delete(running);
      });
    const running = { interrupt: () => interrupt.abort(), done };
    this.#running.add(running);
    return {
      done,
      stdout: stdout.text,
      stderr: stderr.text,
      interrupt: () => interrupt.abort(),
      finished: () => finished,
    };
  }

  /**
   * The tour's answer to Ctrl-C, a kill or a closed terminal: interrupts every running step as
   * Ctrl-C would, waits (at most `patience` ms) until they have stopped — a bulk run writes its
   * journal as it stops, a profile's config may be on the thread pool — and only then removes the
   * temporary directory, so that no late write brings it back. Returns what `cleanup` returns.
   */
  async interrupted(patience = 5_000): Promise<string | undefined> {
    this.#interrupted = true;
    const steps = [...this.#running];
    for (const step of steps) step.interrupt();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(steps.map((step) => step.done)),
      new Promise((resolve) => {
        timer = setTimeout(resolve, patience);
      }),
    ]);
    clearTimeout(timer);
    return this.cleanup();
  }

  /**
   * Removes the temporary directory (the tour's credentials with it). On a signal a step may be
   * writing a file in it at that moment (a profile's config, on the thread pool): the removal is
   * then done again. Returns what could not be removed, in a line to show, never a stack trace.
   */
  cleanup(): string | undefined {
    let why = '';
    // rmSync's own retries only retry the rmdir, not the listing: a file made after the listing
    // (by a write already on the thread pool) needs the whole removal again.
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        rmSync(this.#root, { recursive: true, force: true });
        return undefined;
      } catch (error) {
        why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      }
    }
    return `could not remove the tour's temporary directory ${this.#root} (${why}); remove it by hand`;
  }
}

/** A writable stream that keeps what is written, for one step's stdout or stderr. */
function collector(): Writable & { text(): string } {
  const parts: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      parts.push(chunk.toString('utf8'));
      done();
    },
  });
  return Object.assign(stream, { text: () => parts.join('') });
}
