// How a bulk run ends (src/bulk/finish.ts), called directly: a verb's words, a run's counts and a
// journal that records whether it was removed, and the error as the user sees it (message, hint,
// exit code) with stderr. Shared by test/unit/bulk-finish*.test.ts.
import { finishDryRun } from '../../src/bulk/dry-run-end.js';
import { finishRun, type RunEnd } from '../../src/bulk/finish.js';
import type { BulkSummary } from '../../src/bulk/summary.js';
import { exitCodeFor, type SvcError } from '../../src/errors.js';
import { testContext } from './context.js';

export interface EndVerb {
  words: { act: string; done: string };
  describe(row: never): string;
  retryHint?: string | (() => string);
  fixHint?: string;
  keepJournal?: () => boolean;
  madeThoughFailed?: () => string | undefined;
  unchecked?: () => string | undefined;
}

export const VERB: EndVerb = {
  words: { act: 'grant', done: 'granted' },
  describe: (row: never) => `line ${(row as { line: number }).line}: ${(row as { why: string }).why}`,
};

export function summary(extra: Partial<BulkSummary> = {}): BulkSummary {
  return {
    total: 1500,
    ok: 1500,
    failed: 0,
    skipped: 0,
    unknown: 0,
    unsettled: 0,
    refused: 0,
    blocked: 0,
    stopped: false,
    elapsedMs: 2345,
    ...extra,
  };
}

export function end(extra: Partial<RunEnd> = {}) {
  const removed: string[] = [];
  // Journal.remove(): undefined once removed (a reason when it could not be: journal-unremovable.test.ts).
  const journal = {
    path: '/state/j.ndjson',
    remove: (): string | undefined => {
      removed.push('removed');
      return undefined;
    },
    // Journal.markFinished: a journal kept for a run's failures takes its line (journal-full-end.test.ts: one that cannot).
    markFinished: (): void => {},
  };
  const run = {
    summary: summary(),
    total: undefined,
    failures: [],
    unknowns: [],
    journal,
    closed: false,
    single: undefined,
    ...extra,
  } as unknown as RunEnd;
  return { run, removed };
}

export interface Said {
  stderr: string;
  error: { message: string; hint: string | undefined; exit: number; code?: string | undefined } | undefined;
}

export interface EndOptions {
  json?: boolean;
  ndjson?: boolean;
  /** A failed write to stdout (ctx.out.stdoutFailure): `ENOSPC`. */
  stdoutFailure?: string;
  /** Also return the error's code. */
  code?: boolean;
}

function said(
  options: EndOptions,
  act: (ctx: ReturnType<typeof testContext>['ctx']) => void,
): Said & { thrown: unknown } {
  const globals = options.json ? { json: true } : options.ndjson ? { ndjson: true } : undefined;
  const t = testContext(globals ? { globals } : {});
  if (options.stdoutFailure !== undefined)
    Object.defineProperty(t.ctx.out, 'stdoutFailure', { value: options.stdoutFailure });
  let thrown: unknown;
  try {
    act(t.ctx);
  } catch (e) {
    thrown = e;
  }
  const error = thrown as SvcError | undefined;
  return {
    stderr: t.stderr(),
    thrown,
    error: error && {
      message: error.message,
      hint: error.hint,
      exit: exitCodeFor(error),
      ...(options.code ? { code: error.code } : {}),
    },
  };
}

/** The error finishRun throws (or undefined), as the user sees it. */
export function finish(run: RunEnd, verb: EndVerb = VERB, options: EndOptions | boolean = {}): Said {
  const opts = typeof options === 'boolean' ? { json: options } : options;
  const { stderr, error } = said(opts, (ctx) => finishRun(ctx, verb, run));
  return { stderr, error };
}

/** The error finishDryRun throws (or undefined), as the user sees it; `thrown` is the error itself. */
export function dry(
  s: BulkSummary,
  failures: unknown[] = [],
  more: {
    verb?: EndVerb;
    single?: unknown;
    end?: { total?: number | undefined; closed?: boolean; unknowns?: unknown[] };
  } & EndOptions = {},
): Said & { thrown: unknown } {
  return said(more, (ctx) => finishDryRun(ctx, more.verb ?? VERB, s, failures, more.single, more.end));
}
