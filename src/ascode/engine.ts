import { type Anchor, pastExpiry } from '../api/expiry.js';
import { isoSeconds } from '../api/time.js';
import { notUtf8 } from '../api/utf8.js';
import { svcCommand } from '../config/settings.js';
import type { Context } from '../context.js';
import { SvcError, UsageError } from '../errors.js';
import { counted } from '../output/format.js';
import { PROBLEMS_SHOWN, ProblemReport } from '../output/problems.js';
import { platformTime } from '../platform/clock.js';
import type { Platform } from '../platform/index.js';
import { cutShortWords, unendedLastLine } from '../system/cut-short.js';
import { utf16Without } from '../system/input.js';
import { shellWord } from '../system/shell-words.js';
import { desiredTenants, unknownTenantRefs } from './desired.js';
import { diffTenant } from './diff.js';
import { readEntries } from './entries.js';
import { refuseBeyondGivenTenant } from './given-tenant.js';
import { type LiveTenant, type Reads, readLive, sayUndescribed, type TenantInfo } from './live.js';
import { refuseBeyondHolds, refuseLastAdmin, refuseSelf } from './lockout.js';
import type { AccessFile } from './model.js';
import { markOwnReach, refuseOwnReachOrder } from './own-reach.js';
import { PLAN_FORMAT, type PlanDocument, type PlanTenant, planDigest, summarize } from './plan.js';
import { checkReferences } from './references.js';
import { checkShape, type ShapeProblem } from './shape.js';
import { type Problem, parseSource, type Source } from './source.js';
import { visibleTenants } from './visible.js';
import { sayPlanStops } from './webhook-stops.js';

/**
 * From a file to a plan: read it, check everything (its shape, then what needs no platform,
 * then its references against the platform), and only when nothing is wrong compare it with the
 * live state. Nothing here changes anything: every request is a GET.
 */

/**
 * Prints every problem as `FILE:LINE: message` (in line order) and fails with exit 2. With
 * --json/--ndjson nothing is printed: the error object carries every problem in `details`.
 */
export function failWithProblems(
  ctx: Context,
  label: string,
  problems: readonly Problem[],
  stage: string,
): never {
  const sorted = [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const report = new ProblemReport(ctx, label);
  for (const p of sorted.slice(0, PROBLEMS_SHOWN)) report.add(p.line, p.message);
  report.more(sorted.length - PROBLEMS_SHOWN, 'problems');
  // Every problem, not only the thousand printed: they are in memory already.
  const details = sorted.map((p) => ({ file: label, line: p.line ?? null, message: p.message }));
  const count = counted(sorted.length, 'problem');
  if (sorted.every((p) => p.forbidden)) {
    // Nothing wrong with the file: the caller lacks access to a tenant it names (exit 4).
    throw new SvcError('forbidden', `${count} in ${label}; ${stage}`, {
      code: 'tenant_not_held',
      hint: 'ask a tenant_admin there for a role, then log in again so your credential names the tenant',
      details,
    });
  }
  throw new UsageError(`${count} in ${label}; ${stage}`, {
    code: 'invalid_file',
    hint: 'fix them and run the command again',
    details,
  });
}

/** The integrations a file declares or manages anywhere: the only ones its plan reads. */
function readsOf(file: AccessFile): Reads {
  return {
    webhooks: file.manage.webhooks === 'all' || file.blocks.some((b) => b.webhooks.length > 0),
    clients: file.manage.oauth_clients === 'all' || file.blocks.some((b) => b.clients.length > 0),
  };
}

/** The platform's side of the checks: who the caller is, the tenants named, their live state. */
async function readPlatform(
  ctx: Context,
  platform: Platform,
  file: AccessFile,
  problems: Problem[],
  createMissing: boolean,
) {
  const me = await platform.me.get({ signal: ctx.signal, tenant: null });
  const mine: TenantInfo[] = (me.tenants ?? []).map((t) => ({
    id: t.id,
    slug: t.slug,
    display_name: t.display_name,
    role: t.role,
  }));
  const unknown = unknownTenantRefs(file, mine);
  const seen = await visibleTenants(platform, unknown, ctx.signal);
  const resolved = desiredTenants(file, mine, seen);
  problems.push(...resolved.problems);
  const { tenants, desired } = resolved;
  refuseBeyondGivenTenant(ctx, `${file.label}'s tenants: key names`, tenants);
  let live = new Map<string, LiveTenant>();
  if (tenants.length > 0) {
    const catalog = (await platform.roles.permissions({ tenant: tenants[0]!.id, signal: ctx.signal })).items;
    live = await readLive(platform, tenants, ctx.signal, readsOf(file));
    sayUndescribed(
      live.values(),
      (m) => ctx.out.warn(m),
      (one) => `${one ? 'its description is' : 'their descriptions are'} not compared`,
      (tenant, role) => desired.get(tenant.tenant.id)?.roles.get(role)?.description !== undefined,
    );
    problems.push(
      ...(await checkReferences(platform, file, tenants, desired, live, catalog, ctx.signal, createMissing)),
    );
  }
  return { me, tenants, desired, live };
}

export interface ComputedPlan {
  document: PlanDocument;
  live: Map<string, LiveTenant>;
}

/** A file as read: its value, and what is wrong with its shape (./shape.ts), each at a line. */
export interface CheckedFile {
  source: Source;
  /** Where the shape is wrong: entries there are left out of every later check. */
  shape: ShapeProblem[];
}

/**
 * Parses a file's text (a syntax error ends everything here) and checks its shape. `piped`: the
 * path given (`-` for standard input) when the file came through a pipe (fromPipe): one whose last
 * line has no line ending is refused (src/system/cut-short.ts), as a grant CSV is — YAML's last
 * scalar needs none, so `role: ops-readonly` cut to `role: ops` still parses (attack21b F6). A
 * JSON document is taken: cut short, it does not parse, so it cannot pass for another.
 */
export function readFile(ctx: Context, label: string, bytes: Buffer, piped?: string): CheckedFile {
  const parsed = parseSource(label, bytes);
  // A document that is one JSON object (or YAML flow map: `-f /dev/stdin` reads JSON as YAML) ends
  // in its closing brace: cut short, it does not parse.
  const braced =
    parsed.ok && (parsed.source.format === 'json' || /^[\s\uFEFF]*\{/.test(bytes.toString('utf8', 0, 64)));
  // Text that is not UTF-8 (a UTF-16 export, with or without a BOM, ends in `\n\0`) is said as such first, not as cut short.
  if (piped !== undefined && !braced && notUtf8(bytes) === undefined && utf16Without(bytes) === undefined) {
    const tail = bytes.subarray(Math.max(0, bytes.length - 4096));
    if (unendedLastLine(tail, /^[ \t]*$/) !== undefined) {
      let line = 1;
      for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) line++;
      const problem = { line, message: cutShortWords(piped, 'line') };
      failWithProblems(ctx, label, [problem], 'nothing was read from the platform');
    }
  }
  if (!parsed.ok) failWithProblems(ctx, label, parsed.problems, 'nothing was read from the platform');
  const value = parsed.source.value as Record<string, unknown>;
  if (typeof value === 'object' && !Array.isArray(value) && 'svc_plan' in value) {
    throw new UsageError(`${label} is a plan saved by svc plan --out, not an access file`, {
      hint: `apply it with ${svcCommand(ctx.settings(), `apply ${shellWord(label)}`)} (no -f), or give the access file it was planned from`,
    });
  }
  return {
    source: parsed.source,
    shape: checkShape(parsed.source.value, (path) => parsed.source.written(path)),
  };
}

export async function computePlan(
  ctx: Context,
  getPlatform: () => Promise<Platform>,
  checked: CheckedFile,
  /** The time durations count from, asked once the platform has been read (its clock is known then). */
  anchorFor: (platform: Platform) => Anchor,
  /** svc plan --create-missing: entries whose webhook or client id is not in the tenant are created. */
  createMissing: boolean,
  /**
   * Who the warning of the webhooks the plan's removals stop names as stopping them (svc plan, svc
   * apply --prune: `svc apply --prune`), or undefined to say nothing: svc apply without --prune
   * makes no removal, so it stops none (review29d L1).
   */
  stopsBy: string | undefined,
): Promise<ComputedPlan> {
  const { source, shape } = checked;
  // Every problem at once: what is well formed is checked on, as far as it goes.
  const { file, problems, times } = readEntries(source, shape);
  problems.push(...shape.map((p) => ({ line: source.line(p.path), message: p.message })));
  source.release();
  let read: Awaited<ReturnType<typeof readPlatform>>;
  let platform: Platform;
  try {
    platform = await getPlatform();
    read = await readPlatform(ctx, platform, file, problems, createMissing);
  } catch (error) {
    // Offline (a lint step, a server down, no credential): the file's own problems still count.
    if (problems.length === 0 || ctx.signal.aborted) throw error;
    const why = error instanceof Error ? error.message : String(error);
    failWithProblems(
      ctx,
      file.label,
      problems,
      `the platform could not be read (${why}), so tenants, roles, users and expiry times were not checked; nothing was compared or changed`,
    );
  }
  const { me, tenants, desired, live } = read;
  // An expires_at is in the past when it is on the platform's clock (known now: it answered).
  const nowMs = platformTime(platform, ctx.clock.now());
  for (const { line, expiry } of times) {
    const past = pastExpiry(expiry, nowMs);
    if (past !== undefined) problems.push({ line, message: `"expires_at" ${past}` });
  }
  if (problems.length > 0) failWithProblems(ctx, file.label, problems, 'nothing was compared or changed');
  const planned: PlanTenant[] = [];
  const anchor = anchorFor(platform);
  for (const tenant of tenants) {
    const diff = diffTenant({
      desired: desired.get(tenant.id)!,
      live: live.get(tenant.id)!,
      manage: file.manage,
      anchorMs: anchor.ms,
      onDuration: () => anchor.use(),
      createMissing,
    });
    problems.push(...diff.problems);
    refuseSelf(live.get(tenant.id)!, diff.tenant.changes, me);
    refuseBeyondHolds(live.get(tenant.id)!, diff.tenant.changes, me);
    markOwnReach(live.get(tenant.id)!, diff.tenant.changes, me);
    refuseOwnReachOrder(live.get(tenant.id)!, diff.tenant.changes, me);
    refuseLastAdmin(live.get(tenant.id)!, diff.tenant.changes, nowMs);
    planned.push(diff.tenant);
  }
  if (problems.length > 0) failWithProblems(ctx, file.label, problems, 'nothing was changed');
  // The webhooks its removals stop (attack29a F1), said beside the plan svc plan and svc apply --prune show.
  if (stopsBy !== undefined)
    await sayPlanStops(ctx, platform, live, planned, readsOf(file).webhooks, stopsBy);
  const content = {
    svc_plan: PLAN_FORMAT,
    created_at: isoSeconds(ctx.clock.now()),
    planned_by: me.id,
    base_url: ctx.settings().values.base_url ?? '',
    file: { path: file.label, sha256: file.sha256 },
    manage: file.manage,
    anchor: isoSeconds(anchor.ms),
    summary: summarize(planned),
    tenants: planned,
  } as const;
  // The digest second in the document (after svc_plan): what a reader of it sees first.
  const { svc_plan, ...rest } = content;
  return { live, document: { svc_plan, digest: planDigest(content), ...rest } };
}
