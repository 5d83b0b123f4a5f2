import { describeError, exitCodeFor, SvcError } from '../errors.js';
import { ApiError, answerOf, doubtAfterLostAnswer, refusalAfterLostAnswer } from '../http/errors.js';
import { redactDeep, redactText } from '../http/redact.js';
import { systemReason } from '../system/system-errors.js';
import { type FieldFlags, messageInFlags } from './field-flags.js';
import { cutLongRuns } from './format.js';
import { escapeForTerminal, escapeJsonForTerminal } from './sanitize.js';

export interface ErrorReport {
  code: string;
  message: string;
  exit_code: number;
  hint?: string;
  status?: number;
  request_id?: string;
  details?: unknown;
  /**
   * `unknown`: a change whose answers were all lost or 5xx, or that the server accepted (2xx) in an
   * answer svc cannot read: the platform may have made it (SvcError.outcome).
   */
  outcome?: string;
  /**
   * What became of an earlier attempt whose answer was lost (`the connection dropped`, `HTTP 503`),
   * when this error is the platform's answer to its retry (or a verb's reading of it): that attempt
   * may have acted (refusalAfterLostAnswer, review24f M1).
   */
  lost_answer?: string;
  /**
   * The server's word in its error's code field when it is no code (`2026-01-01`), or the `error`
   * of an authorization redirect: `code` is then svc's.
   */
  server_code?: string;
}

export function errorReport(error: unknown): ErrorReport {
  const exit = exitCodeFor(error);
  if (!(error instanceof SvcError)) {
    return (
      systemErrorReport(error, exit) ?? { code: 'unexpected', message: describeError(error), exit_code: exit }
    );
  }
  // A refusal to the retry of an attempt whose answer was lost says that attempt may have acted.
  const message = refusalAfterLostAnswer(error) ?? error.message;
  const report: ErrorReport = { code: error.code ?? error.category, message, exit_code: exit };
  if (error.hint) report.hint = error.hint;
  const answer = answerOf(error);
  if (answer) {
    report.status = answer.status;
    if (answer.requestId) report.request_id = answer.requestId;
  } else if (acceptedStatus(error) !== undefined) report.status = acceptedStatus(error);
  if (error.details !== undefined) report.details = error.details;
  if (error.outcome !== undefined) report.outcome = error.outcome;
  // An ApiError's only while it leaves the lost attempt in doubt (not that attempt's stored answer).
  const { lostAnswer } =
    error instanceof ApiError
      ? { lostAnswer: doubtAfterLostAnswer(error) }
      : (error as { lostAnswer?: unknown });
  if (typeof lostAnswer === 'string') report.lost_answer = lostAnswer;
  // An ApiError's word that is no code, or a refused authorization's `error` (AuthorizationRefusedError).
  const { serverCode } = error as { serverCode?: unknown };
  if (typeof serverCode === 'string') report.server_code = serverCode;
  return report;
}

/**
 * The 2xx a change was accepted with in an answer svc cannot read (AcceptedUnreadError's `status`),
 * which --json carries as a bulk row's error does (`"status": 201, "outcome": "unknown"`); the text
 * line's hint says it in words (`the server answered 201`).
 */
function acceptedStatus(error: SvcError): number | undefined {
  const { status } = error as { status?: unknown };
  return error.outcome === 'unknown' && typeof status === 'number' ? status : undefined;
}

/** What to do about a system error no command worded, by its code. */
const SYSTEM_HINTS: Record<string, string> = {
  ENOSPC: 'make room on that disk, then run the command again',
  EDQUOT: 'your disk quota is used up: make room, then run the command again',
  EROFS:
    'that disk is read-only: point the directory svc uses there (TMPDIR, SVC_STATE_DIR, SVC_CONFIG_DIR) at a writable one',
  EACCES: 'check the permissions of that path',
  EPERM: 'check the permissions of that path',
};

/**
 * A system error (ENOSPC, EMFILE, EROFS: a full disk, too many open files, a read-only one) that
 * reached the top without a command's own words: the machine's, not a bug in svc (attack21 F3: a
 * bulk run's cleanup out of descriptors printed "this is a bug in svc"). Said with the call and
 * the path it failed on, exit 1; undefined for anything else.
 */
function systemErrorReport(error: unknown, exit: number): ErrorReport | undefined {
  const { code, syscall, path } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !/^E[A-Z0-9]+$/.test(code) || typeof syscall !== 'string') return undefined;
  const hint = SYSTEM_HINTS[code];
  return {
    code: 'system_error',
    message: `the system refused ${syscall}${typeof path === 'string' ? ` of ${path}` : ''}: ${systemReason(error)}`,
    exit_code: exit,
    ...(hint ? { hint } : {}),
  };
}

/** Details shown on the error's line; --json carries them all. */
const SHOWN_DETAILS = 5;

/**
 * An API's field-level details, on the error's one line: `[name: required; /a: too long]`. A
 * detail that only repeats the message is left out.
 */
function detailText(message: string, details: unknown): string {
  if (!Array.isArray(details)) return '';
  const all = details.flatMap((d) => {
    if (d && typeof d === 'object') {
      const { field, message: text, path } = d as Record<string, unknown>;
      if (typeof text === 'string' && message.includes(text)) return [];
      const where = typeof field === 'string' ? field : typeof path === 'string' ? path : undefined;
      return [`${where ? `${where}: ` : ''}${typeof text === 'string' ? text : JSON.stringify(d)}`];
    }
    return [String(d)];
  });
  if (all.length === 0) return '';
  const items = all.slice(0, SHOWN_DETAILS);
  const more = all.length - items.length;
  if (more > 0) items.push(`and ${more} more (--json shows them all)`);
  return ` [${items.join('; ')}]`;
}

/**
 * The text svc prints for a failed command, on one line: `error: <problem>; <fix>`, the API's
 * field-level details in brackets after the problem, and its status, code and request id in
 * parentheses.
 * With --json the same facts as one JSON object.
 */
export function renderError(
  error: unknown,
  options: {
    json: boolean;
    debug: boolean;
    secrets?: Iterable<string>;
    /** What the words probably meant (`did you mean …?`): put before the error's own hint. */
    suggestion?: string;
    /** The verb's request fields and their flags: a 400 naming a field names the flag (field-flags.ts). */
    fields?: FieldFlags | undefined;
  },
): string {
  // A server may echo a credential in its error (a header, a field): scrubbed by value and shape.
  const secrets = [...(options.secrets ?? [])];
  const said = errorReport(error);
  const inFlags = messageInFlags(error, options.fields);
  if (inFlags !== undefined) said.message = said.message.replace((error as Error).message, inFlags);
  const report = redactDeep(said, secrets) as ErrorReport;
  if (options.suggestion)
    report.hint = report.hint ? `${options.suggestion}; ${report.hint}` : options.suggestion;
  // An over-long id or path the words repeat, cut (attack24c F4), in the JSON error as on the line.
  report.message = cutLongRuns(report.message);
  if (report.hint) report.hint = cutLongRuns(report.hint);
  if (options.json) return `${escapeJsonForTerminal(JSON.stringify({ error: report }))}\n`;
  const facts: string[] = [];
  const answer = answerOf(error);
  if (answer) facts.push(`HTTP ${report.status}`);
  // The API's own error code; not svc's category, which would read as one (`HTTP 400, usage`).
  const apiCode = error instanceof SvcError ? error.code : undefined;
  if (answer && apiCode) facts.push(report.code);
  if (report.request_id) facts.push(`request ${report.request_id}`);
  // An API's details go on the line; svc's own (a file's problems) were printed by the command.
  const details = answer ? detailText(report.message, report.details) : '';
  let line = `error: ${report.message}${details}`;
  if (facts.length > 0) line += ` (${facts.join(', ')})`;
  if (report.hint) line += `; ${report.hint}`;
  if (report.code === 'unexpected')
    line += '; this is a bug in svc, please report it (run with --debug for details)';
  const lines = [escapeForTerminal(line.replace(/[\r\n]+/g, ' '))];
  if (options.debug && error instanceof Error && error.stack && !(error instanceof SvcError)) {
    lines.push(escapeForTerminal(redactText(error.stack, secrets)));
  }
  return `${lines.join('\n')}\n`;
}
