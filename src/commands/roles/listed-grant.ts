/**
 * The grant a revoke row names by its `audit_trail_id` (a listing's, `svc roles assignments
 * --ndjson`, or a result row's, `roles assign --file --ndjson`): a row piped on from a run in
 * another tenant (its --tenant forgotten on the revoke), or written before the user was granted the
 * role anew, names another grant than the one held now, and a DELETE of "the user's role" would
 * end that one, said ✓ (review20c F1, review20d D1). Such a row is refused, a failed row (exit 7),
 * in the dry run as in the real one: never revoked, which ends a grant nobody listed, and never
 * skipped, which exits 0 while the grant the user meant to end may still be in force where it was
 * made. The words say both ways on. A server that gives no audit trail id for the grant held now
 * cannot be compared with: the row is revoked as any row is.
 *
 * The result row of an `--extend` run (its reason `expiry_updated`, or its audit trail id the held
 * grant's `update_audit_trail_id`: the PATCH's entry) names no grant the run made: it moved the
 * expiry of one held before it. Revoking it ends that grant, which is not the undo of an
 * extension, so it is refused too, in words that say so and how to put the expiry back (review21
 * F1: it was called "another grant … made since", and its advice ended the older grant).
 */
import type { Refusal } from '../../api/caller-authority.js';
import { assignmentInForce } from '../../api/roles.js';
import type { RoleAssignment } from '../../api/schemas/roles.js';
import type { CommandLine } from '../../config/settings.js';
import { quoted } from '../../output/format.js';
import type { Platform } from '../../platform/index.js';
import { shellWord } from '../../system/shell-words.js';
import type { RevokeRow } from './rows.js';

/** A JSON row's `audit_trail_id`, when it carries one: the grant it lists. */
export function listedGrant(fields: Record<string, unknown>): { value?: string; error?: string } {
  const given = fields.audit_trail_id;
  if (given === undefined || given === null) return {};
  if (typeof given !== 'string' || given.trim() === '') {
    return { error: `audit_trail_id must be the audit trail id of a grant, got ${quoted(given)}` };
  }
  return { value: given };
}

/**
 * What an `--extend` run's result row says of its extension (bulk-workers.ts `expiry_updated`; a
 * resumed run's `reason_then`, a dry run's plan `extend`): the expiries before and after, as far as
 * it gives them; undefined for any other row.
 */
export function extensionOf(fields: Record<string, unknown>): Extension | undefined {
  const extended =
    fields.reason === 'expiry_updated' || fields.reason_then === 'expiry_updated' || fields.plan === 'extend';
  if (!extended) return undefined;
  const time = (value: unknown) => (typeof value === 'string' || value === null ? value : undefined);
  return { from: time(fields.previous_expires_at), to: time(fields.expires_at) };
}

/** An extension's expiries: null permanent, undefined not given. */
export interface Extension {
  from?: string | null | undefined;
  to?: string | null | undefined;
}

type Held = Pick<RoleAssignment, 'audit_trail_id' | 'update_audit_trail_id'>;

/**
 * The refusal of a row whose listed grant is not the one `held` now, or undefined. `svc`: the
 * run's command lines (Platform.svc), so that the lines its advice names act in the run's tenant
 * and profile (attack25a F1: a bare `svc roles assign … --extend` granted in the active profile's).
 */
export function anotherGrant(row: RevokeRow, held: Held | undefined, svc: CommandLine): Refusal | undefined {
  const now = held?.audit_trail_id;
  const listed = row.auditTrailId;
  // The held grant's own extension: its row names the PATCH's audit entry (or, from a server that
  // gives none, the grant's).
  const itsUpdate = listed !== undefined && listed !== now && listed === held?.update_audit_trail_id;
  const extension = row.extension ?? (itsUpdate ? {} : undefined);
  if (held && extension)
    return extended(row, held, extension, listed === undefined || listed === now || itsUpdate, svc);
  if (listed === undefined || !now || now === listed) return undefined;
  return {
    code: 'another_grant',
    message:
      `${row.user} holds ${row.role.name} under another grant than the one listed (the row's audit trail ${listed}, ` +
      `the grant held now ${now}: made since, or the row is of another tenant); not revoked: to revoke the grant held now, ` +
      'drop audit_trail_id from the row; to revoke the listed one, run in its tenant (--tenant)',
  };
}

/**
 * An `--extend` run's result row: `tied`, the grant held now is the one it extended (made before
 * that run); else the grant held now was changed again since, or is another.
 */
function extended(
  row: RevokeRow,
  held: Held,
  extension: Extension,
  tied: boolean,
  svc: CommandLine,
): Refusal {
  const grant = `${row.user}'s ${row.role.name} grant`;
  const since = held.audit_trail_id ? ` (audit trail ${held.audit_trail_id})` : '';
  const moved =
    extension.from !== undefined && extension.to !== undefined
      ? ` from ${extension.from ?? 'never'} to ${extension.to ?? 'never'}`
      : '';
  const what = tied
    ? `it moved the expiry of ${grant}${since}, made before that run${moved ? `,${moved}` : ''}; revoking would end that grant`
    : `it moved the expiry of a ${grant}${moved}${row.auditTrailId ? ` (its audit trail ${row.auditTrailId})` : ''}, and the one held now${since} was changed since or is another; revoking would end the grant held now`;
  const back =
    extension.from === undefined
      ? '--expires-at TIME (its expiry before that run)'
      : extension.from === null
        ? '--expires-in never'
        : `--expires-at ${shellWord(extension.from)}`;
  return {
    code: 'extension_row',
    message:
      `the row is the result row of an --extend run: ${what}, which is not the undo of an extension; not revoked: ` +
      `to put the expiry back, ${svc(`roles assign ${shellWord(row.user)} ${shellWord(row.role.name)} --extend ${back} --justification TEXT`)}; ` +
      `to end the grant, revoke the row of \`${svc(`roles assignments ${shellWord(row.user)} --ndjson`)}\``,
  };
}

/** The user's grant of the row's role in force now, read before a row that lists one is revoked. */
export async function grantHeldNow(
  platform: Platform,
  row: RevokeRow,
  signal: AbortSignal,
): Promise<RoleAssignment | undefined> {
  const { items } = await platform.roles.listAssignments(row.user, {}, { signal });
  return items.find((a) => a.role_id === row.role.id && assignmentInForce(a.status) === 'held');
}
