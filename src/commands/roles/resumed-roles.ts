import type { Role } from '../../api/schemas/roles.js';
import type { LineVerdict } from '../../bulk/check.js';
import type { Journal } from '../../bulk/journal.js';
import { svcCommand, type TargetSettings } from '../../config/settings.js';
import { SvcError } from '../../errors.js';
import { counted } from '../../output/format.js';
import type { BulkKind } from './rows.js';

/**
 * A grants (or revocations) file's journal keeps the id each role name of the file meant when the
 * run first started (Journal.keepSubjects). A resumed run whose earlier rows are done or in flight
 * is refused, before anything is sent, when a name now means another role (renamed or deleted and
 * made again, the platform's state reset): those rows acted on the old role, and the run would
 * report them done beside the new one (attack29b F1, F2). A journal an earlier svc wrote keeps no
 * ids: its done rows cannot be told done, so it is refused too (before the file is read; the
 * other check once its rows are, `named`). The roles are the run's one listing: no read per row.
 * Only the roles of rows done or in flight are compared, each with its own rows' counts: a role
 * none of whose rows the earlier run acted on is granted (or revoked) as a new run would (review29c M1).
 */
export function refuseChangedRoles(
  settings: TargetSettings,
  kind: BulkKind,
  journal: Journal,
  roles: readonly Role[],
  /** Each role the file's rows name, by name, as they resolve now (undefined: not read yet). */
  named?: ReadonlyMap<string, string>,
  /** Each row's key (its line) and the name of the role it names now (with `named`). */
  roleOfRow?: ReadonlyMap<string, string>,
): void {
  if (!journal.run.resumed) return;
  const doneKeys = journal.earlier().map(({ key }) => key);
  const inFlightKeys = journal.inFlightKeys();
  if (doneKeys.length + inFlightKeys.length === 0) return;
  const verb = kind === 'assign' ? 'granted' : 'revoked';
  /** The rows done and in flight, of one role (by its name now) or of the whole run. */
  const rowsOf = (name?: string) => {
    const of = (keys: string[]) =>
      name === undefined ? keys.length : keys.filter((key) => roleOfRow?.get(key) === name).length;
    const done = of(doneKeys);
    const inFlight = of(inFlightKeys);
    return [
      ...(done > 0 ? [`${counted(done, 'row')} done`] : []),
      ...(inFlight > 0 ? [`${counted(inFlight, 'row')} in flight`] : []),
    ].join(', ');
  };
  const rows = rowsOf();
  const newRun =
    kind === 'assign'
      ? 'a new run grants the roles the file names now (grants already in place are skipped)'
      : 'a new run revokes the roles the file names now (roles not held are skipped)';
  const known = journal.subjects();
  if (known === undefined) {
    throw new SvcError(
      'conflict',
      `cannot resume: the journal ${journal.path} was written by an earlier svc, which did not note which role each row ${verb} (${rows}), so they cannot be counted done: a role's name may mean another role now; nothing was sent`,
      {
        code: 'journal_roles_unknown',
        hint: `remove the journal and run the same command again: ${newRun}`,
      },
    );
  }
  if (named === undefined) return;
  // A name the earlier run knew must mean the same id now; a name it did not know (a row naming its
  // role by id, renamed since) must be of an id it acted on. Two roles whose names were swapped
  // are refused even in a file naming them by id (conservative: a new run is the way on).
  const then = new Set(known.values());
  const byId = new Map(roles.map((r) => [r.id, r] as const));
  const changed: string[] = [];
  let look: string | undefined;
  for (const [name, nowId] of named) {
    const thenId = known.get(name);
    if (thenId === undefined ? then.has(nowId) : thenId === nowId) continue;
    const rows = rowsOf(name);
    // No row of this role was done or in flight: the earlier run never acted on it.
    if (rows === '') continue;
    const old = thenId === undefined ? undefined : byId.get(thenId);
    if (thenId === undefined) {
      changed.push(`other roles (${rows}), but the file's role ${name} is ${nowId} now, none of them`);
      continue;
    }
    const oldNow =
      old === undefined
        ? `${thenId} is no longer listed (deleted, or the platform's state was reset)`
        : `${thenId} is now named ${old.name}`;
    changed.push(
      `role ${name} as ${thenId} (${rows}), but ${name} is now another role (${nowId}) and ${oldNow}`,
    );
    if (old !== undefined) look ??= old.name;
  }
  if (changed.length === 0) return;
  const others =
    changed.length > 1 ? ` (and ${counted(changed.length - 1, 'other role')} changed alike)` : '';
  const check =
    look === undefined
      ? ''
      : `see what the earlier run did (${svcCommand(settings, `roles holders ${look}`)}), then `;
  throw new SvcError(
    'conflict',
    `cannot resume: the earlier run of this file ${verb} ${changed[0]}${others}; nothing was sent`,
    {
      code: 'roles_changed_since',
      hint: `${check}remove the journal ${journal.path} and run the same command again: ${newRun}`,
    },
  );
}

/**
 * Notes each row's role name and id as the file's rows are read (for Journal.keepSubjects), and
 * the role's name by the row's key (its line), for refuseChangedRoles' per-role counts.
 */
export async function* notingRoles(
  verdicts: AsyncIterable<LineVerdict>,
  seen: Map<string, string>,
  byRow?: Map<string, string>,
): AsyncGenerator<LineVerdict> {
  for await (const verdict of verdicts) {
    if ('row' in verdict) {
      const { role } = verdict.row as { role?: Pick<Role, 'name' | 'id'> };
      if (role !== undefined) {
        seen.set(role.name, role.id);
        byRow?.set(String(verdict.line), role.name);
      }
    }
    yield verdict;
  }
}
