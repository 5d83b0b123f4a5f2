// Just over 300 lines: the verb's options, their cross-checks and help examples, and its one run;
// the bulk path is in bulk.ts, the holds in held.ts.
import { Command, Option } from 'commander';
import { characters } from '../../api/characters.js';
import { DURATION_FORMS, type Expiry, expiresAt, parseAt, parseDuration } from '../../api/expiry.js';
import { isOrganisationRole, JUSTIFICATION_MAX, oddGrantStatus } from '../../api/roles.js';
import type { RoleAssignment } from '../../api/schemas/roles.js';
import { isoSeconds } from '../../api/time.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { OutcomeUnknownError } from '../../http/errors.js';
import { platformTime } from '../../platform/clock.js';
import { AssignmentExistsError, shownBy } from '../../platform/errors.js';
import {
  attemptStart,
  callerIdsOnce,
  foundAfterLostAnswer,
  grantAnswerNotMade,
  interruptedReadingCaller,
} from '../../platform/found-after-lost.js';
import type { ResponseMeta } from '../../platform/index.js';
import { shellWord } from '../../system/shell-words.js';
import { withBulkFlags } from '../bulk-flags.js';
import { changedIn, tenantChanged } from '../changed-in.js';
import { examples, type MakeContext, nonEmpty, reasonFlag, userArg } from '../kit.js';
import { chooseFrom } from '../pick.js';
import { expiryAnchor, refusePastExpiresAt } from '../platform-clock.js';
import { type BulkFileOptions, parseFileBulkFlags, runBulkFile } from './bulk.js';
import {
  alreadyAssigned,
  expiryNotKept,
  expiryUnread,
  heldAfterSelfRefusal,
  keysStop,
  moveExpiry,
  until,
} from './held.js';
import {
  assignmentFields,
  leastPrivilegedFirst,
  listRoles,
  namedNotFound,
  passMissing,
  roleToGrant,
} from './shared.js';
import { parsedUnswapped, refuseSwapped } from './swapped.js';

export interface RolesAssignOptions {
  user: string | undefined;
  role: string | undefined;
  expiry: Expiry | undefined;
  justification: string | undefined;
  /** A role the user holds already gets its expiry moved to the one asked for (PATCH), not left as it is. */
  extend: boolean;
  /** Set for `--file`: the other values are defaults for rows that leave them out. */
  bulk: BulkFileOptions | undefined;
}

export function justificationFlag(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  const value = reasonFlag('--justification', raw);
  if (characters(value) > JUSTIFICATION_MAX) {
    throw new UsageError(`--justification is longer than ${JUSTIFICATION_MAX} characters`);
  }
  return value;
}

/**
 * --expires-in / --expires-at, as written; whether --expires-at is in the past is judged at the
 * platform's time once it is known (refusePastExpiresAt), as a file's expires_at column is.
 */
export function expiryFlags(flags: Record<string, unknown>): Expiry | undefined {
  if (flags.expiresIn !== undefined && flags.expiresAt !== undefined) {
    throw new UsageError('--expires-in and --expires-at cannot be combined; pick one');
  }
  if (flags.expiresIn !== undefined) {
    const parsed = parseDuration(String(flags.expiresIn));
    if (!parsed.ok) throw new UsageError(`--expires-in ${parsed.message}`);
    return parsed.value;
  }
  if (flags.expiresAt !== undefined) {
    const parsed = parseAt(String(flags.expiresAt));
    if (!parsed.ok) throw new UsageError(`--expires-at ${parsed.message}`);
    return parsed.value;
  }
  return undefined;
}

export function parseRolesAssign(
  user: unknown,
  role: unknown,
  flags: Record<string, unknown>,
): RolesAssignOptions {
  const bulkFlags = parseFileBulkFlags(flags);
  const expiry = expiryFlags(flags);
  const justification = justificationFlag(flags.justification);
  const extend = flags.extend === true;
  if (extend && expiry === undefined && flags.file === undefined) {
    throw new UsageError(
      '--extend needs the new expiry: --expires-in DURATION or --expires-at TIME (never: permanent)',
    );
  }
  if (flags.file !== undefined) {
    if (user !== undefined || role !== undefined) {
      throw new UsageError('give USER and ROLE, or --file, not both');
    }
    const file = nonEmpty('--file', flags.file);
    return {
      user: undefined,
      role: undefined,
      expiry,
      justification,
      extend,
      bulk: { file, ...bulkFlags, defaults: { expiry, justification }, extend },
    };
  }
  const given = {
    user: user === undefined ? undefined : userArg(user),
    role: role === undefined ? undefined : nonEmpty('ROLE', role),
  };
  refuseSwapped('assign', given.user, given.role);
  return {
    ...given,
    expiry,
    justification,
    extend,
    bulk: undefined,
  };
}

/** On a terminal, asks for what the command line left out; elsewhere that is a usage error. */
async function completeOptions(
  ctx: Context,
  options: RolesAssignOptions,
): Promise<{ user: string; role: string; expiry: Expiry; justification: string }> {
  const missing = [
    options.user === undefined ? 'USER' : '',
    options.role === undefined ? 'ROLE' : '',
    options.expiry === undefined ? '--expires-in or --expires-at' : '',
    options.justification === undefined ? '--justification' : '',
  ].filter(Boolean);
  if (missing.length > 0 && !ctx.canPrompt) {
    throw new UsageError(`missing ${missing.join(', ')}`, {
      hint: passMissing(missing, ' (see `svc roles assign --help`)'),
    });
  }
  const { prompter } = missing.length > 0 ? ctx : { prompter: undefined };
  const user =
    options.user ??
    (
      await prompter!.input('User id', {
        validate: (v) => (/^\S+$/.test(v.trim()) ? true : 'a user id, e.g. usr_analyst'),
      })
    ).trim();
  let role = options.role;
  if (role === undefined) {
    role = await chooseFrom(ctx, 'Role', async () =>
      // Least privileged first, so the default (Enter) is never tenant_admin.
      leastPrivilegedFirst((await listRoles(await ctx.platform())).filter((r) => !isOrganisationRole(r))).map(
        (r) => ({ name: r.name, value: r.id, description: r.description }),
      ),
    );
  }
  let expiry = options.expiry;
  if (expiry === undefined) {
    const answer = await prompter!.input(`Expires in (${DURATION_FORMS}, or never)`, {
      default: '8h',
      validate: (v) => {
        const parsed = parseDuration(v);
        return parsed.ok ? true : parsed.message;
      },
    });
    const parsed = parseDuration(answer);
    if (!parsed.ok) throw new UsageError(parsed.message);
    expiry = parsed.value;
  }
  const justification =
    options.justification ??
    (
      await prompter!.input('Justification', {
        validate: (v) =>
          v.trim() === '' ? 'say why the role is granted (it goes to the audit trail)' : true,
      })
    ).trim();
  return { user, role, expiry, justification };
}

export async function runRolesAssign(ctx: Context, options: RolesAssignOptions): Promise<void> {
  if (options.bulk) return runBulkFile(ctx, 'assign', options.bulk);
  const { user, role: ref, expiry, justification } = await completeOptions(ctx, options);
  const platform = await ctx.platform();
  const role = await roleToGrant(platform, ref);
  await refusePastExpiresAt(ctx, platform, expiry);
  const expires = expiresAt(expiry, await expiryAnchor(ctx, platform, expiry));
  // This machine's time before the first attempt, put on the platform's clock by the latest Date
  // header when a grant is found held after a lost answer (the retry's own answer, at the latest):
  // one made clearly before it is not that attempt's (review25a H1; attemptStart).
  const startMs = ctx.clock.now();
  // Where an --extend's expiry counts from, in words.
  const started = isoSeconds(platformTime(platform, ctx.clock.now()));
  const counted = expiry.kind === 'in' ? '--expires-in counts from now' : '--expires-at is when it ends';
  const body = { role_id: role.id, ...(expires === null ? {} : { expires_at: expires }), justification };
  let data: RoleAssignment;
  let response: ResponseMeta;
  try {
    ({ data, response } = await platform.roles.assign(user, body).withResponse());
  } catch (error) {
    if (error instanceof OutcomeUnknownError) {
      throw error.withHint(
        'run the same command again to find out: it is safe (a grant the lost attempt made is reported as already assigned, never made twice)',
      );
    }
    if (options.extend) {
      const held = await heldAfterSelfRefusal(platform, error, user, role.id);
      if (held) return moveExpiry(ctx, user, role, { expires, justification, counted }, held);
    }
    if (!(error instanceof AssignmentExistsError)) throw await namedNotFound(platform, error, user);
    if (options.extend) {
      return moveExpiry(ctx, user, role, { expires, justification, counted }, error.assignment);
    }
    const lost = foundAfterLostAnswer(error, {
      ...attemptStart(platform, startMs),
      check: shownBy('roles holders', role.name)(platform.svc),
      grant: { justification, expiresAt: expires, held: error.assignment },
    });
    return alreadyAssigned(ctx, error.assignment, user, role, lost);
  }
  // A 2xx carrying a grant this request clearly did not make (by someone else, or days before):
  // held already, as the 409 says it (attack26b F6); anything less is the grant (review26a H1).
  const other = await grantAnswerNotMade(
    {
      justification,
      held: data,
      startedAt: started,
      refuse: (problem) => platform.roles.assignAnswerRefused(user, body, problem, response),
    },
    callerIdsOnce(platform, ctx.signal),
  ).catch((error: unknown) => {
    throw interruptedReadingCaller(error);
  });
  if (other !== undefined && options.extend)
    return moveExpiry(ctx, user, role, { expires, justification, counted }, data);
  if (other !== undefined) return alreadyAssigned(ctx, data, user, role, undefined, other);
  const unread = expiryUnread(
    { user: data.user_id, role: data.role_name, sent: expires, answered: data.expires_at },
    `see it with: ${svcCommand(ctx.settings(), `roles assignments ${shellWord(data.user_id)}`)}`,
  );
  if (unread) throw unread;
  await ctx.out.record(data, assignmentFields(data, tenantChanged(ctx.settings())));
  if (!ctx.out.isMachine) {
    ctx.out.success(
      `granted ${data.role_name} to ${data.user_id}${changedIn(ctx.settings())} ${until(data.expires_at)} (audit trail ${data.audit_trail_id})`,
    );
  }
  const odd = oddGrantStatus(data.status);
  if (odd) ctx.out.warn(odd);
  const kept = expiryNotKept(expires, data.expires_at);
  if (kept)
    ctx.out.warn(
      `${kept}; check with: ${svcCommand(ctx.settings(), `roles assignments ${shellWord(data.user_id)}`)}`,
    );
}

export function assignCommand(make: MakeContext): Command {
  return withBulkFlags(
    new Command('assign')
      .summary('Grant a role to a user, or to many from a file')
      .description(
        'Grant a role to a user in the tenant, for a time (--expires-in 8h) or until a time ' +
          '(--expires-at), with a justification for the audit trail. On a terminal, missing values ' +
          'are asked for. Prints the assignment and its audit trail id. A role the user holds ' +
          'already is left as it is (already_assigned, exit 0, its expiry shown; --json and --ndjson ' +
          'print that assignment with "already_assigned": true); with --extend its ' +
          'expiry moves to the one given instead (later or sooner: --expires-in counts from now, and a ' +
          'warning says when the grant ends sooner; never: permanent), audited. A permanent grant given ' +
          `an end may stop API keys: ${keysStop()}; --extend warns of it whichever roles carry a key role's permissions ` +
          '(a --file run once, after its summary, naming the lines and users; with --json/--ndjson their rows carry ' +
          '"api_keys_may_stop": true; its dry run too).\n\nWith --file, grants ' +
          'every row of a CSV (header row), NDJSON or JSON-array file, or of standard input (-). Columns: user,' +
          ' role (id or name), expires_in (30m, 8h, 7d or never) or expires_at, justification; ' +
          '--expires-in/--expires-at/--justification fill in rows that leave them out; a row of ' +
          '`svc roles assignments --ndjson` takes them from the flags alone (its expires_at and justification are ' +
          "its old grant's), and one of another tenant (its tenant_id) is refused. The whole " +
          'file is checked first (every bad line is reported, exit 2; at most 256 MiB and 1,000,000 rows). ' +
          'The format is the one the name says (.csv, .json, .ndjson; standard input by content). CSV is read as ' +
          "spreadsheets write it: empty rows (,,,), a trailing empty column and a first line of Excel's sep=, or " +
          "PowerShell's #TYPE are skipped; a value holding a comma or a quote goes in double quotes, its quotes " +
          'doubled ("He said ""hi"""); a quoted value may hold a line break unless a later line of it reads as a row ' +
          "(the header's number of fields, its user and role one word each: a closing quote missing); ids hold no invisible characters (U+200B …). A journal records the run and " +
          'its finished rows: running the same command again (the same profile, logged in as the same user or with the same API key) after a crash, Ctrl-C or a failure ' +
          'resumes that run with the same idempotency keys, so nothing is granted twice (rows it finished are ' +
          'skipped, reason journal, what it found kept as then: "already_assigned in an earlier run"; a row the ' +
          'platform answers from its record of an earlier grant (marked Idempotent-Replayed or another usual spelling; ' +
          'a server that marks none is taken at its word) is counted granted only while the user holds it, ' +
          'with the expiry held now (reason expiry_changed_since when another admin changed it; with --extend, another ' +
          "expiry than the row's fails it), else it fails, changed_since, exit 7, and the same command grants or extends it anew; a grant " +
          'a lagging read does not list yet is read again, then its outcome is unknown, not_shown_yet); another user or API key makes a run of its own; a later, ' +
          'new run sends new requests, and rows already held are reported as skipped ' +
          '(already_assigned). --dry-run exits 7 when a row would fail (a grant to yourself; a role ' +
          'whose permissions you do not all hold, or for longer than you hold them; with --extend, ' +
          'an expiry the last-tenant-admin rule refuses, played in file order; the real run makes ' +
          'tenant_admin rows one at a time in that order, whatever --concurrency (a file is of one ' +
          'tenant), so it refuses the same row); a row whose check the server did not ' +
          'answer (5xx, no answer) is planned unknown, never fail, and the dry run exits 1: run it ' +
          'again; so does the whole dry run, planning nothing, when who you are or what you hold ' +
          '(GET /v1/me, your own grants) went unanswered. Exit 7 when some rows failed, those whose ' +
          'outcome is unknown among them (every answer lost or a server error: run the same command again to settle ' +
          'them), 3 when the credential stops working or changes hands during the run (it stops; the ' +
          'same command resumes), 130 after Ctrl-C (a row whose request is on the wire gets its answer; one ' +
          'waiting to retry stops waiting, its outcome unknown; a second Ctrl-C stops at once), 141 when stdout ' +
          'closes during the run.',
      )
      .argument('[user]', 'user id, e.g. usr_analyst')
      .argument('[role]', 'role id or name, e.g. tenant_admin')
      .addOption(new Option('--expires-in <duration>', `for how long: ${DURATION_FORMS}, or never`))
      .addOption(new Option('--expires-at <time>', 'until when, ISO 8601 with a zone: 2026-01-15T18:00:00Z'))
      .addOption(
        new Option(
          '--justification <text>',
          `why the role is granted, up to ${JUSTIFICATION_MAX} characters (kept in the audit trail)`,
        ),
      )
      .addOption(
        new Option(
          '--extend',
          "if the user holds the role already, move its expiry to the one given (with --file: each row's)",
        ),
      )
      .addOption(
        new Option(
          '--file <file>',
          'grant every row of a CSV, NDJSON or JSON-array file; - reads standard input (no rows there: nothing to do, exit 0; a CSV through a pipe whose last line has no line ending: refused, cut short?); at most 1,000,000 rows',
        ),
      ),
    '--file',
    'with --file: print what would be granted, already in place, or fail',
  )
    .addHelpText(
      'after',
      examples(
        [
          'svc roles assign usr_analyst tenant_admin --expires-in 8h --justification "INC-4711 on-call"',
          'just-in-time admin for eight hours',
        ],
        [
          'svc roles assign usr_analyst tenant_admin --extend --expires-in 12h --justification "INC-4711 runs long"',
          'move the expiry of a role already held to 12 h from now (granted if it is not)',
        ],
        ['svc roles assign', 'on a terminal: asks for user, role, expiry and justification'],
        ['svc roles assign --file grants.csv --dry-run', 'what a file would do, without changing anything'],
        [
          'svc roles assign --file grants.csv --ndjson > results.ndjson',
          'grant a file, one result line per row',
        ],
        [
          "printf 'user,role\\nusr_lead,tenant_viewer\\n' | svc roles assign --file - --expires-in 7d --justification onboarding",
          'rows from standard input; the flags fill in expiry and justification',
        ],
        [
          `printf 'user,role,expires_in,justification\\nusr_lead,tenant_viewer,8h,"Q3 close, ""urgent"""\\n' | svc roles assign --file - --dry-run`,
          'a value with a comma or quotes: in double quotes, its quotes doubled',
        ],
        [
          'svc users ls --all --ndjson | jq -r \'select(.email == "lead@acme.example") | .id\'',
          'a user id from an e-mail address (a file row names its user by the id the server knows)',
        ],
      ),
    )
    .action(
      async (
        user: string | undefined,
        role: string | undefined,
        flags: Record<string, unknown>,
        cmd: Command,
      ) => {
        const ctx = await make(cmd);
        await runRolesAssign(
          ctx,
          await parsedUnswapped(make, cmd, () => parseRolesAssign(user, role, flags)),
        );
      },
    );
}
