// Past 300 lines: the one bulk flow of both role files (checking, ordering, the real and the dry run), whose
// order rules (the last tenant_admin, the caller's own rows) must stay beside the items they order.
import { type Anchor, describeExpiry } from '../../api/expiry.js';
import { grantsPermission } from '../../api/roles.js';
import type { Role } from '../../api/schemas/roles.js';
import { isoSeconds, serverTime } from '../../api/time.js';
import { stopsSaid, stopsSentence, type WebhookStops } from '../../api/webhook-stops.js';
import { checkInput, type LineVerdict } from '../../bulk/check.js';
import {
  BULK_INPUT_LIMITS,
  type BulkInputLimits,
  refuseCutLastRow,
  snapshotInput,
} from '../../bulk/input.js';
import { type BulkItem, sending } from '../../bulk/item.js';
import type { Journal, RunIdentity } from '../../bulk/journal.js';
import { type BulkVerb, runBulkOperation } from '../../bulk/operation.js';
import { ownReachLast } from '../../bulk/order.js';
import { readInput } from '../../bulk/readers.js';
import type { Context } from '../../context.js';
import { lookupMayFail, UsageError } from '../../errors.js';
import { answerOf } from '../../http/errors.js';
import { counted as countedNoun } from '../../output/format.js';
import { platformTime, shortenedSpans } from '../../platform/clock.js';
import { InvalidExpiryError } from '../../platform/errors.js';
import {
  attemptStart,
  type CallerIds,
  callerIdsAtStart,
  callerIdsOnce,
  startMark,
} from '../../platform/found-after-lost.js';
import type { Platform } from '../../platform/index.js';
import { forecastFileStops, sayStopped } from '../../platform/webhook-stops.js';
import { withConcurrency } from '../../system/command-scope.js';
import { sayReadingTerminal } from '../../system/input.js';
import { type BulkFlags, parseBulkFlags } from '../bulk-flags.js';
import { changedIn } from '../changed-in.js';
import { confirmDestructive, tenantLabel } from '../kit.js';
import { grantRunAnchor, refusePastExpiresAt } from '../platform-clock.js';
import {
  columns,
  earlierRun,
  type RowOutput,
  sayExpiryNotKept,
  sayKeysMayStop,
  sayShortened,
  shorteningNote,
  WORDS,
} from './bulk-output.js';
import { grant, plan, revoke } from './bulk-workers.js';
import { CallerForecast } from './holds.js';
import { orderLinked, RowsForecast } from './last-admin.js';
import { OWN_ROW_NOTE, type OwnRow, ownRows, ownRowsSaid, ownSentence } from './own-rows.js';
import { notingRoles, refuseChangedRoles } from './resumed-roles.js';
import { COLUMN_LIST, keepColumns, UnknownFields } from './row-header.js';
import {
  type BulkKind,
  type Counted,
  fileRows,
  type GrantRow,
  type RevokeRow,
  type RowDefaults,
  type RowRules,
} from './rows.js';
import { requireTenant } from './shared.js';

/** `svc roles assign --file` and `svc roles revoke --file`. */
export interface BulkFileOptions extends BulkFlags {
  file: string;
  defaults: RowDefaults;
  /** assign: a role already held gets its expiry moved to the row's (PATCH) instead of being skipped. */
  extend?: boolean;
  /** The most the file may hold (BULK_INPUT_LIMITS unless a test says otherwise). */
  limits?: BulkInputLimits;
}

type Row = GrantRow | RevokeRow;

/** --concurrency, --dry-run and --journal: only with --file. */
export const parseFileBulkFlags = (flags: Record<string, unknown>): BulkFlags =>
  parseBulkFlags(flags, 'file');

/** Validate the whole file, then plan (--dry-run) or run every row through the bulk operation. */
export function runBulkFile(ctx: Context, kind: BulkKind, options: BulkFileOptions): Promise<void> {
  return withConcurrency(() => bulkFile(ctx, kind, options));
}

async function bulkFile(ctx: Context, kind: BulkKind, options: BulkFileOptions): Promise<void> {
  const tenant = requireTenant(ctx);
  const platform = await ctx.platform();
  const limits = options.limits ?? BULK_INPUT_LIMITS;
  sayReadingTerminal(
    ctx,
    options.file,
    '--file',
    'the rows',
    'them',
    `roles ${kind} --file - < grants.csv`,
    // Only a revocation asks (confirmDestructive below), and never in a dry run.
    kind === 'revoke' && !options.dryRun ? 'the revocation' : undefined,
  );
  const input = await snapshotInput(options.file, ctx.io.stdin, '--file', limits.bytes, ctx.signal);
  // Standard input with no rows (a filter that selected nothing) is nothing to do, not a mistake.
  const stdin = options.file === '-';
  const fixHint = `fix them and run the command again (columns: ${kind === 'assign' ? COLUMN_LIST : 'user, role'})`;
  try {
    const roles = await tenantRoles(ctx, platform, input, fixHint, limits.rows);
    // The run's tenant as an id (a slug was resolved for the listing above): a row of a listing
    // that names another tenant (its tenant_id) is refused (rows.ts).
    const tenantId = (await platform.tenantId()) ?? tenant;
    // --expires-at for rows without an expiry: judged at the platform's time, as the column is.
    await refusePastExpiresAt(ctx, platform, options.defaults.expiry);
    // One anchor for the run, on the platform's clock (learned from the role listing's Date
    // header), kept in the journal: a resumed run and a dry run count durations the same way.
    let anchor: Anchor | undefined;
    // Rows still to do whose duration has passed since the run's first start: the run is refused
    // once for them all (prepare), not once per row.
    let passed: { count: number; first?: { counted: Counted; at: string } } = { count: 0 };
    let journalPath = '';
    let spansToSend = false;
    const expired = (counted: Counted, at: string) => expiryPassed(counted, at, anchor?.ms ?? 0, journalPath);
    const rulesAt = (_run: RunIdentity, journal: Journal): RowRules => {
      anchor ??= grantRunAnchor(ctx, platform, journal, 'durations (expires_in, --expires-in) were');
      const used = anchor;
      journalPath = journal.path;
      passed = { count: 0 };
      return {
        kind,
        roles,
        tenant: { id: tenantId, ref: tenant },
        defaults: options.defaults,
        anchorMs: used.ms,
        onDuration: (done) => {
          used.use();
          // A row still to send counts its span from the first start: a resumed run says so.
          if (!done) spansToSend = true;
        },
        nowMs: platformTime(platform, ctx.clock.now()),
        // A row's key in the run is its line (items below).
        journal: { path: journal.path, done: (line) => journal.has(String(line)) },
        passed: (_line, counted, at) => {
          passed.count++;
          passed.first ??= { counted, at };
        },
      };
    };
    const { expiry, justification } = options.defaults;
    // A dry run predicts the platform's last-tenant-admin rule over the rows, in file order, and
    // what the caller may hand out (CallerForecast).
    const caller = new CallerForecast(ctx, platform, tenant, roles);
    const forecast = options.dryRun
      ? new RowsForecast(ctx, platform, kind, options.extend === true, caller)
      : undefined;
    // The lines whose expiry moved sooner (--extend), and those that gave a permanent grant an end
    // that may stop the user's API keys, said after the summary.
    const shortened: number[] = [];
    // Failed rows, and those refused because their role was deleted (409 role_deleted, before the
    // run or during it): no fix of the file makes those, so the hint says the role is gone.
    const failures = { rows: 0, gone: new Set<string>(), goneRows: 0 };
    const keysStopped: Array<{ line: number; user: string }> = [];
    /** Rows granted with another expiry than the one asked for (attack18b 15). */
    const notKept: Array<{ line: number; user: string }> = [];
    const permissions = new Map(roles.map((r) => [r.id, r.permissions] as const));
    let stops: WebhookStops | undefined;
    /** A revocation was given to the worker (its request may have gone): the read-back's condition. */
    let sent = false;
    let own: OwnRow[] = [];
    /** Who the caller is (grantAnswerNotMade): read at the run's start, in prepare. */
    let callers: CallerIds = callerIdsOnce(platform, ctx.signal);
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
      // Read at the end: the question's words, or a slug an answer of the run gave (its GET /v1/me),
      // name the tenant (changedIn).
      where: () => changedIn(ctx.settings()),
      prepare: async (run, journal) => {
        // A resumed run's journal from an earlier svc, which kept no role ids: refused before the
        // file is read (attack29b F1).
        refuseChangedRoles(ctx.settings(), kind, journal, roles);
        const fields = new UnknownFields();
        const named = new Map<string, string>();
        const roleOfRow = new Map<string, string>();
        const left = await checkInput(
          ctx,
          input.label,
          refuseCutLastRow(
            input,
            fields.noting(
              notingRoles(
                fileRows(input.path, input.name, rulesAt(run, journal), {
                  duplicates: true,
                  noRowsIsNone: stdin,
                }),
                named,
                roleOfRow,
              ),
            ),
          ),
          () => (fields.seen ? `${fixHint}; keep only those: ${keepColumns(kind)}` : fixHint),
          limits.rows,
        );
        // A resumed run's rows whose role name now means another role: refused before anything
        // is sent; a new run keeps what each role name of the file means now in its first line.
        refuseChangedRoles(ctx.settings(), kind, journal, roles, named, roleOfRow);
        journal.keepSubjects(named);
        const { count, first } = passed;
        if (first) {
          const { message, hint } = expired(first.counted, first.at);
          const rows = count === 1 ? 'row' : 'rows';
          const still = `${count.toLocaleString('en')} ${rows} still to grant`;
          throw new UsageError(`${message}, for ${still}; nothing was sent`, { code: 'expiry_passed', hint });
        }
        // Before the question and the first row: the caller's own rows must be told apart.
        await caller.require(kind, options.dryRun);
        // The caller's own rows (attack29a F2) and the webhooks the revocations stop (F1): in the
        // question, on the rows, after a dry run's summary; the stops read back at the run's end.
        if (kind === 'revoke') {
          const again = () =>
            fileRows(input.path, input.name, rulesAt(run, journal), {
              duplicates: false,
              noRowsIsNone: stdin,
            });
          own = await ownRows(again(), caller);
          stops = await forecastFileStops(platform, again(), permissions);
        }
        // Who the caller is, for every grant's answer, read before the first is sent (a read that
        // fails stops the run here, nothing granted; brief fixgrant4 item 3).
        if (kind === 'assign' && !options.dryRun)
          callers = await callerIdsAtStart(platform, ctx.signal, 'nothing was granted');
        return left;
      },
      ...(stdin ? { empty: `nothing to ${WORDS[kind].act}: standard input has no rows` } : {}),
      // A resumed run's rows still to send count their spans from its first start (the journal's).
      resumeNote: () =>
        spansToSend && anchor
          ? shortenedSpans(
              anchor.ms,
              platformTime(platform, ctx.clock.now()),
              'expires_in (and --expires-in)',
              journalPath,
            )
          : undefined,
      items: (run, journal) =>
        items(input.path, input.name, rulesAt(run, journal), caller, {
          linked: (row) => orderLinked(kind, options.extend === true, row),
          ...(forecast ? { forecast } : {}),
        }),
      work:
        kind === 'assign'
          ? grant(
              platform,
              options.extend === true,
              permissions,
              ctx.clock,
              () => (anchor === undefined ? undefined : isoSeconds(anchor.ms)),
              (step) => callers(step),
            )
          : sending(revoke(platform, ctx.clock.sleep), () => {
              sent = true;
            }),
      // A grant row is noted in flight before it is sent: a resumed run that finds the grant made
      // judges it as the cut run's attempt (foundAfterLostAnswer's sentByCutRun), from its start.
      ...(kind === 'assign' ? { markSent: () => startMark(attemptStart(platform, ctx.clock.now())) } : {}),
      // The platform refused a row's duration, counted from the run's start, as past: every later
      // row counts from that start too, so the run stops rather than send them all to be refused.
      halts: (error, { data }) => {
        const { counted, line, expiresAt } = data as GrantRow;
        const now = platformTime(platform, ctx.clock.now());
        if (!counted || expiresAt === null || !refusedAsPast(error, expiresAt, now)) return undefined;
        const { message, hint } = expired(counted, expiresAt);
        const code = answerOf(error)?.code ?? 'invalid_expiry';
        return new UsageError(
          `${message}; the platform refused line ${line} (${code}); the run stopped, as its later rows count from the same start`,
          { code: 'expiry_passed', hint, cause: error },
        );
      },
      plan: plan(platform, kind, options.extend === true, caller, permissions, forecast),
      journaled: async (_item, done) => earlierRun(done),
      present: ({ key: _key, line: _line, status, plan: planned, ...result }, { data }) => {
        if (status === 'failed') {
          failures.rows++;
          if (result.error?.code === 'role_deleted') {
            failures.gone.add(data.role.name);
            failures.goneRows++;
          }
        }
        const note = shorteningNote(result);
        if (note) shortened.push(data.line);
        if (result.api_keys_may_stop === true) keysStopped.push({ line: data.line, user: data.user });
        if (result.expiry_not_kept === true) notKept.push({ line: data.line, user: data.user });
        return {
          line: data.line,
          // A held role whose expiry moves is planned as `extend`, whatever the verb's own word.
          ...(planned === undefined
            ? { status }
            : { plan: result.reason === 'expiry_updated' ? 'extend' : planned }),
          user: data.user,
          role: data.role.name,
          role_id: data.role.id,
          // The run's tenant: a row piped back (an undo) is then refused in another (review20d D1).
          tenant_id: tenantId,
          ...result,
          ...(note ? { note } : {}),
          ...(own.some((r) => r.line === data.line) ? { note: OWN_ROW_NOTE } : {}),
        };
      },
      fixHint: () =>
        roleGoneHint(
          failures,
          `fix the file and run it again: a new run, rows already ${
            kind === 'revoke'
              ? 'revoked are skipped'
              : options.extend
                ? 'held get the expiry it gives'
                : 'granted are skipped'
          }`,
        ),
      columns: (dryRun) => columns(kind, dryRun),
      describe: (row) => `line ${row.line}: ${(row.error as { message: string } | undefined)?.message}`,
      ...(kind === 'revoke'
        ? {
            confirm: (count: number | undefined) =>
              confirmDestructive(
                ctx,
                async () =>
                  `Revoke ${count === undefined ? 'the role assignments' : `the ${countedNoun(count, 'role assignment')}`} listed in ${input.label} that ${count === 1 ? 'is' : 'are'} held (a row whose grant is not is skipped), in ${await tenantLabel(ctx)}?${ownSentence(own)}${stopsSentence(stops)}`,
                `revoking the roles listed in ${input.label}`,
              ),
          }
        : {}),
    };
    try {
      await runBulkOperation(ctx, verb);
    } finally {
      sayShortened(ctx, shortened, options.dryRun);
      sayKeysMayStop(ctx, keysStopped, options.dryRun);
      sayExpiryNotKept(ctx, notKept);
      const mine = options.dryRun ? ownRowsSaid(own, true) : undefined;
      if (mine) ctx.out.warn(mine);
      if (stops && options.dryRun) {
        const said = stopsSaid(stops, 'the run');
        if (said) ctx.out.warn(said);
        // Read back only after a revocation went out: never after No, a refusal or Ctrl-C before
        // the first row, where it would contradict "nothing was changed" (review29d M2).
      } else if (sent) await sayStopped(platform, stops, (m) => ctx.out.warn(m));
    }
  } finally {
    // A copy that cannot be removed (attack21 F3: out of file descriptors) is one warning after
    // the run's own outcome (its error line, printed before Context.close), never in its place.
    const left = input.remove();
    if (left !== undefined) ctx.atClose(async () => ctx.out.warn(left));
  }
}

/**
 * The tenant's roles, which reading a row needs. When they cannot be listed (a 403, say), the
 * file's own problems, which need no server (a CSV row's field count, a line that is not JSON),
 * are said first (exit 2), as the help promises: the whole file is checked first.
 */
async function tenantRoles(
  ctx: Context,
  platform: Platform,
  input: { path: string; name: string; label: string },
  fixHint: string,
  maxRows: number,
): Promise<Role[]> {
  try {
    const roles: Role[] = [];
    for await (const role of platform.roles.listAll({ limit: 200 })) roles.push(role);
    return roles;
  } catch (error) {
    if (lookupMayFail(error))
      await checkInput(ctx, input.label, fileShape(input.path, input.name), fixHint, maxRows);
    throw error;
  }
}

/** The problems of a file's shape alone: its reader's, no row read against the roles. */
async function* fileShape(path: string, name: string): AsyncGenerator<LineVerdict> {
  for await (const event of readInput(path, name)) {
    if (event.kind === 'problem') yield { line: event.line, problems: [event.message] };
  }
}

/**
 * What a run whose duration has passed on the platform's clock is told, and how to go on: a new
 * run counts from its own start, and the platform skips rows whose grant still holds.
 */
function expiryPassed(
  counted: Counted,
  at: string,
  anchorMs: number,
  journal: string,
): { message: string; hint: string } {
  const other = counted.flag ? ', or give a new --expires-in or an --expires-at' : '';
  return {
    message: `the run's expiry has passed on the platform's clock: expires_in ${counted.text}, counted from the run's start at ${isoSeconds(anchorMs)}, ended at ${at}`,
    hint: `start a new run, which counts from its own start: remove the journal ${journal} and run the same command again${other} (rows whose grant still holds are skipped)`,
  };
}

/**
 * A refusal of an expiry because it is not in the future: the platform's invalid_expiry, or
 * another server's plain 400/422 for an expiry that has passed on its clock as far as svc knows.
 */
function refusedAsPast(error: unknown, expiresAt: string, platformNowMs: number): boolean {
  if (error instanceof InvalidExpiryError) return true;
  const answer = answerOf(error);
  return (answer?.status === 400 || answer?.status === 422) && serverTime(expiresAt) <= platformNowMs;
}

/**
 * The rows of the checked file, read again as a stream; a row's line is its key in the run. Rows
 * whose outcome hangs on another row's (`linked`: the last-tenant-admin rule) are made one at a
 * time in file order: each starts a phase of its own (after every row before it has finished;
 * src/bulk/order.ts), and the rows after it go on beside it, so the platform sees them in the
 * order the dry run's forecast plays them (s15 dryrun15 F3: eight at a time, the other row of two
 * was sometimes the one refused). A revoke file's rows that take a grant from the caller themself
 * come last of all (src/bulk/order.ts ownReachLast), each in a phase of its own, those whose role
 * gives role.assign last: made first, they would take away the power every later row needs
 * (exploratory test s12, scale12 C1). The dry run reads the rows through here too, so it plans them
 * in the order the real run makes them, and its forecast (RowsForecast) plays them so. Only the
 * caller's own rows are held (a few: one per role).
 */
async function* items(
  path: string,
  name: string,
  rules: RowRules,
  caller: CallerForecast,
  order: { linked: (row: Row) => boolean; forecast?: RowsForecast },
): AsyncGenerator<BulkItem<Row>> {
  const { linked, forecast } = order;
  const own: Row[] = [];
  let phase = 0;
  for await (const event of fileRows(path, name, rules, { duplicates: false, noRowsIsNone: true })) {
    if (!('row' in event)) throw new Error(`line ${event.line} changed after it was checked`);
    if (rules.kind === 'revoke' && (await caller.own(event.row))) {
      own.push(event.row);
      continue;
    }
    await forecast?.observe(event.row);
    if (linked(event.row)) phase++;
    yield { key: String(event.line), line: event.line, data: event.row, phase };
  }
  const power = (row: Row) => (grantsPermission(row.role.permissions, 'role.assign') ? 1 : 0);
  own.sort((a, b) => power(a) - power(b));
  let last = 0;
  for (const row of own) {
    await forecast?.observe(row);
    yield { key: String(row.line), line: row.line, data: row, phase: ownReachLast(++last, true) };
  }
}

/**
 * What to do about the failed rows: fix the file, unless some were refused because their role was
 * deleted (before the run or during it: attack24b F3), which no fix of a row makes; then that is
 * said first, and "fix the file" only for the others. The file is fine; the role is gone.
 */
function roleGoneHint(failures: { rows: number; gone: Set<string>; goneRows: number }, fix: string): string {
  if (failures.goneRows === 0) return fix;
  const names = [...failures.gone].join(', ');
  const gone =
    `${failures.gone.size === 1 ? `role ${names} was` : `roles ${names} were`} deleted, so ${failures.goneRows === 1 ? 'its row was' : `their ${failures.goneRows.toLocaleString('en')} rows were`} refused: ` +
    'a deleted role grants nothing and is not restored (see `svc roles ls`); leave those rows out, or create a role of that name again (`svc roles create`) to grant it with the same file';
  return failures.goneRows === failures.rows ? gone : `${gone}; for the other failed rows, ${fix}`;
}
