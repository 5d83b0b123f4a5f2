import { describeError, exitCodeFor, SvcError } from '../errors.js';
import { ApiError } from '../http/errors.js';
import { redactDeep, redactText } from '../http/redact.js';
import { escapeForTerminal, escapeJsonForTerminal } from './sanitize.js';

export interface ErrorReport {
  code: string;
  message: string;
  exit_code: number;
  hint?: string;
  status?: number;
  request_id?: string;
  details?: unknown;
}

export function errorReport(error: unknown): ErrorReport {
  const exit = exitCodeFor(error);
  if (!(error instanceof SvcError)) {
    return { code: 'unexpected', message: describeError(error), exit_code: exit };
  }
  const report: ErrorReport = { code: error.code ?? error.category, message: error.message, exit_code: exit };
  if (error.hint) report.hint = error.hint;
  if (error instanceof ApiError) {
    report.status = error.status;
    if (error.requestId) report.request_id = error.requestId;
    if (error.details !== undefined) report.details = error.details;
  }
  return report;
}

function detailLines(details: unknown): string[] {
  if (!Array.isArray(details)) return [];
  return details.slice(0, 20).map((d) => {
    if (d && typeof d === 'object') {
      const { field, message, path } = d as Record<string, unknown>;
      const where = typeof field === 'string' ? field : typeof path === 'string' ? path : undefined;
      const text = typeof message === 'string' ? message : JSON.stringify(d);
      return `  - ${where ? `${where}: ` : ''}${text}`;
    }
    return `  - ${String(d)}`;
  });
}

/**
 * The text svc prints for a failed command: `error: <problem>; <fix>` on one line, API details
 * (status, code, request id) in parentheses, and field-level validation details below it.
 * With --json the same facts as one JSON object.
 */
export function renderError(
  error: unknown,
  options: { json: boolean; debug: boolean; secrets?: Iterable<string> },
): string {
  // A server may echo a credential in its error (a header, a field): scrubbed by value and shape.
  const secrets = [...(options.secrets ?? [])];
  const report = redactDeep(errorReport(error), secrets) as ErrorReport;
  if (options.json) return `${escapeJsonForTerminal(JSON.stringify({ error: report }))}\n`;
  const facts: string[] = [];
  if (report.status !== undefined) facts.push(`HTTP ${report.status}`);
  // The API's own error code; not svc's category, which would read as one (`HTTP 400, usage`).
  const apiCode = error instanceof SvcError ? error.code : undefined;
  if (report.status !== undefined && apiCode) facts.push(report.code);
  if (report.request_id) facts.push(`request ${report.request_id}`);
  let line = `error: ${report.message}`;
  if (facts.length > 0) line += ` (${facts.join(', ')})`;
  if (report.hint) line += `; ${report.hint}`;
  if (report.code === 'unexpected')
    line += '; this is a bug in svc, please report it (run with --debug for details)';
  const lines = [line, ...detailLines(report.details)].map((l) =>
    escapeForTerminal(l.replace(/[\r\n]+/g, ' ')),
  );
  if (options.debug && error instanceof Error && error.stack && !(error instanceof SvcError)) {
    lines.push(escapeForTerminal(redactText(error.stack, secrets)));
  }
  return `${lines.join('\n')}\n`;
}
