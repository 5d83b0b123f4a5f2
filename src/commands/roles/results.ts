import type { BulkResult } from '../../bulk/runner.js';
import type { Context } from '../../context.js';
import type { Column } from '../../output/output.js';
import type { BulkKind, GrantRow, RevokeRow } from './rows.js';

/** One line of output per row: what happened (or, in a dry run, what would). */
export interface RowOutput {
  line: number;
  status?: string;
  plan?: string;
  user: string;
  role: string;
  role_id: string;
  [detail: string]: unknown;
}

export const VERB = {
  assign: { doing: 'granting', done: 'granted' },
  revoke: { doing: 'revoking', done: 'revoked' },
};

export function columns(kind: BulkKind, dryRun: boolean): Array<Column<RowOutput>> {
  const time =
    kind === 'assign'
      ? { header: 'expires', value: (r: RowOutput) => r.expires_at ?? (r.status === 'failed' ? '' : 'never') }
      : { header: 'revoked', value: (r: RowOutput) => r.revoked_at, kind: 'time' as const };
  return [
    { header: 'line', value: (r) => r.line },
    { header: dryRun ? 'plan' : 'status', value: (r) => (dryRun ? r.plan : r.status) },
    { header: 'user', value: (r) => r.user, kind: 'id' },
    { header: 'role', value: (r) => r.role },
    time,
    {
      header: 'audit trail id',
      value: (r) => (kind === 'assign' ? r.audit_trail_id : r.revocation_audit_trail_id),
      kind: 'id',
    },
    {
      header: 'detail',
      value: (r) => (r.error as { message?: string } | undefined)?.message ?? r.reason ?? r.detail,
    },
  ];
}

/**
 * Where results go: --ndjson and piped text stream them, a few kilobytes at a time (one write
 * per row costs more than the row's request); a terminal table and --json get them all at the
 * end, in line order.
 */
export function resultWriter(ctx: Context, table: Array<Column<RowOutput>>) {
  const mode = ctx.out.mode;
  const collected: RowOutput[] = [];
  let batch: RowOutput[] = [];
  let size = 0;
  let writing: Promise<void> = Promise.resolve();
  const flush = () => {
    if (batch.length === 0) return writing;
    const rows = batch;
    batch = [];
    size = 0;
    writing = writing.then(() =>
      mode === 'ndjson'
        ? ctx.out.write(rows.map((r) => `${JSON.stringify(r)}\n`).join(''))
        : ctx.out.list(rows, table).then(() => {}),
    );
    return writing;
  };
  // Someone watching the stream (| jq) sees results at least every quarter second.
  const timer =
    mode === 'ndjson' || mode === 'plain' ? setInterval(() => void flush().catch(() => {}), 250) : undefined;
  timer?.unref();
  return {
    add(row: RowOutput): Promise<void> | undefined {
      if (!timer) {
        collected.push(row);
        return undefined;
      }
      batch.push(row);
      size += 200;
      return size >= 16_384 ? flush() : undefined;
    },
    async end(): Promise<void> {
      if (timer) {
        clearInterval(timer);
        await flush();
      } else {
        await ctx.out.list(
          collected.sort((a, b) => a.line - b.line),
          table,
        );
      }
    },
  };
}

export function present(result: BulkResult, row: GrantRow | RevokeRow): RowOutput {
  const { key: _key, line, status, ...detail } = result;
  return {
    line: line ?? row.line,
    status,
    user: row.user,
    role: row.role.name,
    role_id: row.role.id,
    ...detail,
  };
}
