import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { shellQuote } from '../../src/system/shell-words.js';
import { BIN, TEST_CACHE_DIR } from './svc.js';

const run = promisify(execFile);

/** What `waitFor` throws when the screen never showed what it waited for (its last look kept). */
export class TerminalTimeout extends Error {
  constructor(
    pattern: RegExp | string,
    readonly screen: string,
  ) {
    super(`terminal never showed ${pattern}; screen:\n${screen}`);
  }

  /** The screen's last line with anything on it (the cursor's line at a prompt). */
  get lastLine(): string {
    return (
      this.screen
        .split('\n')
        .filter((line) => line.trim() !== '')
        .at(-1) ?? ''
    );
  }
}

/**
 * A real terminal: a tmux session on a private server, driven with send-keys and read with
 * capture-pane. Used where a prompt or an interactive shell is involved.
 */
export class Terminal {
  readonly #socket: string;

  private constructor(socket: string) {
    this.#socket = socket;
  }

  /** Starts `command` (a shell command line) in a terminal (120×40 unless told) with exactly `env`. */
  static async start(
    command: string,
    env: Record<string, string>,
    columns = 120,
    rows = 40,
  ): Promise<Terminal> {
    const socket = `svc-test-${randomBytes(6).toString('hex')}`;
    // svc started in the terminal keeps its code caches with the suite's, never in ~/.cache/svc.
    const assignments = Object.entries({ SVC_CACHE_DIR: TEST_CACHE_DIR, ...env }).map(
      ([k, v]) => `${k}=${shellQuote(v)}`,
    );
    await run('tmux', [
      '-L',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      't',
      '-x',
      String(columns),
      '-y',
      String(rows),
      `env -i ${assignments.join(' ')} ${command}`,
    ]);
    return new Terminal(socket);
  }

  /**
   * `svc ARGS` (the built binary) in a terminal; once it ends the screen shows `[exit N]` and the
   * pane stays for reading. `stdout`: a file svc's standard output goes to instead.
   */
  static svc(
    args: string[],
    env: Record<string, string>,
    options: { columns?: number; rows?: number; stdout?: string } = {},
  ): Promise<Terminal> {
    const line = [process.execPath, BIN, ...args].map(shellQuote).join(' ');
    const redirect = options.stdout ? ` > ${shellQuote(options.stdout)}` : '';
    return Terminal.start(
      `sh -c ${shellQuote(`${line}${redirect}; echo "[exit $?]"; sleep 600`)}`,
      env,
      options.columns,
      options.rows,
    );
  }

  async send(...keys: string[]): Promise<void> {
    await run('tmux', ['-L', this.#socket, 'send-keys', '-t', 't', ...keys]);
  }

  /** Types text literally (no key names). */
  async type(text: string): Promise<void> {
    await run('tmux', ['-L', this.#socket, 'send-keys', '-t', 't', '-l', text]);
  }

  /** The screen's text; `joined`: lines the terminal wrapped are joined again (long URLs). */
  async screen(options: { joined?: boolean } = {}): Promise<string> {
    const { stdout } = await run('tmux', [
      '-L',
      this.#socket,
      'capture-pane',
      '-p',
      ...(options.joined ? ['-J'] : []),
      '-t',
      't',
    ]);
    return stdout;
  }

  /**
   * The screen once it shows `pattern` (a RegExp, or text it contains); an error with what it
   * showed. Up to 30 s: far above need (a spawn on a loaded CI machine once started 5 s late), and
   * never part of what a test asserts.
   */
  async waitFor(
    pattern: RegExp | string,
    timeoutMs = 30_000,
    options: { joined?: boolean } = {},
  ): Promise<string> {
    const shows = (screen: string) =>
      typeof pattern === 'string' ? screen.includes(pattern) : pattern.test(screen);
    const deadline = Date.now() + timeoutMs;
    let screen = '';
    while (Date.now() < deadline) {
      screen = await this.screen(options);
      if (shows(screen)) return screen;
      // Each look is a tmux process (about 10 ms of the worker's CPU): 50 ms between looks.
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new TerminalTimeout(pattern, screen);
  }

  /**
   * Ctrl-C at a shell's line editor, then its prompt (`prompt`) again. A C-c zsh took while it was
   * still ending a completion widget drew no new prompt on a loaded CI machine (once, in session 28's
   * CI): after 10 s one more C-c, then the usual wait. What a test asserts is the
   * completion on the screen before, never this. Only the wait's timeout is caught (tmux gone is
   * not), and the second C-c is said on stderr, so a fallback that recurs shows in CI's logs
   * (review29a L3).
   */
  async interrupt(prompt: RegExp): Promise<void> {
    await this.send('C-c');
    try {
      await this.waitFor(prompt, 10_000);
    } catch (error) {
      if (!(error instanceof TerminalTimeout)) throw error;
      console.warn(
        `terminal.interrupt: a second C-c was needed (no prompt 10 s after the first; the screen's last line: ${JSON.stringify(error.lastLine)})`,
      );
      await this.send('C-c');
      await this.waitFor(prompt);
    }
  }

  async close(): Promise<void> {
    await run('tmux', ['-L', this.#socket, 'kill-server']).catch(() => undefined);
  }
}
