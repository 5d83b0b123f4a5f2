import { didYouMean } from '../../api/suggest.js';
import type { BulkKind, RowDefaults } from './rows.js';

/**
 * The columns of a bulk grant or revoke file: which names give which field, how a header's
 * names are read (without regard to case: spreadsheets write `User,Role`), and what is wrong
 * with a header row.
 */

/**
 * Each field and the column names that give it: `user_id`, `role_id` and `role_name` are how
 * `svc roles assignments --json/--ndjson` names them, so its listing is a file svc reads.
 */
export const FIELDS = {
  user: ['user', 'user_id'],
  role: ['role', 'role_id', 'role_name'],
  expires_in: ['expires_in'],
  expires_at: ['expires_at'],
  justification: ['justification'],
} as const;
export type Field = keyof typeof FIELDS;
export const KNOWN = Object.values(FIELDS).flat() as string[];
/** The columns, for hints. */
export const COLUMN_LIST = 'user, role, expires_in or expires_at, justification';

/**
 * The other fields svc itself writes in the JSON it prints for assignments and bulk rows: a role
 * assignment (`svc roles assignments --ndjson`) and the result rows of `roles assign/revoke --file
 * --ndjson` (src/commands/roles/bulk-output.ts, src/bulk/runner.ts, bulk-workers.ts). A JSON row
 * may carry them: they say what was, not what to do, and are passed over by name (attack20 F1) —
 * but a `tenant_id` not the run's tenant is refused, a revoke row's `audit_trail_id` must name the
 * grant held now (listed-grant.ts: review20d D1), and a listing's own `expires_at` and
 * `justification` are its old grant's, not read (rows.ts, review20c F1, F2);
 * any other field is still refused. A CSV header is held to the columns alone (svc writes no CSV).
 */
export const SVC_OUTPUT_FIELDS: ReadonlySet<string> = new Set([
  // An assignment.
  'tenant_id',
  'assigned_by',
  'assigned_at',
  'audit_trail_id',
  'status',
  'revoked_at',
  'revoked_by',
  'revocation_audit_trail_id',
  'updated_at',
  'updated_by',
  'update_audit_trail_id',
  // A bulk run's result row.
  'line',
  'plan',
  'reason',
  'reason_then',
  'note',
  'detail',
  'error',
  'outcome',
  'previous_expires_at',
  'status_code',
  'replayed',
  'api_keys_may_stop',
  'expiry_not_kept',
]);

/** Whether a JSON row of a file had a field svc does not read: its hint then says how to drop them. */
export class UnknownFields {
  seen = false;

  async *noting<T extends object>(rows: AsyncIterable<T>): AsyncGenerator<T> {
    for await (const row of rows) {
      const problems = 'problems' in row ? (row.problems as string[]) : [];
      if (problems.some((p) => p.startsWith('unknown field'))) this.seen = true;
      yield row;
    }
  }
}

/** How a JSON file with fields svc does not read is cut to the ones it does, for a hint. */
export function keepColumns(kind: BulkKind): string {
  const more = kind === 'assign' ? ', expires_in, expires_at, justification' : '';
  return `jq -c '{user: (.user // .user_id), role: (.role // .role_id)${more}}'`;
}

/** A header's column name as svc reads it: a known name in any case is that name (`User` is user). */
export function columnName(column: string): string {
  const lower = column.toLowerCase();
  return KNOWN.includes(lower) ? lower : column;
}

/** Separators a spreadsheet may write instead of a comma, as a problem names them. */
const OTHER_SEPARATORS: Array<[string, string]> = [
  [';', 'a semicolon (;)'],
  ['\t', 'a tab'],
];

/**
 * A header of one column that holds known names split by another separator (`user;role;…`, a
 * European spreadsheet's CSV): what to say about it, or undefined.
 */
function otherSeparator(columns: string[]): string | undefined {
  if (columns.length !== 1) return undefined;
  for (const [separator, name] of OTHER_SEPARATORS) {
    const names = columns[0]!.split(separator).map((c) => columnName(c.trim()));
    if (names.length > 1 && names.some((c) => KNOWN.includes(c))) {
      return `the header separates its columns with ${name}; svc reads comma-separated files (${names.join(',')})`;
    }
  }
  return undefined;
}

/** What is wrong with a header row (its names read by columnName), one message each. */
export function headerProblems(
  columns: string[],
  options: { kind: BulkKind; defaults: RowDefaults },
  line: number,
): string[] {
  const separated = otherSeparator(columns);
  if (separated) return [separated];
  // Not one column name svc knows: the file has no header row, and its first line is a row. One
  // message says so, rather than one per column of data.
  if (!columns.some((column) => KNOWN.includes(column))) {
    const expected = options.kind === 'assign' ? COLUMN_LIST : 'user, role';
    return [`line ${line} looks like data, not a header (expected columns: ${expected})`];
  }
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
