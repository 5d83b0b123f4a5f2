import type { Context } from '../context.js';
import { sym } from './symbols.js';

/** How many problems of an input are printed (or carried as details) before the rest are counted. */
export const PROBLEMS_SHOWN = 1000;

/** One problem of an input file, as `--json`/`--ndjson` carry it in the error's `details`. */
export interface FileProblem {
  file: string;
  line: number | null;
  message: string;
}

/**
 * The problems of one input as they are found. On a terminal or a pipe each is printed at once
 * as `FILE:LINE: message`; with --json/--ndjson nothing is printed (stderr is the error object
 * alone) and they are kept for its `details`. Either way the caller decides how many it shows.
 */
export class ProblemReport {
  readonly details: FileProblem[] = [];

  constructor(
    private readonly ctx: Context,
    private readonly file: string,
  ) {}

  add(line: number | undefined, message: string): void {
    this.details.push({ file: this.file, line: line ?? null, message });
    if (!this.ctx.out.isMachine) {
      this.ctx.out.info(`${this.file}${line === undefined ? '' : `:${line}`}: ${message}`);
    }
  }

  /** What was left out (`… and 234 more problems`), in text modes; the error's message has the count. */
  more(count: number, what: string): void {
    if (count > 0 && !this.ctx.out.isMachine) {
      this.ctx.out.info(`${sym.ellipsis} and ${count.toLocaleString('en')} more ${what}`);
    }
  }
}

/**
 * The reasons an error stands on, one line each (what drifted, what is refused): on a terminal or
 * a pipe printed before it, with --json/--ndjson only in its `details` (stderr is the error object
 * alone). `where` says which, for the error's message.
 */
export function reasonLines(
  ctx: Context,
  lines: readonly string[],
): { details: Array<{ message: string }>; where: string } {
  if (!ctx.out.isMachine) for (const line of lines) ctx.out.info(line);
  return {
    details: lines.map((message) => ({ message })),
    where: ctx.out.isMachine ? 'each in details' : 'each on a line above',
  };
}
