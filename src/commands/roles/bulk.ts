import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RoleAssignment } from '../../api/schemas/roles.js';
import { isoSeconds } from '../../api/time.js';
import { finishBulk } from '../../bulk/finish.js';
import { withCompactHeap } from '../../bulk/heap.js';
import { defaultJournalPath, Journal } from '../../bulk/journal.js';
import { readRecords } from '../../bulk/readers.js';
import { type BulkItem, runBulk } from '../../bulk/runner.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { ApiError } from '../../http/errors.js';
import { deriveIdempotencyKey } from '../../http/idempotency.js';
import { path } from '../../http/path.js';
import { createProgress } from '../../output/progress.js';
import { readInputBytes } from '../../system/input.js';
import { parseBulkFlags } from '../bulk-flags.js';
import { confirmDestructive } from '../kit.js';
import { describeExpiry } from './expiry.js';
import { dryRun } from './plan.js';
import { columns, present, resultWriter, VERB } from './results.js';
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

/** --concurrency, --dry-run and --journal: only with --file. */
export function parseFileBulkFlags(
  flags: Record<string, unknown>,
): Omit<BulkFileOptions, 'file' | 'defaults'> {
  const fileOnly = (['concurrency', 'dryRun', 'journal'] as const).filter((f) => flags[f] !== undefined);
  if (flags.file === undefined && fileOnly.length > 0) {
    const flag = { concurrency: '--concurrency', dryRun: '--dry-run', journal: '--journal' }[fileOnly[0]!];
    throw new UsageError(`${flag} only works with --file`);
  }
  return parseBulkFlags(flags);
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
  _api: ApiClient,
  kind: BulkKind,
  options: BulkFileOptions,
): Promise<Prepared> {
  const tenant = requireTenant(ctx);
  const bytes = await readInputBytes(options.file, ctx.io.stdin, '--file');
  const label = options.file === '-' ? 'stdin' : options.file;
  const input = readRecords(bytes, options.file === '-' ? '' : options.file);
  const roles = await listRoles(await ctx.platform());

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
