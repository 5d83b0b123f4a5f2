import { JUSTIFICATION_MAX } from '../../api/roles.js';
import type { Role } from '../../api/schemas/roles.js';
import { didYouMean } from '../../api/suggest.js';
import { isoSeconds } from '../../api/time.js';
import type { LineProblem, ParsedInput } from '../../bulk/readers.js';
import { DURATION_FORMS, type Expiry, expiresAt, parseDuration, parseTime } from './expiry.js';
import { findRole, unknownRole } from './shared.js';

/**
 * Rows of a bulk grant or revoke file, validated as a whole before anything is sent: every
 * problem comes back with its line number.
 */

export type BulkKind = 'assign' | 'revoke';

export interface RevokeRow {
  line: number;
  user: string;
  role: Role;
}

export interface GrantRow extends RevokeRow {
  expiry: Expiry;
  /** Counted from the run's anchor time; null for a permanent grant. */
  expiresAt: string | null;
  justification: string;
}

/** Values given by flags for rows that leave them out. */
export interface RowDefaults {
  expiry?: Expiry | undefined;
  justification?: string | undefined;
}

export interface ValidateOptions {
  kind: BulkKind;
  roles: Role[];
  defaults: RowDefaults;
  /** Relative expiries count from here: now, or the first run's start when resuming. */
  anchorMs: number;
  nowMs: number;
}

/** Each field and the column names that give it. */
const FIELDS = {
  user: ['user', 'user_id'],
  role: ['role', 'role_id'],
  expires_in: ['expires_in'],
  expires_at: ['expires_at'],
  justification: ['justification'],
} as const;
type Field = keyof typeof FIELDS;
const KNOWN = Object.values(FIELDS).flat() as string[];
/** The columns, for hints. */
export const COLUMN_LIST = 'user, role, expires_in or expires_at, justification';

function headerProblems(columns: string[], options: ValidateOptions): string[] {
  const messages: string[] = [];
  const seen = new Set<string>();
  for (const column of columns) {
    if (column === '') messages.push('a column has no name');
    else if (seen.has(column)) messages.push(`column "${column}" appears twice`);
    else if (!KNOWN.includes(column)) {
      messages.push(`unknown column "${column}"${didYouMean(column, KNOWN)}`);
    }
    seen.add(column);
  }
  for (const field of ['user', 'role'] as const) {
    const present = FIELDS[field].filter((name) => seen.has(name));
    if (present.length === 0) messages.push(`missing column "${field}"`);
    if (present.length > 1) messages.push(`columns "${present.join('" and "')}" say the same; keep one`);
  }
  if (options.kind === 'assign') {
    if (!seen.has('expires_in') && !seen.has('expires_at') && !options.defaults.expiry) {
      messages.push(
        'no expires_in or expires_at column: add one, or pass --expires-in or --expires-at for every row',
      );
    }
    if (!seen.has('justification') && !options.defaults.justification) {
      messages.push('no justification column: add one, or pass --justification for every row');
    }
  }
  return messages;
}

/** A field's text: undefined when absent or empty, or a message when it is not text. */
function read(fields: Record<string, unknown>, field: Field): { value?: string; error?: string } {
  const name = FIELDS[field].find((n) => fields[n] !== undefined && fields[n] !== null);
  if (name === undefined) return {};
  const raw = fields[name];
  if (typeof raw !== 'string') return { error: `${name} must be a string, got ${JSON.stringify(raw)}` };
  const value = raw.trim();
  return value === '' ? {} : { value };
}

function rowExpiry(
  fields: Record<string, unknown>,
  options: ValidateOptions,
  messages: string[],
): { expiry: Expiry; expiresAt: string | null } | undefined {
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
    const parsed = parseTime(atText.value, options.nowMs);
    if (!parsed.ok) messages.push(`expires_at ${parsed.message}`);
    else expiry = parsed.value;
  } else if (options.defaults.expiry) {
    expiry = options.defaults.expiry;
  } else {
    messages.push(`missing expiry: set expires_in (${DURATION_FORMS} or never) or expires_at`);
  }
  if (!expiry) return undefined;
  const at = cached(options, expiry, (e) => expiresAt(e, options.anchorMs));
  if (expiry.kind === 'in' && at !== null && Date.parse(at) <= options.nowMs) {
    messages.push(
      `expires_in ${expiry.text}, counted from the first run of this file at ${isoSeconds(options.anchorMs)}, has passed; remove the journal to start over`,
    );
    return undefined;
  }
  return { expiry, expiresAt: at };
}

/**
 * Rows of a big file mostly share their expiry ("7d"): one parsed value and one timestamp
 * string serve them all, rather than one of each per row.
 */
const caches = new WeakMap<ValidateOptions, Map<unknown, unknown>>();
function cached<K, V>(options: ValidateOptions, key: K, compute: (key: K) => V): V {
  let cache = caches.get(options);
  if (!cache) {
    cache = new Map();
    caches.set(options, cache);
  }
  if (!cache.has(key)) cache.set(key, compute(key));
  return cache.get(key) as V;
}

export function validateRows(
  input: ParsedInput,
  options: ValidateOptions,
): { rows: Array<GrantRow | RevokeRow>; problems: LineProblem[] } {
  const byLine = new Map<number, string[]>();
  const add = (line: number, message: string) => {
    const list = byLine.get(line);
    if (list) list.push(message);
    else byLine.set(line, [message]);
  };
  for (const p of input.problems) add(p.line, p.message);
  const rows: Array<GrantRow | RevokeRow> = [];
  const header = input.header ? headerProblems(input.header.columns, options) : [];
  for (const message of header) add(input.header!.line, message);
  if (header.length === 0 && input.records.length === 0 && input.problems.length === 0) {
    add(
      input.header?.line ?? 1,
      input.header ? 'the file has a header row but no rows' : 'the file is empty',
    );
  }
  // A broken header makes every row wrong the same way: it is reported once, on its own line.
  if (header.length > 0) return { rows, problems: sorted(byLine) };

  const firstLine = new Map<string, number>();
  const granting = options.kind === 'assign';
  for (const { line, fields } of input.records) {
    const messages: string[] = [];
    if (input.format === 'ndjson') {
      for (const key of Object.keys(fields)) {
        if (!KNOWN.includes(key)) messages.push(`unknown field "${key}"${didYouMean(key, KNOWN)}`);
      }
    }
    const user = read(fields, 'user');
    if (user.error) messages.push(user.error);
    else if (user.value === undefined) messages.push('missing user');
    else if (/[\s\u0000-\u001f\u007f]/.test(user.value))
      messages.push(`user ${JSON.stringify(user.value)} is not a user id`);
    const roleRef = read(fields, 'role');
    let role: Role | undefined;
    if (roleRef.error) messages.push(roleRef.error);
    else if (roleRef.value === undefined) messages.push('missing role');
    else {
      role = findRole(options.roles, roleRef.value);
      if (!role) messages.push(unknownRole(roleRef.value, options.roles));
      else if (role.scope !== 'tenant') {
        messages.push(
          `${role.name} is an organisation role; it cannot be ${granting ? 'granted' : 'revoked'} in a tenant`,
        );
        role = undefined;
      }
    }
    let expiry: ReturnType<typeof rowExpiry>;
    let justification: string | undefined;
    if (granting) {
      expiry = rowExpiry(fields, options, messages);
      const given = read(fields, 'justification');
      if (given.error) messages.push(given.error);
      justification = given.value ?? options.defaults.justification;
      if (!given.error && justification === undefined) messages.push('missing justification');
      else if (justification !== undefined && justification.length > JUSTIFICATION_MAX) {
        messages.push(`justification is longer than ${JUSTIFICATION_MAX} characters`);
      }
    }
    if (user.value !== undefined && role) {
      const pair = `${user.value}\u0000${role.id}`;
      const first = firstLine.get(pair);
      if (first !== undefined)
        messages.push(`duplicate of line ${first}: ${user.value} and ${role.name} again`);
      else firstLine.set(pair, line);
    }
    if (messages.length > 0) {
      for (const m of messages) add(line, m);
      continue;
    }
    const base = { line, user: user.value!, role: role! };
    rows.push(granting ? { ...base, ...expiry!, justification: justification! } : base);
  }
  return { rows, problems: sorted(byLine) };
}

/** One problem per message, in line order. */
function sorted(byLine: Map<number, string[]>): LineProblem[] {
  return [...byLine.entries()]
    .sort(([a], [b]) => a - b)
    .flatMap(([line, messages]) => messages.map((message) => ({ line, message })));
}
