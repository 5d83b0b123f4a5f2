import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { Chalk } from 'chalk';
import { runCli } from '../cli.js';
import { quote } from '../completion/tables.js';
import { colorEnabled, createIO } from '../output/io.js';
import type { Sandbox } from '../sandbox/server.js';
import type { ProcessResult } from '../system/run.js';

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
 */
export class Tour {
  readonly sandbox: Sandbox;
  readonly configDir: string;
  readonly #root: string;
  readonly #chalk: InstanceType<typeof Chalk>;
  readonly #width: number;
  #chapter = 0;

  constructor(sandbox: Sandbox) {
    this.sandbox = sandbox;
    this.#root = mkdtempSync(join(tmpdir(), 'svc-tour-'));
    this.configDir = join(this.#root, 'config');
    const tty = process.stdout.isTTY === true;
    this.#chalk = new Chalk({ level: colorEnabled(tty, process.env, false) ? 1 : 0 });
    this.#width = Math.min(process.stdout.columns ?? 110, 140);
  }

  chapter(title: string): void {
    this.#chapter++;
    process.stdout.write(`\n${this.#chalk.bold.cyan(`── ${this.#chapter}. ${title} `.padEnd(60, '─'))}\n`);
  }

  say(text: string): void {
    process.stdout.write(`${this.#chalk.dim(text)}\n`);
  }

  /** Runs `svc ARGS…`, shows it and its output, and stops the tour if it ends unexpectedly. */
  async svc(args: string[], options: StepOptions = {}): Promise<StepResult> {
    const shown = args.map((a) => (/^[\w./:=@-]+$/.test(a) ? a : quote(a))).join(' ');
    const redirect = options.inputLabel ? ` < ${options.inputLabel}` : '';
    process.stdout.write(`\n${this.#chalk.green('$')} ${this.#chalk.bold(`svc ${shown}${redirect}`)}\n`);
    const step = this.#start(args, options);
    const result: StepResult = await step.done;
    const indent = (text: string) =>
      text
        .trimEnd()
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n');
    if (result.stdout.trim()) process.stdout.write(`${indent(result.stdout)}\n`);
    if (result.stderr.trim()) process.stdout.write(`${this.#chalk.yellow(indent(result.stderr))}\n`);
    const expected = options.expect ?? 0;
    if (result.code !== expected) {
      throw new Error(`\`svc ${shown}\` exited ${result.code}, expected ${expected}`);
    }
    if (expected !== 0) this.say(`  (exit ${result.code}, as expected)`);
    return result;
  }

  /**
   * Starts `svc ARGS…` in the background (e.g. `webhooks listen`); `stop()` interrupts it as
   * Ctrl-C would and gives its result. `stdout()`/`stderr()` read its output so far.
   */
  background(args: string[]): { stdout(): string; stderr(): string; stop(): Promise<StepResult> } {
    const step = this.#start(args, {});
    return {
      stdout: step.stdout,
      stderr: step.stderr,
      stop: async () => {
        step.interrupt();
        return step.done;
      },
    };
  }

  #start(args: string[], options: StepOptions) {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      SVC_CONFIG_DIR: this.configDir,
      ...(this.#chalk.level === 0 ? { NO_COLOR: '1' } : {}),
      ...options.env,
    };
    const stdout = collector();
    const stderr = collector();
    const io = createIO(
      { stdin: Readable.from(options.input === undefined ? [] : [options.input]), stdout, stderr },
      { stdin: false, stdout: options.tty === true, stderr: false, columns: this.#width },
      env,
      { noColor: args.includes('--no-color') },
    );
    const interrupt = new AbortController();
    const done = runCli(args, { io, env, signal: interrupt.signal, system: true }).then(
      (code): StepResult => ({ code, stdout: stdout.text(), stderr: stderr.text() }),
    );
    return { done, stdout: stdout.text, stderr: stderr.text, interrupt: () => interrupt.abort() };
  }

  cleanup(): void {
    rmSync(this.#root, { recursive: true, force: true });
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
