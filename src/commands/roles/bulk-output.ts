import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { someNames } from '../../output/format.js';
import type { Column } from '../../output/output.js';
import { keysStop, shortening } from './held.js';
import type { BulkKind } from './rows.js';

/** How the rows of a bulk grant or revoke file are shown: words, columns, notes and warnings. */

/** One output line per row: what happened (or, in a dry run, what would). */
export interface RowOutput {
  line: number;
  status?: string;
  plan?: string;
  user: string;
  role: string;
  role_id: string;
  [detail: string]: unknown;
}

export const WORDS = {
  assign: { act: 'grant', doing: 'granting', done: 'granted' },
  revoke: { act: 'revoke', doing: 'revoking', done: 'revoked' },
};

export function columns(kind: BulkKind, dryRun: boolean): Array<Column<RowOutput>> {
  const time =
    kind === 'assign'
      ? {
          header: 'expires',
          value: (r: RowOutput) => r.expires_at ?? (r.error ? '' : 'never'),
          // A time: relative and whole on a terminal (never `2026-11-2…`), RFC 3339 in a pipe.
          kind: 'time' as const,
        }
      : { header: 'revoked', value: (r: RowOutput) => r.revoked_at, kind: 'time' as const };
  return [
    { header: 'line', value: (r) => r.line },
    { header: dryRun ? 'plan' : 'status', value: (r) => (dryRun ? r.plan : r.status), kind: 'status' },
    { header: 'user', value: (r) => r.user, kind: 'id' },
    { header: 'role', value: (r) => r.role, kind: 'name' },
    time,
    {
      // A revocation's own audit id exists only once it is made: a dry run shows the grant's,
      // named so (its JSON says `audit_trail_id`, the real run `revocation_audit_trail_id`).
      header: kind === 'revoke' && dryRun ? 'grant audit id' : 'audit trail id',
      value: (r) =>
        kind === 'assign' ? r.audit_trail_id : (r.revocation_audit_trail_id ?? r.audit_trail_id),
      kind: 'id',
    },
    {
      header: 'detail',
      value: (r) => {
        const error = r.error as { message?: string; hint?: string } | undefined;
        if (error?.message) return error.hint ? `${error.message}; ${error.hint}` : error.message;
        if (r.reason === 'journal')
          return r.reason_then ? `${r.reason_then} in an earlier run` : 'done in an earlier run';
        return r.note ? (r.reason ? `${r.reason}: ${r.note}` : r.note) : r.reason;
      },
      kind: 'detail',
    },
  ];
}

/**
 * A row an earlier run of the file finished (BulkVerb.journaled), as that run's: reason `journal`,
 * and what it found then (`already_assigned`, `not_assigned`, `expiry_updated`) as `reason_then`,
 * never as this run's reason: the grant it found in place may be gone since, or one it found
 * missing held now. Nothing is read: the row is not done again.
 */
export function earlierRun(done: Record<string, unknown>): Record<string, unknown> {
  return { reason: 'journal', ...(typeof done.reason === 'string' ? { reason_then: done.reason } : {}) };
}

/** --extend sets a row's expiry, sooner as well as later: sooner is said on the row (its `note`). */
export function shorteningNote(result: Record<string, unknown>): string | undefined {
  if (result.reason !== 'expiry_updated') return undefined;
  return shortening(
    result.previous_expires_at as string | null | undefined,
    result.expires_at as string | null,
  );
}

/** One warning for the rows whose grant --extend shortened (or, in a dry run, would). */
export function sayShortened(ctx: Context, lines: number[], dryRun: boolean): void {
  if (lines.length === 0) return;
  const sorted = [...lines].sort((a, b) => a - b);
  const named = someNames(sorted.map(String));
  const which = sorted.length === 1 ? `line ${named}` : `lines ${named}`;
  const verb = dryRun ? 'would shorten' : 'shortened';
  const what = sorted.length === 1 ? 'a grant' : 'grants';
  ctx.out.warn(`${which} ${verb} ${what} (--extend moves an expiry sooner as well as later)`);
}

/**
 * One warning for the rows granted with another expiry than the one asked for (`expiry_not_kept`:
 * a server that drops it, a just-in-time grant become standing), naming the lines and users.
 */
export function sayExpiryNotKept(ctx: Context, rows: Array<{ line: number; user: string }>): void {
  if (rows.length === 0) return;
  const lines = rows.map((r) => r.line).sort((a, b) => a - b);
  const users = [...new Set([...rows].sort((a, b) => a.line - b.line).map((r) => r.user))];
  const which = `${lines.length === 1 ? 'line' : 'lines'} ${someNames(lines.map(String))} (${someNames(users)})`;
  ctx.out.warn(
    `${which}: the platform did not keep the expiry asked for (see each row's expires_at); check with: ${svcCommand(ctx.settings(), 'roles assignments USER')}`,
  );
}

/**
 * One warning for the rows whose --extend gave a permanent grant an end that may stop the user's
 * API keys (their `api_keys_may_stop`), naming the lines and users: the single grant's warning.
 */
export function sayKeysMayStop(
  ctx: Context,
  rows: Array<{ line: number; user: string }>,
  dryRun: boolean,
): void {
  if (rows.length === 0) return;
  const lines = rows.map((r) => r.line).sort((a, b) => a - b);
  const users = [...new Set([...rows].sort((a, b) => a.line - b.line).map((r) => r.user))];
  const which = `${lines.length === 1 ? 'line' : 'lines'} ${someNames(lines.map(String))} (${someNames(users)})`;
  const verb = dryRun ? 'would give' : 'gave';
  const what = lines.length === 1 ? 'a permanent grant' : 'permanent grants';
  const who = users.length === 1 ? users[0] : 'these users';
  ctx.out.warn(`${which} ${verb} ${what} an end, which may stop API keys: ${keysStop(who)}`);
}
