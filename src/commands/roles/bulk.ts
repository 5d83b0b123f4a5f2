import { type Anchor, describeExpiry } from '../../api/expiry.js';
import type { Role, RoleAssignment } from '../../api/schemas/roles.js';
import { checkInput } from '../../bulk/check.js';
import { snapshotInput } from '../../bulk/input.js';
import type { Journal, RunIdentity } from '../../bulk/journal.js';
import { type BulkVerb, runBulkOperation } from '../../bulk/operation.js';
import type { BulkItem, Worker } from '../../bulk/runner.js';
import type { Context } from '../../context.js';
import { platformTime } from '../../platform/clock.js';
import { AssignmentExistsError, AssignmentNotFoundError } from '../../platform/errors.js';
import type { Platform } from '../../platform/index.js';
import { type BulkFlags, parseBulkFlags } from '../bulk-flags.js';
import { confirmDestructive, tenantLabel } from '../kit.js';
import { refusePastExpiresAt, runAnchor } from '../platform-clock.js';
import { columns, type RowOutput, sayShortened, shorteningNote, WORDS } from './bulk-output.js';
import { heldAfterSelfRefusal } from './held.js';
import { CallerForecast } from './holds.js';
import { RowsForecast } from './last-admin.js';
import { COLUMN_LIST } from './row-header.js';
import {
  type BulkKind,
  fileRows,
  type GrantRow,
  type RevokeRow,
  type RowDefaults,
  type RowRules,
} from './rows.js';
import { namedNotFound, requireTenant } from './shared.js';

/** `svc roles assign --file` and `svc roles revoke --file`. */
export interface BulkFileOptions extends BulkFlags {
  file: string;
  defaults: RowDefaults;
  /** assign: a role already held gets its expiry moved to the row's (PATCH) instead of being skipped. */
  extend?: boolean;
}

type Row = GrantRow | RevokeRow;

/** --concurrency, --dry-run and --journal: only with --file. */
export const parseFileBulkFlags = (flags: Record<string, unknown>): BulkFlags =>
  parseBulkFlags(flags, 'file');

/** Validate the whole file, then plan (--dry-run) or run every row through the bulk operation. */
export async function runBulkFile(ctx: Context, kind: BulkKind, options: BulkFileOptions): Promise<void> {
  const tenant = requireTenant(ctx);
  const platform = await ctx.platform();
  const input = await snapshotInput(options.file, ctx.io.stdin, '--file');
  try {
    const roles: Role[] = [];
    for await (const role of platform.roles.listAll({ limit: 200 })) roles.push(role);
    // --expires-at for rows without an expiry: judged at the platform's time, as the column is.
    await refusePastExpiresAt(ctx, platform, options.defaults.expiry);
    // One anchor for the run, on the platform's clock (learned from the role listing's Date
    // header), kept in the journal: a resumed run and a dry run count durations the same way.
    let anchor: Anchor | undefined;
    const rulesAt = (run: RunIdentity, journal: Journal): RowRules => {
      anchor ??= runAnchor(ctx, platform, run.startedAtMs, 'durations (expires_in, --expires-in) were', (c) =>
        journal.anchor(c),
      );
      const used = anchor;
      return {
        kind,
        roles,
        defaults: options.defaults,
        anchorMs: used.ms,
        onDuration: () => used.use(),
        nowMs: platformTime(platform, ctx.clock.now()),
        // A row's key in the run is its line (items below).
        journal: { path: journal.path, done: (line) => journal.has(String(line)) },
      };
    };
    const { expiry, justification } = options.defaults;
    // A dry run predicts the platform's last-tenant-admin rule over the rows, in file order, and
    // what the caller may hand out (CallerForecast).
    const caller = new CallerForecast(ctx, platform, tenant, roles);
    const forecast = options.dryRun
      ? new RowsForecast(ctx, platform, kind, options.extend === true, caller)
      : undefined;
    // The lines whose expiry moved sooner (--extend), said after the summary.
    const shortened: number[] = [];
    const verb: BulkVerb<Row, RowOutput> = {
      kind: `roles-${kind}`,
      identity: [
        tenant,
        input.sha256,
        expiry ? describeExpiry(expiry) : null,
        justification ?? null,
        ...(options.extend ? ['extend'] : []),
      ],
      journal: options.journal,
      dryRun: options.dryRun,
      concurrency: options.concurrency,
      // With --extend an ok row was granted, or had its expiry moved: the summary says both.
      words:
        options.extend && kind === 'assign' ? { ...WORDS.assign, done: 'granted or extended' } : WORDS[kind],
      prepare: (run, journal) =>
        checkInput(
          ctx,
          input.label,
          fileRows(input.path, input.name, rulesAt(run, journal), { duplicates: true }),
          `fix them and run the command again (columns: ${kind === 'assign' ? COLUMN_LIST : 'user, role'})`,
        ),
      items: (run, journal) => items(input.path, input.name, rulesAt(run, journal), forecast),
      work: kind === 'assign' ? grant(platform, options.extend === true) : revoke(platform),
      plan: plan(platform, kind, options.extend === true, caller, forecast),
      present: ({ key: _key, line: _line, status, plan: planned, ...result }, { data }) => {
        const note = shorteningNote(result);
        if (note) shortened.push(data.line);
        return {
          line: data.line,
          // A held role whose expiry moves is planned as `extend`, whatever the verb's own word.
          ...(planned === undefined
            ? { status }
            : { plan: result.reason === 'expiry_updated' ? 'extend' : planned }),
          user: data.user,
          role: data.role.name,
          role_id: data.role.id,
          ...result,
          ...(note ? { note } : {}),
        };
      },
      fixHint: `fix the file and run it again: a new run, rows already ${
        kind === 'revoke'
          ? 'revoked are skipped'
          : options.extend
            ? 'held get the expiry it gives'
            : 'granted are skipped'
      }`,
      columns: (dryRun) => columns(kind, dryRun),
      describe: (row) => `line ${row.line}: ${(row.error as { message: string } | undefined)?.message}`,
      ...(kind === 'revoke'
        ? {
            confirm: (count: number | undefined) =>
              confirmDestructive(
                ctx,
                async () =>
                  `Revoke the ${count?.toLocaleString('en')} role assignment(s) listed in ${input.label}, in ${await tenantLabel(ctx)}?`,
                `revoking the roles listed in ${input.label}`,
              ),
          }
        : {}),
    };
    try {
      await runBulkOperation(ctx, verb);
    } finally {
      sayShortened(ctx, shortened, options.dryRun);
    }
  } finally {
    input.remove();
  }
}

/** The rows of the checked file, read again as a stream; a row's line is its key in the run. */
async function* items(
  path: string,
  name: string,
  rules: RowRules,
  forecast?: RowsForecast,
): AsyncGenerator<BulkItem<Row>> {
  for await (const event of fileRows(path, name, rules, { duplicates: false })) {
    if (!('row' in event)) throw new Error(`line ${event.line} changed after it was checked`);
    await forecast?.observe(event.row);
    yield { key: String(event.line), line: event.line, data: event.row };
  }
}

const grant =
  (platform: Platform, extend: boolean): Worker<Row> =>
  async ({ data }, { signal, idempotencyKey }) => {
    const row = data as GrantRow;
    const body = {
      role_id: row.role.id,
      ...(row.expiresAt === null ? {} : { expires_at: row.expiresAt }),
      justification: row.justification,
    };
    try {
      const { data: made, response } = await platform.roles
        .assign(row.user, body, { signal, idempotencyKey })
        .withResponse();
      return {
        expires_at: made.expires_at,
        audit_trail_id: made.audit_trail_id,
        ...(response.replayed ? { replayed: true } : {}),
      };
    } catch (error) {
      // --extend of a role the caller holds is a change of its own expiry: asked as such.
      const self = extend
        ? await heldAfterSelfRefusal(platform, error, row.user, row.role.id, signal)
        : undefined;
      // The platform refuses a second active assignment: the row is in place already.
      if (!self && !(error instanceof AssignmentExistsError))
        throw await namedNotFound(platform, error, row.user);
      const held = self ?? (error as AssignmentExistsError).assignment;
      if (extend && (self || held?.expires_at !== row.expiresAt)) {
        // An absolute expiry: sending it again (a resumed run) changes nothing more.
        const moved = await platform.roles.updateAssignment(
          row.user,
          row.role.id,
          { expires_at: row.expiresAt, justification: row.justification },
          { signal },
        );
        return {
          reason: 'expiry_updated',
          expires_at: moved.expires_at,
          previous_expires_at: held?.expires_at ?? null,
          audit_trail_id: moved.update_audit_trail_id ?? moved.audit_trail_id,
        };
      }
      return {
        status: 'skipped',
        reason: 'already_assigned',
        expires_at: held?.expires_at ?? null,
        audit_trail_id: held?.audit_trail_id,
      };
    }
  };

const revoke =
  (platform: Platform): Worker<Row> =>
  async ({ data: row }, { signal, idempotencyKey }) => {
    try {
      // The item's key: a resumed run's retry is answered from the platform's record, not with 404.
      const { data: done, response } = await platform.roles
        .revoke(row.user, row.role.id, { signal, idempotencyKey })
        .withResponse();
      return {
        revoked_at: done.revoked_at,
        revocation_audit_trail_id: done.revocation_audit_trail_id,
        ...(response.replayed ? { replayed: true } : {}),
      };
    } catch (error) {
      if (error instanceof AssignmentNotFoundError) return { status: 'skipped', reason: 'not_assigned' };
      // A user or role that does not exist: which one, with where to look (as the single verb says).
      throw await namedNotFound(platform, error, row.user);
    }
  };

/**
 * --dry-run: the user's roles are read (nothing is changed) to tell what would happen to the row.
 * What the platform would refuse is planned as a failure with its code, in the order it checks:
 * a grant to the caller themself (403 self_assignment, whatever they hold); a role the caller may
 * not hand out, or not for that long (`caller`: 403 insufficient_permission, also before a held
 * role is reported); a revocation that would leave the tenant without an administrator
 * (`forecast`: 409 last_tenant_admin, played over the rows in file order).
 */
const plan =
  (
    platform: Platform,
    kind: BulkKind,
    extend: boolean,
    caller: CallerForecast,
    forecast?: RowsForecast,
  ): Worker<Row> =>
  async ({ data: row }, { signal }) => {
    // A grant the caller may not make fails before the platform looks at who holds what.
    const refusedGrant = kind === 'assign' ? await caller.refusal(kind, row) : undefined;
    const selfExpiry = extend && kind === 'assign' ? await caller.selfExpiry(row as GrantRow) : undefined;
    if (refusedGrant && !selfExpiry) return { status: 'failed', error: refusedGrant };
    const held = (await platform.roles.listAssignments(row.user, {}, { signal })).items;
    const active: RoleAssignment | undefined = held.find(
      (a) => a.status === 'active' && a.role_id === row.role.id,
    );
    // --extend of a role the caller holds asks to move their own expiry (the real run asks so).
    if (refusedGrant) return { status: 'failed', error: active && selfExpiry ? selfExpiry : refusedGrant };
    if (kind === 'assign') {
      const expiresAt = (row as GrantRow).expiresAt;
      if (active && extend && active.expires_at !== expiresAt) {
        const refused = forecast?.refusal(row.line);
        if (refused) return { status: 'failed', error: refused, previous_expires_at: active.expires_at };
        return { reason: 'expiry_updated', expires_at: expiresAt, previous_expires_at: active.expires_at };
      }
      if (active) {
        return {
          status: 'skipped',
          reason: 'already_assigned',
          expires_at: active.expires_at,
          audit_trail_id: active.audit_trail_id,
        };
      }
      return { expires_at: expiresAt };
    }
    if (!active) return { status: 'skipped', reason: 'not_assigned' };
    const refused = (await caller.refusal(kind, row)) ?? forecast?.refusal(row.line);
    if (refused) return { status: 'failed', error: refused, audit_trail_id: active.audit_trail_id };
    return { audit_trail_id: active.audit_trail_id };
  };
