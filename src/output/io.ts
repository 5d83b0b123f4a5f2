import type { Readable, Writable } from 'node:stream';

/**
 * All terminal access goes through IOStreams: TTY detection, colour, whether svc may prompt.
 * Tests build one from plain buffers (see test/helpers/context.ts); the real one wraps process.
 */
export interface IOStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width for tables; 80 when unknown. */
  columns: number;
  colorStdout: boolean;
  colorStderr: boolean;
  /** Whether the locale's characters are UTF-8: svc's own symbols (✓, …, →) need it; else ASCII. */
  unicode: boolean;
  /**
   * Whether the terminal moves its cursor on svc's say (`\r\e[2K` to redraw a progress line): not
   * with TERM=dumb (Emacs shell buffers, some CI logs), which gets no progress bar, as npm does.
   */
  cursorControl: boolean;
}

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Colour only on a TTY, never with NO_COLOR or --no-color; FORCE_COLOR turns it on anywhere
 * (FORCE_COLOR=0 turns it off). TERM=dumb is treated as no colour.
 */
export function colorEnabled(isTTY: boolean, env: Env, noColorFlag: boolean): boolean {
  if (noColorFlag) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

/**
 * Whether the locale is UTF-8, by the usual rule: the first of LC_ALL, LC_CTYPE and LANG that is
 * set and not empty names the character set (`C`, `POSIX` and `en_US.ISO-8859-1` are not UTF-8).
 * None set says nothing, and today's terminals are UTF-8: taken as UTF-8.
 */
export function unicodeLocale(env: Env): boolean {
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG;
  return locale === undefined || /utf-?8/i.test(locale);
}

/**
 * The width tables fit: what the terminal reports; when it reports none or 0 (`script`, `docker
 * exec -t` without a size, some CI ptys), COLUMNS when it is a positive number; else 80.
 */
export function terminalWidth(reported: number | undefined, env: Env): number {
  if (reported !== undefined && reported > 0) return reported;
  const columns = /^\d+$/.test(env.COLUMNS?.trim() ?? '') ? Number(env.COLUMNS) : 0;
  return columns > 0 ? columns : 80;
}

/** Which streams are terminals, and how wide: decided by whoever makes the IOStreams. */
export interface TerminalClaims {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  /** Terminal width for tables; 80 when unknown. */
  columns?: number | undefined;
}

/**
 * IOStreams over any streams, with svc's colour policy applied to the TTY claims. The binary
 * claims what its process streams are (systemIO); the tests and the tour claim a terminal of a
 * chosen width over buffers. No environment variable overrides the claims; COLUMNS only fills in a
 * width the terminal did not report.
 */
export function createIO(
  streams: Pick<IOStreams, 'stdin' | 'stdout' | 'stderr'>,
  terminal: TerminalClaims,
  env: Env,
  options: { noColor?: boolean } = {},
): IOStreams {
  const noColor = options.noColor === true;
  return {
    ...streams,
    stdinIsTTY: terminal.stdin,
    stdoutIsTTY: terminal.stdout,
    stderrIsTTY: terminal.stderr,
    columns: terminalWidth(terminal.columns, env),
    colorStdout: colorEnabled(terminal.stdout, env, noColor),
    colorStderr: colorEnabled(terminal.stderr, env, noColor),
    unicode: unicodeLocale(env),
    cursorControl: env.TERM !== 'dumb',
  };
}

/** The process's own streams, as they are. */
export function systemIO(env: Env, options: { noColor?: boolean } = {}): IOStreams {
  return createIO(
    { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
    {
      stdin: process.stdin.isTTY === true,
      stdout: process.stdout.isTTY === true,
      stderr: process.stderr.isTTY === true,
      columns: process.stdout.columns,
    },
    env,
    options,
  );
}
