import { PERMISSION_CATALOG } from './permissions.js';

/**
 * What a change of a record does, where the record says it, and the permission each act takes:
 * the catalog's finer permissions (exception.resolve.<kind>, exception.assign, exception.override,
 * rule.write.<kind>) decided by the record's own fields, as the operation table cannot. The
 * sandbox enforces it (domain/authorization.ts, requireRecordActs); plain values only. Fields
 * (the reference shows no record payload; these are the sandbox's): an exception's `kind`,
 * `status` (resolved is the resolution), `resolution` and `assigned_to`; a rule's `kind`.
 *
 * Exceptions: creating one takes exception.write; moving `status` to or from `resolved`, or
 * changing `resolution`, takes, for a kind the catalog gives its own resolve permission
 * (exception.resolve.fx_difference), that permission or exception.resolve, and for any other kind
 * exception.write or exception.resolve; judged on the kind before and after the change, and
 * changing the kind of a resolved exception is judged so too; setting `assigned_to` on an
 * unassigned exception takes exception.assign, changing
 * or removing an assignment takes exception.assign or exception.override; any other field takes
 * exception.write. So each finer permission does what it names without exception.write, and
 * exception.write neither assigns nor resolves a kind with its own resolve permission. Rules: a rule of kind fx (before or after the
 * change) is written with rule.write.fx, which rule.write grants; any other kind with rule.write.
 * Deleting either takes exception.write / rule.write (the operation table). To a caller who
 * cannot read the record, a refused change of it names every permission such a change may take,
 * the same whatever the record holds, and whether it exists or is deleted (`blind`): the act and
 * its permission would tell its kind, status or assignment, a 404 or 409 that it is not there; and
 * their change is judged on the patch alone, never on what the record holds (blindActs), so a
 * per-kind permission alone changes no record it cannot read.
 */
export interface RecordAct {
  /** The act as a refusal names it: `resolving an exception`. */
  act: string;
  /** What only a read of the record shows, named to a caller who may read it: ` of kind fx_difference`. */
  of?: string;
  /** Any one of these (each granted also by a broader one above it) allows the act. */
  anyOf: readonly string[];
  /**
   * What a refusal says instead to a caller who cannot read the record (a change of one that
   * exists): the same whatever the record holds, since which act a change is and what it takes
   * (its kind, status, assignment; a change that changes nothing) is what only a read shows.
   */
  blind?: string;
}

/** The catalog's finer permissions that let a caller through to an operation, its record then deciding (record acts). */
export const FINER_PERMISSIONS: Readonly<Record<string, readonly string[]>> = {
  exceptions_update: ['exception.assign', 'exception.override', 'exception.resolve'],
  rules_create: ['rule.write.fx'],
  rules_update: ['rule.write.fx'],
};

type Fields = Readonly<Record<string, unknown>>;

/**
 * Each record surface with acts: its noun, and every permission a change by a caller who cannot
 * read one of its records may take (blindActs): for a rule, rule.write alone (rule.write.fx is for
 * a rule known to be fx, which only a read shows).
 */
const ACTED_ON: Readonly<Record<string, { noun: string; shows: string; writes: readonly string[] }>> = {
  exceptions: {
    noun: 'an exception',
    shows: 'its kind, status and assignment',
    writes: Object.keys(PERMISSION_CATALOG).filter((p) =>
      ['exception.write', ...FINER_PERMISSIONS.exceptions_update!].some(
        (w) => p === w || p.startsWith(`${w}.`),
      ),
    ),
  },
  rules: { noun: 'a rule', shows: 'its kind', writes: ['rule.write'] },
};

/**
 * The refusal's words to a caller who cannot read the record (without `read`), for a change of an
 * id of `surface` whatever it holds, and whether it is there at all: that it exists and is not
 * deleted is what only a read shows, and so, for a surface with acts, which act a change is (its
 * kind, status, assignment), so each member sent is judged at its strictest (blindActs): the
 * permissions any such change may take.
 */
export function blindNeed(surface: string, read: string, act: 'change' | 'delete' = 'change'): string {
  const acted = ACTED_ON[surface];
  // A delete sends no patch and no members: it needs the record, which only a read shows (review17 F3).
  if (act === 'delete')
    return `deleting ${acted?.noun ?? `a record of ${surface}`} you cannot read needs one that exists and is not deleted (${read} shows whether it does)`;
  const needs = `needs one that exists and is not deleted, and ${read} for a patch that names no field`;
  if (acted === undefined) return `changing a record of ${surface} you cannot read ${needs}`;
  return `changing ${acted.noun} you cannot read ${needs}, else for each member sent what it may call for whatever the record holds (${read} shows ${acted.shows}): one or more of ${[...acted.writes].sort().join(', ')}`;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const kindOf = (fields: Fields | undefined) => (typeof fields?.kind === 'string' ? fields.kind : undefined);
const ofKind = (kind: string | undefined) => (kind === undefined ? {} : { of: ` of kind ${kind}` });
const present = (v: unknown) => v !== undefined && v !== null;

/** `base.<kind>` when the catalog has it, else `base` (which grants every kind). */
function perKind(base: string, kind: string | undefined): string {
  return kind !== undefined && `${base}.${kind}` in PERMISSION_CATALOG ? `${base}.${kind}` : base;
}

/**
 * What resolves an exception of `kind`: its own permission when the catalog has one
 * (exception.resolve.fx_difference, which exception.resolve grants), else exception.write or
 * exception.resolve (day-to-day work: an analyst closes what it works on).
 */
function resolveWith(kind: string | undefined): readonly string[] {
  const own = perKind('exception.resolve', kind);
  return own === 'exception.resolve' ? ['exception.write', 'exception.resolve'] : [own];
}

/** The kind before and after a change (once if the same; a creation: the new one's). */
const kindsOf = (before: Fields | undefined, after: Fields) =>
  before === undefined ? [kindOf(after)] : [...new Set([kindOf(before), kindOf(after)])];

function exceptionActs(before: Fields | undefined, after: Fields): RecordAct[] {
  const acts: RecordAct[] = [];
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after)]);
  const changed = [...keys].filter((k) => !same(before?.[k], after[k])).sort();
  const resolves =
    (before?.status === 'resolved') !== (after.status === 'resolved') || changed.includes('resolution');
  const covered = new Set(['assigned_to', 'resolution', ...(resolves ? ['status'] : [])]);
  const others = changed.filter((k) => !covered.has(k));
  if (before === undefined) acts.push({ act: 'creating an exception', anyOf: ['exception.write'] });
  else if (others.length > 0)
    acts.push({ act: `changing an exception's ${others.join(', ')}`, anyOf: ['exception.write'] });
  // A kind with its own resolve permission is resolved only with it (or exception.resolve), judged on
  // the kind before and after the change, as rules are: a relabel is no way round it. Relabelling a
  // resolved exception moves its resolution to another kind, so it is judged as a resolution too.
  const relabelsResolved =
    !resolves && changed.includes('kind') && (before?.status === 'resolved' || after.status === 'resolved');
  if (resolves || relabelsResolved) {
    const reopens = before?.status === 'resolved' && after.status !== 'resolved';
    const verb = relabelsResolved
      ? 'changing the kind of a resolved exception'
      : `${reopens ? 'reopening' : 'resolving'} an exception`;
    for (const kind of kindsOf(before, after))
      acts.push({ act: verb, ...ofKind(kind), anyOf: resolveWith(kind) });
  }
  if (changed.includes('assigned_to')) {
    acts.push(
      present(before?.assigned_to)
        ? { act: "changing an exception's assignment", anyOf: ['exception.assign', 'exception.override'] }
        : { act: 'assigning an exception', anyOf: ['exception.assign'] },
    );
  }
  return acts;
}

function ruleActs(before: Fields | undefined, after: Fields): RecordAct[] {
  return kindsOf(before, after).map((kind) => ({
    act: `${before === undefined ? 'creating' : 'changing'} a rule`,
    ...ofKind(kind),
    anyOf: [perKind('rule.write', kind)],
  }));
}

/** Every kind as its resolution is judged: one with its own resolve permission (fx_difference), and any other (undefined). */
const EVERY_KIND: readonly (string | undefined)[] = [
  undefined,
  ...Object.keys(PERMISSION_CATALOG)
    .filter((p) => p.startsWith('exception.resolve.'))
    .map((p) => p.slice('exception.resolve.'.length)),
];

/**
 * The acts of a patch by a caller who cannot read the record (`sent`: its members), judged on the
 * patch alone: each member sent as a change of it whatever the record holds, and what turns on the
 * record's values (its kind, status, assignment) at its strictest, so whether it is accepted never
 * tells what the record held, be the patch a no-op or a change beside the members probed (review16d
 * D2, review16f F2). Status, resolution or kind sent may resolve, reopen or relabel a resolved
 * exception of any kind (each kind's resolve permission), a status other than resolved may be a
 * plain change too (exception.write); assigned_to sent may assign (exception.assign), null may
 * remove an assignment (exception.assign or exception.override); a rule may be of any kind
 * (rule.write). So a per-kind permission alone (exception.resolve.fx_difference, rule.write.fx)
 * changes no record it cannot read: which kind it is is what only a read shows. A patch that
 * names no field answers the record: a read.
 */
function blindActs(surface: string, sent: Fields, read: string): RecordAct[] {
  const keys = Object.keys(sent).sort();
  if (keys.length === 0)
    return [{ act: `a patch that names no field (a read of ${surface})`, anyOf: [read] }];
  if (surface === 'rules') return [{ act: 'changing a rule of any kind', anyOf: ['rule.write'] }];
  if (surface !== 'exceptions') return [];
  const acts: RecordAct[] = [];
  const others = keys.filter(
    (k) => k !== 'assigned_to' && k !== 'resolution' && !(k === 'status' && sent.status === 'resolved'),
  );
  if (others.length > 0)
    acts.push({ act: `changing an exception's ${others.join(', ')}`, anyOf: ['exception.write'] });
  if (keys.some((k) => k === 'status' || k === 'resolution' || k === 'kind'))
    for (const kind of EVERY_KIND)
      acts.push({
        act: 'resolving, reopening or relabelling an exception',
        ...ofKind(kind),
        anyOf: resolveWith(kind),
      });
  if (keys.includes('assigned_to'))
    acts.push(
      present(sent.assigned_to)
        ? { act: 'assigning an exception or changing its assignment', anyOf: ['exception.assign'] }
        : { act: "removing an exception's assignment", anyOf: ['exception.assign', 'exception.override'] },
    );
  return acts;
}

/**
 * The acts of a change of a record of `surface` (`before` undefined: a creation), each with what it
 * takes. To a caller who reads the record, a change that changes nothing answers the record as it
 * is, so it is a read: it takes `read`, the surface's read permission (else a finer permission, let
 * through to the operation, read any record). To one who cannot (`sent`: their patch's members),
 * it answers only what was sent, so it is judged on what was sent alone (blindActs).
 */
export function recordActs(
  surface: string,
  before: Fields | undefined,
  after: Fields,
  read: string,
  sent?: Fields,
): RecordAct[] {
  if (before === undefined)
    return surface === 'exceptions'
      ? exceptionActs(before, after)
      : surface === 'rules'
        ? ruleActs(before, after)
        : [];
  const acts =
    sent !== undefined
      ? blindActs(surface, sent, read)
      : same(before, after)
        ? [
            {
              act: `a change that changes nothing (it answers the record: a read of ${surface})`,
              anyOf: [read],
            },
          ]
        : surface === 'exceptions'
          ? exceptionActs(before, after)
          : surface === 'rules'
            ? ruleActs(before, after)
            : [];
  const blind = blindNeed(surface, read);
  return acts.map((a) => ({ ...a, blind }));
}
