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
 * SVC_FORCE_TTY=1 (or a width such as 120) makes svc treat stdout as a terminal: the tour and
 * the tests use it to show table output through a pipe.
 */
function forcedWidth(env: Env): number | undefined {
  const raw = env.SVC_FORCE_TTY;
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return undefined;
  const width = Number.parseInt(raw, 10);
  return Number.isFinite(width) && width > 20 ? width : 100;
}

export function systemIO(env: Env, options: { noColor?: boolean } = {}): IOStreams {
  const forced = forcedWidth(env);
  const stdoutIsTTY = forced !== undefined || process.stdout.isTTY === true;
  const stderrIsTTY = process.stderr.isTTY === true;
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY,
    stderrIsTTY,
    columns: forced ?? process.stdout.columns ?? 80,
    colorStdout: colorEnabled(stdoutIsTTY, env, options.noColor === true),
    colorStderr: colorEnabled(stderrIsTTY, env, options.noColor === true),
  };
}
