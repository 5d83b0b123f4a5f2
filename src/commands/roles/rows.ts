// Just past 300 lines: the rows of a grant or revoke file, each field read and checked with the words
// its error gives (expiry forms, justification, the role by name), shared by the dry run and the run.
import { characters } from '../../api/characters.js';
import {
  DURATION_FORMS,
  type Expiry,
  expiresAt,
  parseAt,
  parseDuration,
  parseTime,
} from '../../api/expiry.js';
import { isOrganisationRole, JUSTIFICATION_MAX } from '../../api/roles.js';
import type { Role } from '../../api/schemas/roles.js';
import { didYouMean } from '../../api/suggest.js';
import { isoSeconds } from '../../api/time.js';
import { readInput, recordAt } from '../../bulk/readers.js';
import { SeenKeys } from '../../bulk/seen.js';
import { quoted } from '../../output/format.js';
import { columnName, FIELDS, type Field, headerProblems, KNOWN } from './row-header.js';
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
  defaults: RowDefaults;
  /**
   * Relative expiries count from here: the run's first start, on the platform's clock when it
   * differs from this machine's (src/commands/platform-clock.ts); kept in the journal for a resume.
   */
  anchorMs: number;
  /** Said when a row counts a duration from anchorMs (the one warning of a platform clock that differs). */
  onDuration?: () => void;
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
  if (typeof raw !== 'string') return { error: `${name} must be a string, got ${quoted(raw)}` };
  const value = raw.trim();
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
  options.onDuration?.();
  const counted = { text: expiry.text, flag: inText.value === undefined };
  if (!done && Date.parse(at) <= options.nowMs) {
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

/** A row, or what is wrong with one line. */
export type RowEvent = { line: number; row: GrantRow | RevokeRow } | { line: number; problems: string[] };

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
    if (checked.problems.length > 0) yield { line: event.line, problems: checked.problems };
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

/** One record's problems, or its row (without its line). */
function checkRecord(
  fields: Record<string, unknown>,
  rules: RowRules,
  ndjson: boolean,
  line: number,
): {
  problems: string[];
  user?: string;
  role?: Role;
  row?: Omit<GrantRow, 'line'> | Omit<RevokeRow, 'line'>;
} {
  const problems: string[] = [];
  if (ndjson) {
    for (const key of Object.keys(fields)) {
      if (!KNOWN.includes(key)) problems.push(`unknown field "${key}"${didYouMean(key, KNOWN)}`);
    }
  }
  const user = read(fields, 'user');
  if (user.error) problems.push(user.error);
  else if (user.value === undefined) problems.push('missing user');
  else if (NOT_AN_ID.test(user.value)) problems.push(`user ${JSON.stringify(user.value)} is not a user id`);
  const granting = rules.kind === 'assign';
  const roleRef = read(fields, 'role');
  let role: Role | undefined;
  if (roleRef.error) problems.push(roleRef.error);
  else if (roleRef.value === undefined) problems.push('missing role');
  else {
    role = findRole(rules.roles, roleRef.value);
    if (!role) problems.push(unknownRole(roleRef.value, rules.roles));
    else if (isOrganisationRole(role)) {
      problems.push(
        `${role.name} is an organisation role; it cannot be ${granting ? 'granted' : 'revoked'} in a tenant`,
      );
      role = undefined;
    }
  }
  const found = { ...(user.value === undefined ? {} : { user: user.value }), ...(role ? { role } : {}) };
  if (!granting)
    return { problems, ...found, ...(problems.length ? {} : { row: { user: user.value!, role: role! } }) };
  const expiry = rowExpiry(fields, rules, problems, line);
  const given = read(fields, 'justification');
  if (given.error) problems.push(given.error);
  const justification = given.value ?? rules.defaults.justification;
  if (!given.error && justification === undefined) problems.push('missing justification');
  else if (justification !== undefined && characters(justification) > JUSTIFICATION_MAX) {
    problems.push(`justification is longer than ${JUSTIFICATION_MAX} characters`);
  }
  if (problems.length > 0) return { problems, ...found };
  return {
    problems,
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
