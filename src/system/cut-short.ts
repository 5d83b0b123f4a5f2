import { fstatSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';

/**
 * One rule for every input a change is made from and read through a pipe (attack20 F6, attack21b
 * F6): svc cannot see the exit of what writes the pipe (`(head -c -6 f; exit 1) |`, `curl` on a
 * dropped connection), and a last line cut short is a valid line with a shorter value, which can
 * name another live role or user (`fx-desk` cut to `fx`, `ops-readonly` to `ops`). What it can see
 * is that the input ends in the middle of a line: such an input from a pipe is refused, before
 * anything is compared or sent. A regular file (named or redirected: `< f`) is taken as it is.
 */

/**
 * Whether the input comes through a pipe (or a socket), where a writer that failed gives no sign
 * but a last line cut short: standard input (`-`) or a path that is one (`/dev/stdin` of a pipe,
 * `<(…)`, a FIFO). Standard input as an in-process stream (no descriptor) counts as one.
 */
export function fromPipe(spec: string, stdin: Readable): boolean {
  try {
    const fd = (stdin as { fd?: unknown }).fd;
    if (spec === '-' && typeof fd !== 'number') return true;
    const stat = spec === '-' ? fstatSync(fd as number) : statSync(spec);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return spec === '-';
  }
}

/**
 * The input's last line when it has no line ending and holds more than `blank` matches (a line of
 * separators alone is no row; a YAML line of blanks is nothing): `tail` is the input's end.
 */
export function unendedLastLine(tail: Buffer, blank: RegExp): string | undefined {
  const last = tail.at(-1);
  if (last === undefined || last === 0x0a || last === 0x0d) return undefined;
  const text = tail.toString('latin1');
  const line = text.slice(Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r')) + 1);
  return blank.test(line) ? undefined : line;
}

/**
 * The words of the refusal, after `FILE:LINE: `: `path` is the path given (`-`: standard input),
 * `what` what a line is (`row`, `line`).
 */
export function cutShortWords(path: string, what: 'row' | 'line'): string {
  const input = path === '-' ? 'standard input' : `the pipe ${path}`;
  return `${input} ends in this ${what}, with no line ending after it: was what writes it cut short? A ${what} cut short can name another user or role; if the input is whole, end it with a newline (\`(your-command; echo) | svc …\`) or give it as a file`;
}
