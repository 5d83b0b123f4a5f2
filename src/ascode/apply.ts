// Over 300 lines: applying a plan is one run (the plan checked unchanged, its journal, the changes
// in order with their rows, the saved plan kept or removed) whose steps share that run's state.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Chalk } from 'chalk';
import { thirdPartyClientOf } from '../api/caller-authority.js';
import type { Anchor } from '../api/expiry.js';
import { isoSeconds, serverTime } from '../api/time.js';
import { stopsSaid } from '../api/webhook-stops.js';
import { type BulkItem, FOUND_AFTER_LOST_ANSWER, sending } from '../bulk/item.js';
import type { Journal, RunIdentity } from '../bulk/journal.js';
import { type BulkVerb, runBulkOperation } from '../bulk/operation.js';
import { commandLine, inTenant, shownSetting, svcCommand } from '../config/settings.js';
import type { Context } from '../context.js';
import { SvcError, UsageError } from '../errors.js';
import { counted } from '../output/format.js';
import type { Column } from '../output/output.js';
import { reasonLines } from '../output/problems.js';
import { escapeForTerminal } from '../output/sanitize.js';
import { platformTime, shortenedSpans } from '../platform/clock.js';
import {
  attemptStart,
  type CallerIds,
  callerIdsAtStart,
  callerIdsOnce,
  startMark,
} from '../platform/found-after-lost.js';
import type { Platform } from '../platform/index.js';
import { sayStopped } from '../platform/webhook-stops.js';
import { fromPipe } from '../system/cut-short.js';
import { PLAN_INPUT_LIMIT, readInputBytes, sayReadingTerminal } from '../system/input.js';
import { pathWord } from '../system/shell-words.js';
import { type Unsaved, unsavedLine } from './creations.js';
import { agedOut, checkDrift, readPlanDocument } from './drift.js';
import { computePlan, readFile } from './engine.js';
import { refuseBeyondGivenTenant } from './given-tenant.js';
import { readLive } from './live.js';
import { REFUSAL_REASONS, refusedNow, stopOnRefused } from './lockout.js';
import { grantKey } from './model.js';
import { withFileSpans } from './older-plan.js';
import { markOwnReach } from './own-reach.js';
import { changeKey, type PlanChange, type PlanDocument } from './plan.js';
import { checkPlanTenants } from './plan-tenants.js';
import { changeLabel, headline, planLines } from './render.js';
import { SecretDir } from './secrets.js';
import { planSteps, type Step, stepWorker, withSecret } from './steps.js';
import { applyStops, type TenantStops } from './webhook-stops.js';

/**
 * `svc apply`: a plan (computed from the file now, or saved by `svc plan --out` and checked
 * against the live state) made real through the one bulk operation — journal and resume,
 * concurrency, run-scoped idempotency keys, streamed results, a summary, exit 7 when something
 * failed — in phases, with what depends on a failed change left undone and said so.
 */

export interface ApplyOptions {
  /** An access file (-f) or a saved plan (PLAN.json). */
  from: { file: string } | { plan: string };
  prune: boolean;
  /** -f only: entries whose webhook or client id is not in the tenant are created (svc plan --create-missing). */
  createMissing: boolean;
  secretDir: string | undefined;
  concurrency: number;
  journal: string | undefined;
  /** Asks on a terminal, or needs --yes (the command's confirmDestructive). */
  confirm: (question: string, refusal: string) => Promise<void>;
  /**
   * The time an access file's durations count from, for the run `run` (the command's: the
   * platform's clock), kept by `journal` so a resumed run that plans again counts the same.
   */
  anchor: (platform: Platform, run: RunIdentity, journal: Journal) => Anchor;
}

interface Row {
  line?: number;
  tenant: string;
  kind: string;
  action: string;
  name: string;
  status?: string;
  [detail: string]: unknown;
}

/**
 * A grant skipped as held already (another run's, or made before): until when the grant held ends,
 * as --json says. Such a grant may end sooner than the file's `expires_in` (review21b R21b-4).
 */
function heldUntil(r: Row): string | undefined {
  if (r.reason === undefined || !('expires_at' in r)) return undefined;
  return `${r.reason}, ${r.expires_at === null ? 'with no expiry' : `until ${r.expires_at}`}`;
}

const COLUMNS: Array<Column<Row>> = [
  // The file entry a row is: what tells two creations of one URL or name apart (with `ref`).
  { header: 'line', value: (r) => r.line },
  { header: 'tenant', value: (r) => r.tenant },
  { header: 'kind', value: (r) => r.kind },
  { header: 'action', value: (r) => r.action },
  // A webhook's URL is a label, masked in the row itself (present: render.ts changeLabel).
  { header: 'name', value: (r) => r.name },
  { header: 'status', value: (r) => r.status },
  { header: 'id', value: (r) => r.id, kind: 'id' },
  {
    header: 'detail',
    value: (r) =>
      (r.error as { message?: string } | undefined)?.message ??
      // Another run's creation: said so, and where its secret is (or why it is not).
      (r.reason === 'created_by_another_run' && (r.secret_file ?? r.secret) !== undefined
        ? `${r.reason}: ${r.secret_file ?? r.secret}`
        : undefined) ??
      // Found done by a retry after a lost answer: most likely this run's (steps.ts foundAfterLostAnswer).
      (r.reason === FOUND_AFTER_LOST_ANSWER && typeof r.note === 'string'
        ? `${r.reason}: ${r.note}`
        : undefined) ??
      // Where the secret is, or why none was saved (a resumed run's creation rotated since).
      r.secret_file ??
      r.secret ??
      heldUntil(r) ??
      // A saved plan's revocation whose grant is not held past the expiry the plan showed: expired or
      // revoked, svc cannot tell (review22b F6); not sent.
      (r.reason === 'ended'
        ? `ended: not held, its planned expiry ${r.planned_expires_at} has passed; nothing sent`
        : undefined) ??
      r.reason ??
      r.audit_trail_id,
  },
];

const n = (count: number) => count.toLocaleString('en');

/** A row's change in a failure line: a webhook by its id with its (masked) URL, anything else by its name. */
const rowName = (row: Row): string =>
  row.kind === 'webhook' && typeof row.id === 'string' ? `${row.id} (${row.name})` : row.name;
/** Where a removal svc refuses (your own administration, the last tenant_admin…) is explained. */
/** Why removals svc refuses are not made, of `count` of them. */
const refusedWhy = (count: number) => `svc plan says why; keep ${count === 1 ? 'it' : 'them'} in the file`;

export async function applyPlan(ctx: Context, options: ApplyOptions): Promise<void> {
  const platform = await ctx.platform();
  const fromFile = 'file' in options.from;
  const spec = 'file' in options.from ? options.from.file : options.from.plan;
  // The changes are confirmed after the input is read (review20c F8).
  if (fromFile)
    sayReadingTerminal(ctx, spec, '-f', 'the access file', 'it', 'apply -f - < access.yaml', 'the changes');
  else sayReadingTerminal(ctx, spec, 'PLAN', 'the saved plan', 'it', 'apply - < plan.json', 'the changes');
  const bytes = await readInputBytes(
    spec,
    ctx.io.stdin,
    fromFile ? '-f' : 'PLAN',
    PLAN_INPUT_LIMIT,
    ctx.signal,
  );
  const label = spec === '-' ? 'stdin' : spec;
  // Everything that needs no platform is checked before the journal is even looked at.
  let source = fromFile
    ? readFile(ctx, label, bytes, fromPipe(spec, ctx.io.stdin) ? spec : undefined)
    : undefined;
  let doc: PlanDocument | undefined = fromFile ? undefined : readPlanDocument(label, bytes);
  if (doc && doc.base_url !== (ctx.settings().values.base_url ?? '')) {
    throw new UsageError(
      `${label} was computed against ${shownSetting('base_url', doc.base_url)}, not ${shownSetting('base_url', ctx.settings().values.base_url ?? '')}`,
      {
        hint: 'apply it with the profile it was made with, or plan again here',
      },
    );
  }
  // Its tenants are sent by id and shown by name: the two must be one tenant on the platform.
  if (doc) refuseBeyondGivenTenant(ctx, `${label} was planned for`, doc.tenants);
  const applier = doc ? (await checkPlanTenants(platform, label, doc, ctx.signal)).me : undefined;
  let steps: Array<BulkItem<Step>> = [];
  let secrets: SecretDir | undefined;
  /** Removals left for --prune: those it would make, and those svc refuses to make even then. */
  const leftForPrune = { made: 0, refused: 0 };
  let runJournal: Journal | undefined;
  /** Each step by its key, to name what a blocked change needed. */
  const byKey = new Map<string, BulkItem<Step>>();
  const describeStep = (key: string) => {
    const step = byKey.get(key);
    return step ? `${step.data.tenant.slug}: ${headline(step.data.change).slice(2)}` : key;
  };
  let resumed = false;
  /** The revocations of a saved plan whose grant expired since, as the plan showed (./drift.ts). */
  let expired: ReadonlyMap<string, string> = new Map();
  /** A resumed run's word on the grants it still makes, counted from its first start (shortenedSpans). */
  let spansNote: string | undefined;
  /** Creations whose secret could not be saved, by their step's key: made, with their ids. */
  const unsaved = new Map<string, Unsaved>();
  // The run's command lines in one of its tenants: what a line about a creation there names.
  const svcIn = (tenant: string) => commandLine(inTenant(ctx.settings(), tenant));
  /** Who the caller is: read at the start of a run with grants to send (prepare), else on first need. */
  let callers: CallerIds = callerIdsOnce(platform);
  const work = stepWorker(platform, () => secrets, {
    resumed: () => resumed,
    unsaved: (key, created) => unsaved.set(key, created),
    svcIn,
    sleep: ctx.clock.sleep,
    now: () => platformTime(platform, ctx.clock.now()),
    machineNow: () => ctx.clock.now(),
    plannedAt: () => doc!.anchor,
    callers: (signal) => callers(signal),
  });

  let pruneStops: TenantStops[] = [];
  /** A removal was given to the worker (its request may have gone): the read-back's condition. */
  let removalSent = false;
  /** The plan made from the file in this run (computePlan said what its removals stop). */
  let planned = false;
  const verb: BulkVerb<Step, Row> = {
    resumeNote: () => spansNote,
    // A saved plan an earlier svc's run applied part of is stale once its journal is gone (attack23b F4).
    ...(fromFile
      ? {}
      : {
          startOver: `${replanLine(ctx, doc!, label)}: the earlier run may have applied part of this one`,
        }),
    kind: 'apply',
    identity: [
      createHash('sha256').update(bytes).digest('hex'),
      options.prune,
      ...(options.createMissing ? ['create-missing'] : []),
    ],
    journal: options.journal,
    dryRun: false,
    concurrency: options.concurrency,
    words: { act: 'apply', doing: 'applying', done: 'applied' },
    madeThoughFailed: () =>
      unsaved.size > 0 ? `${n(unsaved.size)} of them created, their secret not saved` : undefined,
    async prepare(run, journal) {
      // The plan a run works from is kept beside its journal: a resumed run (after a crash, a
      // SIGKILL, Ctrl-C, or a run that finished with failures) goes on with that plan, not a new
      // one, so what the earlier run had in flight is sent again with the same keys and answered
      // from the platform's record.
      runJournal = journal;
      resumed = run.resumed;
      const kept = `${journal.path}.plan.json`;
      // Taken back only as svc wrote it for this run (its sha256 is in the journal): A7, attack17.
      const keptBytes = source && run.resumed ? journal.readBeside('.plan.json') : undefined;
      if (source && keptBytes === undefined) {
        const anchor = (p: Platform) => options.anchor(p, run, journal);
        const stopsBy = options.prune ? 'svc apply --prune' : undefined; // without it, none (review29d L1)
        doc = (await computePlan(ctx, async () => platform, source, anchor, options.createMissing, stopsBy))
          .document;
        planned = true;
        source = undefined; // the file's value is not needed once planned: let it go
        journal.keepBeside('.plan.json', planParts(doc));
        steps = planSteps(doc, options.prune);
      } else {
        const resumedFile = source !== undefined;
        if (resumedFile) {
          doc = readPlanDocument(kept, keptBytes!);
          // An older svc's kept plan: each grant's span, as its file (the same bytes) says it.
          withFileSpans(doc, source!);
        }
        source = undefined;
        // The journal says which run it kept: one that finished with failures, or one cut short.
        // Without a mark its end is not known (cut short, killed, a full disk, an earlier svc):
        // never called interrupted (review22a F4).
        const finished = journal.earlierFinish();
        const allDone = journal.earlierAllDone();
        const stale = resumedFile
          ? {
              what:
                finished !== undefined
                  ? `the plan of the run of ${label} that finished at ${finished} with failures (its journal kept to re-run them)`
                  : allDone !== undefined
                    ? `the plan of the run of ${label} that finished at ${allDone} with every change applied (its journal left behind)`
                    : `the plan of the earlier run of ${label}`,
              hint: `remove its journal (${journal.path}) and run svc apply again to plan anew`,
            }
          : { what: label, hint: replanLine(ctx, doc!, label) };
        const since = await unchangedSince(ctx, platform, doc!, stale, { run, journal }, options.prune);
        expired = since.expired;
        steps = planSteps(doc!, options.prune, since.done, expired);
        // The interrupted run's grants still to make end as its plan says, counted from its start.
        const spans = steps.some(
          (s) => !s.data.done && !journal.has(s.key) && s.data.change.grant?.expires_in !== undefined,
        );
        if (resumedFile && spans) {
          spansNote = shortenedSpans(
            serverTime(doc!.anchor),
            platformTime(platform, ctx.clock.now()),
            'expires_in',
            journal.path,
          );
        }
      }
      const plan = doc!;
      stopOnRefused(ctx, plan, options.prune);
      // The webhooks its removals stop (attack29a F1): read before, said (a saved plan's here; a
      // file's plan said it as it was made), and read back after the run.
      if (options.prune) {
        pruneStops = await applyStops(platform, plan, ctx.signal);
        if (!planned)
          for (const { tenant, stops } of pruneStops) {
            const said = stopsSaid(stops, 'svc apply --prune');
            if (said) ctx.out.warn(`${tenant.slug}: ${said}`);
          }
      }
      for (const tenant of plan.tenants) {
        for (const change of tenant.changes) {
          // A revocation whose grant expired since as the plan showed: --prune would not make it either.
          if (change.prune && !options.prune && !expired.has(changeKey(tenant.id, change)))
            leftForPrune[change.refused ? 'refused' : 'made']++;
        }
      }
      for (const step of steps) byKey.set(step.key, step);
      const secretsNeeded = steps.filter((s) => !s.data.done && withSecret(s.data.change));
      if (secretsNeeded.length > 0) {
        if (options.secretDir === undefined) {
          throw new UsageError(
            `the plan creates ${counted(secretsNeeded.length, 'webhook or OAuth client', 'webhooks or OAuth clients')}, whose secrets are shown only once; pass --secret-dir DIR`,
            { hint: 'svc writes each secret to its own 0600 file there; nothing was applied' },
          );
        }
        secrets = SecretDir.prepare(options.secretDir);
      }
      // Who the caller is, for every grant's answer, read before the first is sent: a read that
      // fails stops the run here, nothing applied (brief fixgrant4 item 3; callerIdsAtStart).
      const grantsToSend = steps.some(
        (s) =>
          !s.data.done && !journal.has(s.key) && s.data.change.grant && s.data.change.action === 'create',
      );
      if (grantsToSend) callers = await callerIdsAtStart(platform, ctx.signal, 'nothing was applied');
      return steps.length;
    },
    items: () => steps,
    work: sending(work, (item) => {
      if (item.data.change.prune) removalSent = true;
    }),
    // Each step is noted in flight before it is sent (its start, as roles assign --file notes a
    // row): a resumed run that finds a grant made judges it as the cut run's attempt, not as
    // `already_done` (steps.ts; brief fixapply item 2).
    markSent: () => startMark(attemptStart(platform, ctx.clock.now())),
    plan: async () => ({ status: 'skipped' }),
    present: ({ key, line: _line, status, plan: _plan, ...result }, { data }) => {
      const error = result.error as { code?: string; depends_on?: string } | undefined;
      if (error?.code === 'dependency_failed' && error.depends_on) {
        result.error = {
          ...result.error!,
          message: `not attempted: ${describeStep(error.depends_on)} failed`,
        };
      }
      // A row names its file entry (`line`; a creation of an export's entry its id there, `ref`):
      // rows come in completion order when streamed, and a terminal table is in line order.
      const { line, ref, grant } = data.change;
      return {
        ...(line === null ? {} : { line }),
        tenant: data.tenant.slug,
        kind: data.change.kind,
        action: data.change.verb,
        // A grant's name as sent (its user and role; ./plan-schema.ts holds a saved plan's to it).
        // A webhook's URL is a label in every form of the row (CI logs keep --json and --ndjson):
        // masked, its id and line beside it (s18 mask18 #2); the access file has it whole.
        name: grant ? grantKey(grant.user, grant.role) : changeLabel(data.change.kind, data.change.name),
        ...(ref === undefined ? {} : { ref }),
        status,
        ...(data.change.id ? { id: data.change.id } : {}),
        // Made, though its row failed: its secret could not be saved.
        ...(status === 'failed' && unsaved.has(key) ? { id: unsaved.get(key)!.id } : {}),
        ...result,
      };
    },
    columns: () => COLUMNS,
    // What was asked (`revoke usr_x role`, `update role fxr`), not only the kind: a failed revoke is
    // no failed grant. A webhook by its id when it has one, its URL (masked: two can read the
    // same) beside it, as export's warning names one.
    describe: (row) =>
      `${row.tenant}: ${row.kind === 'grant' ? row.action : `${row.action} ${row.kind}`} ${rowName(row)}: ${(row.error as { message?: string } | undefined)?.message}`,
    confirm: async (count) => {
      if (ctx.globals.yes) return;
      // On a terminal the plan is shown before the question (on stderr: stdout carries results).
      if (ctx.canPrompt) {
        ctx.out.stderr(`${planLines(doc!, new Chalk({ level: 0 }), options.prune).join('\n')}\n`);
        // Someone else's plan (as it says: the digest cannot prove who made it) is reviewed from its file.
        if (applier !== undefined && doc!.planned_by !== applier)
          ctx.out.stderr(
            `${escapeForTerminal(`planned by ${doc!.planned_by}, not you (${applier}): to review it, run svc plan -f FILE on the access file it came from`)}\n`,
          );
      }
      const names = doc!.tenants
        .filter((t) => steps.some((s) => s.data.tenant.id === t.id))
        .map((t) => t.display_name);
      await options.confirm(
        `Apply ${counted(count ?? 0, 'change')} to ${names.join(', ')}?`,
        `applying ${label}`,
      );
    },
    get empty() {
      const { made, refused } = leftForPrune;
      if (made + refused === 0) return `no changes to apply: the live state matches ${label}`;
      // The live state differs: only by removals, which are not made without --prune (or at all).
      const parts = [
        ...(made > 0 ? [`${counted(made, 'removal')}, made only with --prune`] : []),
        ...(refused > 0
          ? [`${counted(refused, 'removal')} svc refuses to make (${refusedWhy(refused)})`]
          : []),
      ];
      const are = made + refused === 1 ? `difference from ${label} is` : `differences from ${label} are`;
      return `nothing applied: the only ${are} ${parts.join(', and ')}`;
    },
  };
  let summary: Awaited<ReturnType<typeof runBulkOperation>>;
  try {
    summary = await runBulkOperation(ctx, verb);
  } finally {
    // A run that ended with nothing to resume removed its journal: its plan goes too.
    // Only a plan svc wrote (or took back) for this run: never a file another user put there.
    if (runJournal !== undefined && !existsSync(runJournal.path)) runJournal.removeKept();
    if (unsaved.size > 0) ctx.out.info(unsavedLine([...unsaved.values()], KEY_LIFETIME_MS, svcIn));
    // A list that changed while svc read it (an item repeated, kept once): said once, at the end
    // of every read of the run (the plan's, the drift check's, a step's; brief paging22 2).
    platform.sayTwice((note) => ctx.out.warn(note), 'kept');
    // Read back only after a removal went out: never after No, a refusal or Ctrl-C before the
    // first, where it would contradict "nothing was applied" (review29d M2).
    if (removalSent)
      for (const { tenant, stops } of pruneStops)
        await sayStopped(platform, stops, (m) => ctx.out.warn(m), tenant);
  }
  const { made, refused } = leftForPrune;
  if (summary && made + refused > 0) {
    const refusedToo = `${counted(refused, 'removal')} svc refuses to make (${refusedWhy(refused)})`;
    const were = (count: number) => (count === 1 ? 'was' : 'were');
    ctx.out.info(
      made > 0
        ? `${counted(made, 'removal')} ${were(made)} not applied: run svc apply with --prune to make ${made === 1 ? 'it' : 'them'}${refused > 0 ? `; ${refusedToo} even then` : ''}`
        : `${refusedToo} ${were(refused)} not applied`,
    );
  }
}

/**
 * The plan of a run, in parts for Journal.keepBeside (0600 in the journal's 0700 directory, before
 * anything is sent): a tenant at a time, so 100,000 changes are never one string in memory.
 */
function* planParts(doc: PlanDocument): Generator<string> {
  const { tenants, ...head } = doc;
  yield `${JSON.stringify(head).slice(0, -1)},"tenants":[`;
  for (const [i, tenant] of tenants.entries()) yield `${i === 0 ? '' : ','}${JSON.stringify(tenant)}`;
  yield ']}\n';
}

/** How long the platform keeps an idempotency key's answer (a replayed creation's secret with it). */
const KEY_LIFETIME_MS = 23 * 3600 * 1000;

/**
 * A plan applied later than it was computed (a saved plan, or a resumed run's): refused when the
 * live state drifted. Returns the changes a resumed run finds made already, which are not sent
 * again — except creations with a one-time secret, which are, with the same key, while the
 * platform still keeps its answer (and so the secret, which the interrupted run may have lost).
 */
async function unchangedSince(
  ctx: Context,
  platform: Platform,
  doc: PlanDocument,
  stale: { what: string; hint: string },
  { run, journal }: { run: RunIdentity; journal: Journal },
  prune: boolean,
): Promise<{ done: Set<string>; expired: Map<string, string> }> {
  const tenants = doc.tenants.map((t) => ({
    id: t.id,
    slug: t.slug,
    display_name: t.display_name,
    role: '',
  }));
  // What the plan compared, and nothing more (see Reads): an empty scope compared nothing.
  const scopes = new Map(doc.tenants.map((t) => [t.id, t.scope]));
  const live = await readLive(platform, tenants, ctx.signal, (tenant) => {
    const scope = scopes.get(tenant.id)!;
    return { webhooks: scope.webhooks.length > 0, clients: scope.oauth_clients.length > 0 };
  });
  const now = platformTime(platform, ctx.clock.now());
  const { drift, done, expired } = checkDrift(doc, live, run.resumed, now);
  if (drift.length > 0) {
    const { details } = reasonLines(ctx, drift);
    const where = ctx.out.isMachine ? ' (each change in details)' : '';
    throw new SvcError(
      'conflict',
      `the live state changed since ${stale.what} was computed${where}; nothing was applied`,
      { code: 'plan_stale', hint: stale.hint, details },
    );
  }
  // A grant whose expiry has passed on the platform's clock cannot be made (the platform refuses
  // it, and would again on every re-run): a plan reviewed on Friday and applied on Monday, or a
  // resumed run's whose expires_in counted from a start long gone, is refused whole, like drift.
  // What is left to make: not found made now (done), nor recorded made by the interrupted run (a
  // grant it made may have ended since, and is no longer live, but it is not this run's to make).
  const made = new Set(journal.earlier().map((e) => e.key));
  const pending = (t: string, c: PlanChange) =>
    (prune || !c.prune) &&
    !done.has(changeKey(t, c)) &&
    !expired.has(changeKey(t, c)) &&
    !made.has(changeKey(t, c));
  const ended = agedOut(doc, (t, c) => !c.refused && pending(t, c), now);
  if (ended.length > 0) {
    const { details, where } = reasonLines(ctx, ended);
    throw new SvcError(
      'conflict',
      `${stale.what} has aged out: ${n(ended.length)} of its grants would end at or before the platform's time now, ${isoSeconds(now)} (${where}); nothing was applied`,
      { code: 'plan_expired', hint: stale.hint, details },
    );
  }
  // What the caller may not do to themselves, and what they may hand out, is judged on their
  // grants now, not the plan's: a grant of theirs outside the plan's scope (another route to
  // administering the tenant) may have been revoked or shortened since, and then narrowing the
  // role that is left would lock them out, or a grant would outlive their own. Or another person
  // applies the plan: then it is their grants.
  const me = await platform.me.get({ signal: ctx.signal, tenant: null });
  const refused = refusedNow(doc, live, pending, me);
  if (refused.length > 0) {
    const { details, where } = reasonLines(ctx, refused);
    const count = `${n(refused.length)} of its changes (${where})`;
    const why = REFUSAL_REASONS;
    // The planner applying through a third-party client's token: not their grants, the credential.
    const client = thirdPartyClientOf(me);
    const yours = doc.planned_by === me.id;
    throw new SvcError(
      'conflict',
      yours && client !== null
        ? `${stale.what} was planned by you (${me.id}), and through OAuth client ${client}'s token you may not make ${count}: they would ${why}; nothing was applied`
        : yours
          ? `your own grants changed since ${stale.what} was computed, and ${count} would now ${why}; nothing was applied`
          : `${stale.what} was planned by ${doc.planned_by}, and you (${me.id}) may not make ${count}: they would ${why}; nothing was applied`,
      {
        code: 'plan_stale',
        hint:
          yours && client !== null
            ? `apply it with your own login (${svcCommand(ctx.settings(), 'login')}), not a third-party client's token`
            : yours
              ? stale.hint
              : 'have someone who may make them apply the plan, or plan again as yourself',
        details,
      },
    );
  }
  // What takes away the applier's own reach is made last, judged on their grants now (./own-reach.ts).
  for (const tenant of doc.tenants) {
    const have = live.get(tenant.id);
    if (have) markOwnReach(have, tenant.changes, me);
  }
  if (ctx.clock.now() - run.startedAtMs < KEY_LIFETIME_MS) {
    for (const tenant of doc.tenants) {
      for (const change of tenant.changes) {
        if (withSecret(change)) {
          done.delete(changeKey(tenant.id, change));
        }
      }
    }
  }
  return { done, expired };
}

/**
 * What to run when a saved plan is stale: the whole `svc plan` line that makes a plan `svc apply`
 * takes, with the run's -p/--tenant, the access file the plan records (`FILE` for one read from
 * stdin) and the saved plan's path (`PLAN.json` for one piped in). "run svc plan again" alone
 * made a plan nothing reads (attack25a F10).
 */
function replanLine(ctx: Context, doc: PlanDocument, planLabel: string): string {
  const file = doc.file.path === 'stdin' ? 'FILE' : pathWord(doc.file.path);
  const out = planLabel === 'stdin' ? 'PLAN.json' : pathWord(planLabel);
  return `run \`${svcCommand(ctx.settings(), `plan -f ${file} --out ${out}`)}\` again and review the new plan`;
}
