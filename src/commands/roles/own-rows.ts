/**
 * The rows of a revoke file that take a grant from the caller themself (attack29a F2): the rule
 * the single `roles revoke` asks by ("Revoke your own tenant_admin grant (usr_admin)") and that
 * orders a file's rows (CallerForecast.own: the caller, or the issuer of their API key), said in
 * the file's question, on each such row (its `note`) and after a dry run's summary, as the single
 * verb's question says it, and as svc plan marks such a change.
 */

import { someNames } from '../../output/format.js';
import type { CallerForecast } from './holds.js';
import type { RevokeRow } from './rows.js';

export interface OwnRow {
  line: number;
  user: string;
  role: string;
}

/** A row's note: it revokes the caller's own grant, and is made last (bulk.ts items). */
export const OWN_ROW_NOTE = 'your own grant: made after every other row';

/** The caller's own rows among `rows` (a file's, read once more); few, whatever the file's length. */
export async function ownRows(rows: AsyncIterable<object>, caller: CallerForecast): Promise<OwnRow[]> {
  const own: OwnRow[] = [];
  for await (const event of rows) {
    if (!('row' in event)) continue;
    const row = event.row as RevokeRow;
    if (await caller.own(row)) own.push({ line: row.line, user: row.user, role: row.role.name });
  }
  return own;
}

/**
 * `line 3 revokes your own tenant_admin grant (usr_admin)`, or undefined for none; `planned`: a
 * dry run's (`line 3 is your own …: it is made after every other row`), whose row may fail.
 */
export function ownRowsSaid(rows: readonly OwnRow[], planned = false): string | undefined {
  if (rows.length === 0) return undefined;
  const one = rows.length === 1;
  const lines = `${one ? 'line' : 'lines'} ${someNames(rows.map((r) => String(r.line)))}`;
  const verb = planned ? (one ? 'is' : 'are') : one ? 'revokes' : 'revoke';
  const roles = [...new Set(rows.map((r) => r.role))];
  const users = [...new Set(rows.map((r) => r.user))].join(', ');
  const what = roles.length === 1 && one ? `${roles[0]} grant` : `grants (${someNames(roles)})`;
  const last = planned ? `: ${one ? 'it is' : 'they are'} made after every other row` : '';
  return `${lines} ${verb} your own ${what} (${users})${last}`;
}

/** ownRowsSaid as a question's further sentence (` Line 3 revokes your own …`), or nothing. */
export function ownSentence(rows: readonly OwnRow[]): string {
  const said = ownRowsSaid(rows);
  return said === undefined ? '' : ` L${said.slice(1)}.`;
}
