// Past 300 lines: the rows of a grant or revoke file, each field read and checked with the words
// its error gives (expiry forms, justification, the role by name), shared by the dry run and the run.
import { characters, invisibleIn, saysNothing } from '../../api/characters.js';
import {
  DURATION_FORMS,
  type Expiry,
  expiresAt,
  parseAt,
  parseDuration,
  parseTime,
} from '../../api/expiry.js';
import { numberAsItCame } from '../../api/numbers-as-they-came.js';
import { assignmentInForce, isOrganisationRole, JUSTIFICATION_MAX } from '../../api/roles.js';
import type { Role } from '../../api/schemas/roles.js';
import { didYouMean } from '../../api/suggest.js';
import { canonicalTenantRef } from '../../api/tenant-id.js';
import { isoSeconds, serverTime } from '../../api/time.js';
import type { SharedProblem } from '../../bulk/check.js';
import { readInput, recordAt } from '../../bulk/readers.js';
import { SeenKeys } from '../../bulk/seen.js';
import { quoted } from '../../output/format.js';
import { shellWord } from '../../system/shell-words.js';
import { type Extension, extensionOf, listedGrant } from './listed-grant.js';
import { columnName, FIELDS, type Field, headerProblems, KNOWN, SVC_OUTPUT_FIELDS } from './row-header.js';
import { findRole, unknownRole } from './shared.js';

/**
 * Rows of a bulk grant or revoke file: the columns, the rules of one row, and the stream of
 * checked rows read from a file. The whole file is checked before anything is sent; every problem
 * comes back with its line number.
 */

export type BulkKind = 'assign' | 'revoke';

export interface RevokeRow {
  line: number;
  user: string;
  role: Role;
  /** A revoke row's listed grant (its `audit_trail_id`): only that grant is revoked (listed-grant.ts). */
  auditTrailId?: string;
  /** A revoke row that is an `--extend` run's result: refused, as revoking is not its undo (listed-grant.ts). */
  extension?: Extension;
}

export interface GrantRow extends RevokeRow {
  /** Counted from the run's first start; null for a permanent grant. */
  expiresAt: string | null;
  justification: string;
  /** A duration counted from the run's anchor (RowRules.anchorMs), and whether --expires-in gave it. */
  counted?: Counted | undefined;
}
export interface Counted {
  text: string;
  flag: boolean;
}

/** Values given by flags for rows that leave them out. */
export interface RowDefaults {
  expiry?: Expiry | undefined;
  justification?: string | undefined;
}

export interface RowRules {
  kind: BulkKind;
  roles: Role[];
  /** The run's tenant: its id, and as it was given (a slug, or the id), for words. */
  tenant?: { id: string; ref: string };
  defaults: RowDefaults;
  /**
   * Relative expiries count from here: the run's first start, on the platform's clock when it
   * differs from this machine's (src/commands/platform-clock.ts); kept in the journal for a resume.
   */
  anchorMs: number;
  /**
   * Said when a row counts a duration from anchorMs (the one warning of a platform clock that
   * differs); `done`: the row is one an earlier run of a resumed run finished (not sent again).
   */
  onDuration?: (done: boolean) => void;
  /** The platform's time now. */
  nowMs: number;
  /**
   * The run's journal: where it is (to say so), and the lines an earlier run finished. Their
   * expiry is not judged again: a resume skips them, so one that has passed since stops nothing.
   */
  journal?: { path: string; done(line: number): boolean };
  /**
   * Told of a row still to do whose duration (from anchorMs) has passed on the platform's clock,
   * instead of a problem of its line: the caller refuses the run once for all of them (bulk.ts).
   */
  passed?: (line: number, counted: Counted, at: string) => void;
}

/** A field's text: undefined when absent or empty, or a message when it is not text. */
function read(fields: Record<string, unknown>, field: Field): { value?: string; error?: string } {
  const name = FIELDS[field].find((n) => fields[n] !== undefined && fields[n] !== null);
  if (name === undefined) return {};
  const raw = fields[name];
  if (typeof raw !== 'string')
    return { error: `${name} must be a string, got ${numberAsItCame(fields, name, raw) ?? quoted(raw)}` };
  const value = raw.trim();
  // A line break in an id or expiry: in CSV a closing quote missing, in JSON a value made wrong (a
  // justification may hold one); said so for both (review20b F8: JSON rows were told of a quote).
  if (field !== 'justification' && /[\r\n]/.test(value)) {
    return {
      error: `the ${name} holds a line break (user, role and expiry are one line each): in a CSV file, is a closing quote missing?`,
    };
  }
  return value === '' ? {} : { value };
}

/** The row's expires_at (null: never) and its duration, or undefined with the problems added to `messages`. */
function rowExpiry(
  fields: Record<string, unknown>,
  options: RowRules,
  messages: string[],
  line: number,
): { at: string | null; counted?: Counted } | undefined {
  const done = options.journal?.done(line) === true;
  const inText = read(fields, 'expires_in');
  const atText = read(fields, 'expires_at');
  for (const e of [inText.error, atText.error]) if (e) messages.push(e);
  if (inText.error || atText.error) return undefined;
  let expiry: Expiry | undefined;
  if (inText.value !== undefined && atText.value !== undefined) {
    messages.push('give expires_in or expires_at, not both');
    return undefined;
  }
  if (inText.value !== undefined) {
    const parsed = cached(options, inText.value, parseDuration);
    if (!parsed.ok) messages.push(`expires_in ${parsed.message}`);
    else expiry = parsed.value;
  } else if (atText.value !== undefined) {
    const parsed = done ? parseAt(atText.value) : parseTime(atText.value, options.nowMs);
    if (!parsed.ok) messages.push(`expires_at ${parsed.message}`);
    else expiry = parsed.value;
  } else if (options.defaults.expiry) {
    expiry = options.defaults.expiry;
  } else {
    messages.push(`missing expiry: set expires_in (${DURATION_FORMS} or never) or expires_at`);
  }
  if (!expiry) return undefined;
  const at = cached(options, expiry, (e) => expiresAt(e, options.anchorMs));
  if (expiry.kind !== 'in' || at === null) return { at };
  options.onDuration?.(done);
  const counted = { text: expiry.text, flag: inText.value === undefined };
  if (!done && serverTime(at) <= options.nowMs) {
    if (options.passed) {
      options.passed(line, counted, at);
    } else {
      const journal = options.journal ? ` ${options.journal.path}` : '';
      messages.push(
        `expires_in ${expiry.text}, counted from the first run of this file at ${isoSeconds(options.anchorMs)}, has passed; remove the journal${journal} to start over`,
      );
      return undefined;
    }
  }
  return { at, counted };
}

/**
 * Rows of a big file mostly share their expiry ("7d"): one parsed value and one timestamp
 * string serve them all, rather than one of each per row.
 */
const caches = new WeakMap<RowRules, Map<unknown, unknown>>();
function cached<K, V>(options: RowRules, key: K, compute: (key: K) => V): V {
  let cache = caches.get(options);
  if (!cache) {
    cache = new Map();
    caches.set(options, cache);
  }
  if (!cache.has(key)) cache.set(key, compute(key));
  return cache.get(key) as V;
}

/** The `status` words of svc's own bulk result rows (src/bulk/item.ts BulkStatus): a result row is a row. */
const RESULT_STATUSES: ReadonlySet<unknown> = new Set(['ok', 'skipped', 'failed', 'unknown']);

/**
 * What is wrong with granting a row of this `status`, or undefined. A listing's ended assignment
 * (`--include-ended`) grants nothing: copying it would grant again. A word svc does not know (another
 * server's `suspended`) is refused too, not guessed to be in force (review20c F9); the words are
 * read in any case, as assignmentInForce reads them.
 */
function statusProblem(status: unknown): string | undefined {
  if (status === undefined || status === null || RESULT_STATUSES.has(status)) return undefined;
  const inForce = assignmentInForce(status);
  if (inForce === 'held') return undefined;
  const keep = `keep the active ones: jq -c 'select(.status == "active")'`;
  if (inForce === 'ended') {
    const word = String(status).toLowerCase().replace('_', ' ');
    return `the assignment is ${word} (its status): it grants nothing to copy; ${keep}`;
  }
  return `the assignment's status ${quoted(status)} is not one svc knows (active, expired, revoked, role_deleted): it may grant nothing; ${keep}`;
}

/** A row, or what is wrong with one line. */
export type RowEvent =
  | { line: number; row: GrantRow | RevokeRow }
  | { line: number; problems: string[]; shared?: SharedProblem[] };

/** `.` and `..` name nothing in a URL path; spaces and control characters are not in ids. */
const NOT_AN_ID = /^\.\.?$|[\s\u0000-\u001f\u007f]/;

/**
 * The checked rows of the file at `path` (`name` tells its format), read as a stream (see
 * src/bulk/readers.ts): one row at a time is held, plus, when `duplicates` is on, each user and
 * role seen so far, compactly (src/bulk/seen.ts), to refuse a pair twice. A file without rows is a
 * problem (likely the wrong file), unless `noRowsIsNone`: standard input, where zero rows is the
 * empty set a filter selected (`… | jq … | svc roles revoke --file -`), and the run has nothing to do.
 */
export async function* fileRows(
  path: string,
  name: string,
  rules: RowRules,
  options: { duplicates: boolean; noRowsIsNone?: boolean },
): AsyncGenerator<RowEvent> {
  const pairs = options.duplicates ? new Pairs(path) : undefined;
  let header: { line: number; columns: string[] } | undefined;
  // A header's own problems (a column missing), said once a row shows the file is not empty.
  let broken: string[] = [];
  let anything = false;
  for await (const event of readInput(path, name, columnName)) {
    if (event.kind === 'header') {
      header = event;
      const problems = headerProblems(event.columns, rules, event.line);
      // A first line of data (no column svc knows) or of another separator is said at once.
      if (problems.length > 0 && !event.columns.some((column) => KNOWN.includes(column))) {
        yield { line: event.line, problems };
        return;
      }
      broken = problems;
      continue;
    }
    // A broken header makes every row wrong the same way: it is reported once, on its own line.
    if (broken.length > 0) {
      yield { line: header?.line ?? 1, problems: broken };
      return;
    }
    anything = true;
    if (event.kind === 'problem') {
      yield { line: event.line, problems: [event.message] };
      continue;
    }
    const checked = checkRecord(event.fields, rules, header === undefined, event.line);
    if (pairs && checked.user !== undefined && checked.role) {
      const first = pairs.earlier(checked.user, checked.role, event, header?.columns, rules);
      if (first !== undefined) {
        checked.problems.push(`duplicate of line ${first}: ${checked.user} and ${checked.role.name} again`);
      }
    }
    const { problems, shared } = checked;
    if (problems.length > 0) yield { line: event.line, problems, ...(shared.length ? { shared } : {}) };
    else yield { line: event.line, row: { line: event.line, ...checked.row! } };
  }
  // A file without rows is likely the wrong file: said first, with its header's problems (a
  // header alone missing columns is not sent to fix them first).
  if (!anything && !options.noRowsIsNone) {
    yield {
      line: header?.line ?? 1,
      problems: [header ? 'the file has a header row but no rows' : 'the file is empty', ...broken],
    };
  } else if (broken.length > 0) yield { line: header?.line ?? 1, problems: broken };
}

/**
 * The user and role pairs of a file seen so far. A hash match is confirmed by reading the earlier
 * record back; pairs whose hashes collide without being equal (rare) are kept whole.
 */
class Pairs {
  readonly #seen = new SeenKeys();
  readonly #collided = new Map<string, number>();

  constructor(private readonly path: string) {}

  /** The line where the same pair appeared before, if it did; otherwise the pair is remembered. */
  earlier(
    user: string,
    role: Role,
    record: { line: number; offset: number },
    columns: string[] | undefined,
    rules: RowRules,
  ): number | undefined {
    const key = `${user}\u0000${role.id}`;
    const candidate = this.#seen.add(key, record.line, record.offset);
    if (candidate === undefined) return undefined;
    const before = checkRecord(
      recordAt(this.path, columns, candidate.offset),
      rules,
      columns === undefined,
      candidate.line,
    );
    if (before.user === user && before.role?.id === role.id) return candidate.line;
    const again = this.#collided.get(key);
    if (again === undefined) this.#collided.set(key, record.line);
    return again;
  }
}

/**
 * A record naming its role twice (a result row's `role` and `role_id`, a listing's `role_id` and
 * `role_name`) where the names are not one role (renamed since, or one edited): what to say, or
 * undefined. The row is refused rather than one of them picked.
 */
function otherRole(fields: Record<string, unknown>, roles: Role[], role: Role): string | undefined {
  for (const name of FIELDS.role) {
    const ref = fields[name];
    if (typeof ref !== 'string' || ref.trim() === '') continue;
    if (findRole(roles, ref.trim())?.id !== role.id) {
      const given = FIELDS.role.filter((n) => typeof fields[n] === 'string' && fields[n] !== '');
      return `${given.map((n) => `${n} ${quoted(fields[n])}`).join(' and ')} are not one role; keep one`;
    }
  }
  return undefined;
}

/**
 * A record that says which tenant it is of (a listing's `tenant_id`) naming another tenant than the
 * run's: what to say, or undefined. A listing taken with `--tenant A` and piped to a run in tenant B
 * (the `--tenant` forgotten) would act on B's grants of the same users and roles (review20c F1):
 * refused, with both ways on: the listing's tenant, or this one without the field. A listing's rows
 * all say it alike: shared, so a 5,000-row listing is one line, not 5,000 (fix-list21 1).
 */
function otherTenant(fields: Record<string, unknown>, rules: RowRules): string | SharedProblem | undefined {
  const given = fields.tenant_id;
  if (given === undefined || given === null || !rules.tenant) return undefined;
  if (typeof given !== 'string') return `tenant_id must be a string, got ${quoted(given)}`;
  if (canonicalTenantRef(given.trim()) === canonicalTenantRef(rules.tenant.id)) return undefined;
  const { ref } = rules.tenant;
  const verb = rules.kind === 'assign' ? 'grant' : 'revoke';
  const ways = `not of this run's tenant ${ref}: to ${verb} in ${given}, pass --tenant ${shellWord(given)}; to ${verb} in ${ref}, drop the field: jq -c 'if type == "array" then .[] else . end | del(.tenant_id)'`;
  // A listing of another tenant is refused once for its tenant, not once a row (check.ts).
  return {
    key: `tenant ${given}`,
    one: `the row is of tenant ${given} (its tenant_id), ${ways}`,
    many: `are of tenant ${given} (their tenant_id), ${ways}`,
  };
}

/** The fields only an assignment record has (the reference's Role assignment): a listing's row. */
const isAssignmentRecord = (fields: Record<string, unknown>): boolean =>
  fields.assigned_at !== undefined || fields.assigned_by !== undefined;

/** What a listing row's expires_at and justification are, for a grant file's problem. */
const OLD_GRANT = "a listing's expires_at and justification are its grant's, not this one's";

/** A listing's assignment without what says how the old grant was made. */
function withoutOldGrant(fields: Record<string, unknown>): Record<string, unknown> {
  const { expires_at: _at, justification: _why, ...rest } = fields;
  return rest;
}

/**
 * A record naming its user twice (a result row's `user` and a `user_id` edited beside it) where
 * the two are not one id: what to say, or undefined. Refused as two roles are, not one picked.
 */
function otherUser(fields: Record<string, unknown>): string | undefined {
  const given = FIELDS.user.filter((n) => typeof fields[n] === 'string' && fields[n] !== '');
  const ids = new Set(given.map((n) => (fields[n] as string).trim()));
  if (ids.size < 2) return undefined;
  return `${given.map((n) => `${n} ${quoted(fields[n])}`).join(' and ')} are not one user; keep one`;
}

/** One record's problems, or its row (without its line). */
function checkRecord(
  fields: Record<string, unknown>,
  rules: RowRules,
  ndjson: boolean,
  line: number,
): {
  problems: string[];
  shared: SharedProblem[];
  user?: string;
  role?: Role;
  row?: Omit<GrantRow, 'line'> | Omit<RevokeRow, 'line'>;
} {
  const problems: string[] = [];
  // Problems a listing's rows all have alike, said once for all of them (src/bulk/check.ts).
  const shared: SharedProblem[] = [];
  const share = (problem: SharedProblem) => {
    shared.push(problem);
    problems.push(problem.one);
  };
  if (ndjson) {
    for (const key of Object.keys(fields)) {
      if (!KNOWN.includes(key) && !SVC_OUTPUT_FIELDS.has(key))
        problems.push(`unknown field "${key}"${didYouMean(key, KNOWN)}`);
    }
  }
  const tenant = otherTenant(fields, rules);
  if (typeof tenant === 'string') problems.push(tenant);
  else if (tenant) share(tenant);
  const user = read(fields, 'user');
  const invisible = user.value === undefined ? undefined : invisibleIn('user', user.value);
  const another = otherUser(fields);
  if (user.error) problems.push(user.error);
  else if (user.value === undefined) problems.push('missing user');
  else if (invisible) problems.push(invisible);
  else if (NOT_AN_ID.test(user.value)) problems.push(`user ${JSON.stringify(user.value)} is not a user id`);
  else if (another) problems.push(another);
  const granting = rules.kind === 'assign';
  const roleRef = read(fields, 'role');
  let role: Role | undefined;
  if (roleRef.error) problems.push(roleRef.error);
  else if (roleRef.value === undefined) problems.push('missing role');
  else {
    // Looked up first: a role's name may hold a joiner (`👩‍💻-devs`, a Persian word's ZWNJ;
    // review20b F6), and the tenant's names (read already) say which it holds. Only a ref no role
    // has is said to hold an invisible character, a paste's leftover, as an id is.
    role = findRole(rules.roles, roleRef.value);
    // A role of another tenant's listing is judged in that tenant, once --tenant names it: here
    // "not a role of this tenant" would be said of each row of it, for the tenant said once.
    if (!role) {
      if (typeof tenant !== 'object')
        problems.push(invisibleIn('role', roleRef.value) ?? unknownRole(roleRef.value, rules.roles));
    } else if (isOrganisationRole(role)) {
      problems.push(
        `${role.name} is an organisation role; it cannot be ${granting ? 'granted' : 'revoked'} in a tenant`,
      );
      role = undefined;
    } else {
      const other = otherRole(fields, rules.roles, role);
      if (other) {
        problems.push(other);
        role = undefined;
      }
    }
  }
  const status = granting ? statusProblem(fields.status) : undefined;
  if (status) problems.push(status);
  const found = { ...(user.value === undefined ? {} : { user: user.value }), ...(role ? { role } : {}) };
  if (!granting) {
    const listed = listedGrant(fields);
    if (listed.error) problems.push(listed.error);
    const extension = extensionOf(fields);
    const named = {
      ...(listed.value === undefined ? {} : { auditTrailId: listed.value }),
      ...(extension === undefined ? {} : { extension }),
    };
    return {
      problems,
      shared,
      ...found,
      ...(problems.length ? {} : { row: { user: user.value!, role: role!, ...named } }),
    };
  }
  // A listing's assignment (it has `assigned_at`/`assigned_by`): its expires_at and justification
  // are the old grant's, not this one's (review20c F2); the flags give them, as for any row without.
  const listing = isAssignmentRecord(fields);
  const own = listing ? withoutOldGrant(fields) : fields;
  if (listing) {
    const flags = [
      ...(rules.defaults.expiry ? [] : ['--expires-in (or --expires-at)']),
      ...(rules.defaults.justification === undefined ? ['--justification'] : []),
    ];
    if (flags.length > 0) {
      const one = `${OLD_GRANT}: pass ${flags.join(' and ')}`;
      share({ key: one, one });
    }
  }
  const expiry = listing && !rules.defaults.expiry ? undefined : rowExpiry(own, rules, problems, line);
  const given = read(own, 'justification');
  if (given.error) problems.push(given.error);
  const justification = given.value ?? rules.defaults.justification;
  const nothing = given.value === undefined ? undefined : saysNothing('justification', given.value);
  if (!given.error && justification === undefined && !listing) problems.push('missing justification');
  else if (nothing !== undefined) problems.push(nothing);
  else if (justification !== undefined && characters(justification) > JUSTIFICATION_MAX) {
    problems.push(`justification is longer than ${JUSTIFICATION_MAX} characters`);
  }
  if (problems.length > 0) return { problems, shared, ...found };
  return {
    problems,
    shared,
    ...found,
    row: {
      user: user.value!,
      role: role!,
      expiresAt: expiry!.at,
      justification: justification!,
      counted: expiry!.counted,
    },
  };
}
