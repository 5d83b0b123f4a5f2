import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Chalk } from 'chalk';
import { quote } from '../completion/tables.js';
import { colorEnabled } from '../output/io.js';
import type { Sandbox } from '../sandbox/server.js';
import { type ProcessResult, runProcess } from '../system/run.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'svc.js');

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
 * Runs real `svc` commands (the built binary, as child processes) against the tour's sandbox and
 * prints each command with its output.
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
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      SVC_CONFIG_DIR: this.configDir,
      ...(options.tty ? { SVC_FORCE_TTY: String(this.#width) } : {}),
      ...(this.#chalk.level === 0 ? { NO_COLOR: '1' } : {}),
      ...options.env,
    };
    const result = await runProcess(process.execPath, [BIN, ...args], {
      env,
      ...(options.input === undefined ? {} : { input: options.input }),
    });
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

  cleanup(): void {
    rmSync(this.#root, { recursive: true, force: true });
  }
}
