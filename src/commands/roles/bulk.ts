import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RoleAssignment, RoleAssignmentList } from '../../api/schemas/roles.js';
import { finishBulk } from '../../bulk/finish.js';
import { withCompactHeap } from '../../bulk/heap.js';
import { defaultJournalPath, Journal } from '../../bulk/journal.js';
import { readRecords } from '../../bulk/readers.js';
import { type BulkItem, type BulkResult, runBulk } from '../../bulk/runner.js';
import type { Context } from '../../context.js';
import { InterruptedError, UsageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { ApiError } from '../../http/errors.js';
import { deriveIdempotencyKey } from '../../http/idempotency.js';
import { path } from '../../http/path.js';
import type { Column } from '../../output/output.js';
import { createProgress } from '../../output/progress.js';
import { readInputBytes } from '../../system/input.js';
import { confirmDestructive, intFlag } from '../kit.js';
import { describeExpiry, isoSeconds } from './expiry.js';
import {
  type BulkKind,
  COLUMN_LIST,
  type GrantRow,
  type RevokeRow,
  type RowDefaults,
  validateRows,
} from './rows.js';
import { existingAssignment, listRoles, requireTenant } from './shared.js';

export interface BulkFileOptions {
  file: string;
  concurrency: number;
  dryRun: boolean;
  journal: string | undefined;
  defaults: RowDefaults;
}

export const DEFAULT_CONCURRENCY = 8;

/** --concurrency, --dry-run and --journal: only with --file. */
export function parseBulkFlags(flags: Record<string, unknown>): Omit<BulkFileOptions, 'file' | 'defaults'> {
  const fileOnly = (['concurrency', 'dryRun', 'journal'] as const).filter((f) => flags[f] !== undefined);
  if (flags.file === undefined && fileOnly.length > 0) {
    const flag = { concurrency: '--concurrency', dryRun: '--dry-run', journal: '--journal' }[fileOnly[0]!];
    throw new UsageError(`${flag} only works with --file`);
  }
  const journal = flags.journal === undefined ? undefined : String(flags.journal).trim();
  if (journal === '') throw new UsageError('--journal must not be empty');
  return {
    concurrency: intFlag('--concurrency', flags.concurrency, 1, 64) ?? DEFAULT_CONCURRENCY,
    dryRun: flags.dryRun === true,
    journal,
  };
}

/** One line of output per row: what happened (or, in a dry run, what would). */
interface RowOutput {
  line: number;
  status?: string;
  plan?: string;
  user: string;
  role: string;
  role_id: string;
  [detail: string]: unknown;
}

const VERB = {
  assign: { doing: 'granting', done: 'granted' },
  revoke: { doing: 'revoking', done: 'revoked' },
};

function columns(kind: BulkKind, dryRun: boolean): Array<Column<RowOutput>> {
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

/** What identifies a run: a journal belongs to one file, server, tenant and set of defaults. */
function operationId(
  kind: BulkKind,
  baseUrl: string,
  tenant: string,
  bytes: Buffer,
  defaults: RowDefaults,
): string {
  const file = createHash('sha256').update(bytes).digest('hex');
  const flags = {
    expiry: defaults.expiry ? describeExpiry(defaults.expiry) : null,
    justification: defaults.justification ?? null,
  };
  return createHash('sha256')
    .update(JSON.stringify([`svc roles ${kind}`, baseUrl, tenant, file, flags]))
    .digest('hex');
}

/**
 * A row's idempotency key (and journal key): its content and the tenant. The expiry is the
 * absolute time, counted from the journal's anchor, so a resumed run sends identical requests.
 */
function rowKey(kind: BulkKind, tenant: string, row: GrantRow | RevokeRow): string {
  if (kind === 'revoke') return deriveIdempotencyKey('svc roles revoke', tenant, row.user, row.role.id);
  const grant = row as GrantRow;
  return deriveIdempotencyKey(
    'svc roles assign',
    tenant,
    row.user,
    row.role.id,
    grant.expiresAt ?? 'never',
    grant.justification,
  );
}

interface Prepared {
  label: string;
  items: Array<BulkItem<GrantRow | RevokeRow>>;
  operation: string;
  journalPath: string;
  /** The journal of an earlier, unfinished run of the same operation. */
  previous: Journal | undefined;
  anchorMs: number;
}

/**
 * Reads and validates the whole file; nothing is sent when a line is wrong. A separate step so
 * the file's bytes and parsed records are garbage before the run starts.
 */
async function prepare(
  ctx: Context,
  api: ApiClient,
  kind: BulkKind,
  options: BulkFileOptions,
): Promise<Prepared> {
  const tenant = requireTenant(ctx);
  const bytes = await readInputBytes(options.file, ctx.io.stdin, '--file');
  const label = options.file === '-' ? 'stdin' : options.file;
  const input = readRecords(bytes, options.file === '-' ? '' : options.file);
  const roles = await listRoles(api);

  const operation = operationId(kind, ctx.settings().values.base_url ?? '', tenant, bytes, options.defaults);
  const journalPath = options.journal ?? defaultJournalPath(ctx.env, `roles-${kind}`, operation);
  const previous = existsSync(journalPath) ? Journal.open(journalPath, operation) : undefined;
  const nowMs = ctx.clock.now();
  const started =
    typeof previous?.meta.started_at === 'string' ? Date.parse(previous.meta.started_at) : Number.NaN;
  const anchorMs = Number.isNaN(started) ? Math.floor(nowMs / 1000) * 1000 : started;

  const { rows, problems } = validateRows(input, {
    kind,
    roles,
    defaults: options.defaults,
    anchorMs,
    nowMs,
  });
  if (problems.length > 0) {
    for (const p of problems) ctx.out.info(`${label}:${p.line}: ${p.message}`);
    const lines = new Set(problems.map((p) => p.line)).size;
    throw new UsageError(
      `${lines} ${lines === 1 ? 'line' : 'lines'} of ${label} ${lines === 1 ? 'has' : 'have'} problems; nothing was sent`,
      {
        code: 'invalid_file',
        hint: `fix them and run the command again (columns: ${kind === 'assign' ? COLUMN_LIST : 'user, role'})`,
      },
    );
  }
  const items = rows.map((row) => ({ key: rowKey(kind, tenant, row), line: row.line, data: row }));
  return { label, items, operation, journalPath, previous, anchorMs };
}

/** `svc roles assign --file` and `svc roles revoke --file`: validate everything, then plan or run. */
export function runBulkFile(ctx: Context, kind: BulkKind, options: BulkFileOptions): Promise<void> {
  return withCompactHeap(() => bulkFile(ctx, kind, options));
}

async function bulkFile(ctx: Context, kind: BulkKind, options: BulkFileOptions): Promise<void> {
  const api = await ctx.api();
  const { label, items, operation, journalPath, previous, anchorMs } = await prepare(ctx, api, kind, options);
  if (options.dryRun) return dryRun(ctx, api, kind, items, previous, options.concurrency);

  if (kind === 'revoke') {
    await confirmDestructive(
      ctx,
      `Revoke ${items.length.toLocaleString('en')} role assignment(s) listed in ${label}?`,
      `revoking the roles listed in ${label}`,
    );
  }
  const journal = Journal.open(journalPath, operation, { started_at: isoSeconds(anchorMs) });
  // Results carry their line; rows are found by it.
  const rowAt: Array<GrantRow | RevokeRow> = [];
  for (const item of items) rowAt[item.line!] = item.data;
  const table = columns(kind, false);
  const output = resultWriter(ctx, table);
  let replayed = 0;
  const summary = await runBulk({
    items,
    concurrency: options.concurrency,
    journal,
    interrupt: ctx.signal,
    progress: createProgress(
      ctx.io.stderr,
      ctx.io.stderrIsTTY && !ctx.out.isMachine,
      items.length,
      VERB[kind].doing,
    ),
    work:
      kind === 'assign'
        ? (item, signal) => grant(api, item, signal)
        : (item, signal) => revoke(api, item, signal),
    onResult: (result) => {
      if (result.replayed) replayed++;
      return output.add(present(result, rowAt[result.line!]!));
    },
  });
  await output.end();
  if (replayed > 0) {
    ctx.out.info(
      `${replayed.toLocaleString('en')} of these had been granted before by a request with the same idempotency key; the platform answered with that grant`,
    );
  }
  finishBulk(ctx, summary, journal, VERB[kind].done);
}

/**
 * Where results go: --ndjson and piped text stream them, a few kilobytes at a time (one write
 * per row costs more than the row's request); a terminal table and --json get them all at the
 * end, in line order.
 */
function resultWriter(ctx: Context, table: Array<Column<RowOutput>>) {
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

function present(result: BulkResult, row: GrantRow | RevokeRow): RowOutput {
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

const isInProgress = (error: unknown) =>
  error instanceof ApiError && error.status === 409 && error.code === 'idempotency_request_in_progress';

async function grant(
  api: ApiClient,
  item: BulkItem<GrantRow | RevokeRow>,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const row = item.data as GrantRow;
  const body = {
    role_id: row.role.id,
    ...(row.expiresAt === null ? {} : { expires_at: row.expiresAt }),
    justification: row.justification,
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const { data, headers } = await api.post<RoleAssignment>(path`/v1/users/${row.user}/roles`, body, {
        idempotencyKey: item.key,
        signal,
      });
      // A replay is the stored answer to this row's earlier request (a resumed run): granted once.
      const replayed = headers['idempotent-replayed'] === 'true' ? { replayed: true } : {};
      return { expires_at: data.expires_at, audit_trail_id: data.audit_trail_id, ...replayed };
    } catch (error) {
      const existing = existingAssignment(error);
      if (existing) {
        return {
          status: 'skipped',
          reason: 'already_assigned',
          expires_at: existing.expires_at ?? null,
          audit_trail_id: existing.audit_trail_id,
        };
      }
      // The same row is still running on the server (a killed run's request): wait for it.
      if (isInProgress(error) && attempt < 6) {
        await sleep(100 * attempt, undefined, { signal });
        continue;
      }
      throw error;
    }
  }
}

async function revoke(
  api: ApiClient,
  item: BulkItem<GrantRow | RevokeRow>,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const row = item.data;
  try {
    const { data } = await api.delete<RoleAssignment>(path`/v1/users/${row.user}/roles/${row.role.id}`, {
      signal,
    });
    return { revoked_at: data.revoked_at, revocation_audit_trail_id: data.revocation_audit_trail_id };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && error.code === 'assignment_not_found') {
      return { status: 'skipped', reason: 'not_assigned' };
    }
    throw error;
  }
}

/** --dry-run: each user's roles are read (nothing is changed) to tell what would happen to each row. */
async function dryRun(
  ctx: Context,
  api: ApiClient,
  kind: BulkKind,
  items: Array<BulkItem<GrantRow | RevokeRow>>,
  journal: Journal | undefined,
  concurrency: number,
): Promise<void> {
  const users = [...new Set(items.filter((i) => !journal?.has(i.key)).map((i) => i.data.user))];
  // Only what the plan needs: each user's active assignments of the roles the file names.
  const named = new Set(items.map((i) => i.data.role.id));
  type Held = Pick<RoleAssignment, 'role_id' | 'expires_at' | 'audit_trail_id'>;
  const held = new Map<string, Held[] | 'missing'>();
  let fatal: unknown;
  const lookup = await runBulk({
    items: users.map((user) => ({ key: user, data: user })),
    concurrency,
    interrupt: ctx.signal,
    work: async (item, signal) => {
      try {
        const { data } = await api.get<RoleAssignmentList>(path`/v1/users/${item.data}/roles`, undefined, {
          signal,
        });
        held.set(
          item.data,
          data.items
            .filter((a) => a.status === 'active' && named.has(a.role_id))
            .map(({ role_id, expires_at, audit_trail_id }) => ({ role_id, expires_at, audit_trail_id })),
        );
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) held.set(item.data, 'missing');
        else {
          fatal ??= error;
          throw error;
        }
      }
      return {};
    },
  });
  if (lookup.interrupted) throw new InterruptedError('interrupted; nothing was changed');
  if (fatal) throw fatal;

  const counts = { act: 0, in_place: 0, fail: 0 };
  const act = kind === 'assign' ? 'grant' : 'revoke';
  const plan = items.map((item): RowOutput => {
    const row = item.data;
    const base = { line: row.line, user: row.user, role: row.role.name, role_id: row.role.id };
    const done = journal?.get(item.key);
    if (done) {
      counts.in_place++;
      return {
        ...base,
        plan: 'in_place',
        reason: 'done by an earlier run (journal)',
        ...done.detail,
        status: undefined,
      };
    }
    const assignments = held.get(row.user);
    if (assignments === 'missing' || assignments === undefined) {
      counts.fail++;
      return { ...base, plan: 'fail', detail: `user ${row.user} not found` };
    }
    const active = assignments.find((a) => a.role_id === row.role.id);
    if (kind === 'assign') {
      if (active) {
        counts.in_place++;
        return {
          ...base,
          plan: 'in_place',
          expires_at: active.expires_at,
          audit_trail_id: active.audit_trail_id,
          detail: 'already assigned',
        };
      }
      counts.act++;
      return { ...base, plan: act, expires_at: (row as GrantRow).expiresAt };
    }
    if (!active) {
      counts.in_place++;
      return { ...base, plan: 'in_place', detail: 'not assigned' };
    }
    counts.act++;
    return { ...base, plan: act, audit_trail_id: active.audit_trail_id };
  });
  const jsonPlan = plan.map(({ status: _s, ...rest }) => rest);
  await ctx.out.list(jsonPlan, columns(kind, true));
  const n = (count: number) => count.toLocaleString('en');
  ctx.out.info(
    `dry run: ${n(counts.act)} would be ${VERB[kind].done}, ${n(counts.in_place)} already in place, ${n(counts.fail)} would fail; nothing was changed`,
  );
}
