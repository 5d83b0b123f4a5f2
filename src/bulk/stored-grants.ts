/**
 * A bulk grant or revocation (a `roles assign/revoke --file` row, an `apply` step) the platform
 * answered from its record of an earlier request of its key (`Idempotent-Replayed`: the run this
 * one resumes, or an attempt whose answer was lost): that answer tells of the change as it was
 * made then. Before the item is counted, one read of the user's assignments says whether it is
 * still so (review19d F5: "✓ 2 revoked" of users who held the role again). Only such items are
 * read; a fresh answer is the change made now. The grants' verbs share it, so it lives here.
 * A read that does not show the change yet is read again through a lag (review20 F6); a grant held
 * is reported with the expiry held now (review20 F1).
 */
import { assignmentInForce, unknownStatusWords } from '../api/roles.js';
import type { RoleAssignment } from '../api/schemas/roles.js';
import { sameExpiry, serverTime } from '../api/time.js';
import { SvcError } from '../errors.js';
import type { Platform } from '../platform/index.js';
import type { Sleep } from '../system/clock.js';
import { LAGGING_READ_WAITS_MS, readThroughLag } from '../system/lagging-reads.js';
import { shellWord } from '../system/shell-words.js';
import { CheckStoppedError, ItemError, NotShownYetError, storedBy, UndoneSinceError } from './judge.js';

/** The grant: its user, and its role's id and name. */
interface Grant {
  user: string;
  role: { id: string; name: string };
}

/**
 * What the stored answer was, and how it came (WorkCall.resumed, the response's afterLostAnswer);
 * the signal and tenant the read goes with, and the run's waits (`sleep`) between reads again.
 */
interface Stored {
  resumed: boolean;
  afterLostAnswer: boolean;
  signal: AbortSignal;
  sleep: Sleep;
  tenant?: string;
}

/**
 * The command that lists the row's user's assignments: it keeps the run's target (-p, --base-url),
 * and the read's tenant when it is not the run's (apply).
 */
function lookCommand(platform: Platform, row: Grant, { tenant }: Stored): string {
  const look = `roles assignments ${shellWord(row.user)}`;
  return tenant === undefined
    ? platform.svc(look)
    : platform.svcAnyTenant(`--tenant ${shellWord(tenant)} ${look}`);
}

/**
 * `assignmentNow` read until `shown` says the change shows, again after each of the lag's waits
 * (readThroughLag); still not shown: NotShownYetError, saying `what` is not shown, an unknown outcome.
 */
async function readUntilShown(
  platform: Platform,
  row: Grant,
  then: string,
  stored: Stored,
  shown: (now: Awaited<ReturnType<typeof assignmentNow>>) => boolean,
  what: string,
  ended?: { auditTrailId: string | undefined },
): Promise<Awaited<ReturnType<typeof assignmentNow>>> {
  const now = await readThroughLag(
    { clock: { sleep: stored.sleep }, signal: stored.signal },
    true,
    async () => {
      const read = await assignmentNow(platform, row, then, stored, ended);
      return shown(read) ? read : undefined;
    },
  );
  if (now !== undefined) return now;
  throw new NotShownYetError(
    `${then}, but after ${LAGGING_READ_WAITS_MS.length + 1} reads ${what}: a read that lags behind the change (a server's reads may), or it was changed since; svc cannot tell`,
    `run the same command again to check it again (the same key is answered the same), or check it with ${lookCommand(platform, row, stored)}`,
  );
}

/** `at T`, or nothing when the server gave no time. */
const at = (time: string | null | undefined) => (time ? ` at ${time}` : '');

/**
 * The row's user's assignments of its role now: the one held, if any, else (`ended`: the ended ones
 * listed too) the one the stored answer made (its audit trail id), or the last listed. A status word
 * svc does not know is neither: the row could not be checked (`then` says what the stored answer
 * told; the same command reads it again, the same key answered the same).
 */
async function assignmentNow(
  platform: Platform,
  row: Grant,
  then: string,
  stored: Stored,
  ended?: { auditTrailId: string | undefined },
): Promise<{ held?: RoleAssignment; ended?: RoleAssignment }> {
  let ofRole: RoleAssignment[];
  try {
    const query = ended ? { include_inactive: true } : {};
    const { signal, tenant } = stored;
    const listed = await platform.roles.listAssignments(row.user, query, {
      signal,
      ...(tenant === undefined ? {} : { tenant }),
    });
    ofRole = listed.items.filter((a) => a.role_id === row.role.id);
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    const message = `${then}, but whether it is still so could not be read: ${error.message}`;
    const hint = 'run the same command again to check it again';
    // Stopped before the read was sent: the change is made, whether it is still so unknown.
    if (error.category === 'interrupted') throw new CheckStoppedError(message, hint);
    throw new ItemError(error.category, message, { code: error.code ?? error.category, hint });
  }
  const held = ofRole.find((a) => assignmentInForce(a.status) === 'held');
  if (held) return { held };
  const odd = ofRole.find((a) => assignmentInForce(a.status) === 'unknown');
  if (odd) {
    throw new ItemError(
      'failure',
      `${then}, but ${unknownStatusWords(`${row.user}'s`, row.role.name, odd.status)}`,
      { code: 'unknown_status', hint: `check it with ${lookCommand(platform, row, stored)}` },
    );
  }
  const made = ofRole.find(
    (a) => ended?.auditTrailId !== undefined && a.audit_trail_id === ended.auditTrailId,
  );
  return { ended: made ?? ofRole.at(-1) };
}

/**
 * Is the held assignment the one the stored revocation revoked, still listed (a read behind the
 * revocation)? By its audit trail id when both carry one; else by time: granted not after the
 * revocation. undefined when neither tells.
 */
function theRevokedOne(held: RoleAssignment, revoked: Revoked): boolean | undefined {
  if (revoked.audit_trail_id && held.audit_trail_id) return held.audit_trail_id === revoked.audit_trail_id;
  // As every server time (serverTime): a zone-less one is UTC, never the machine's zone.
  const grantedAt = serverTime(held.assigned_at);
  const revokedAt = serverTime(revoked.revoked_at);
  if (Number.isNaN(grantedAt) || Number.isNaN(revokedAt)) return undefined;
  return grantedAt <= revokedAt;
}

/** What a stored revocation answered: when, and the audit trail id of the assignment it revoked. */
interface Revoked {
  revoked_at?: string | null;
  audit_trail_id?: string | null;
}

/**
 * A revocation answered from the record: counted revoked only while the user does not hold the
 * role again (another admin's grant since, a scheduled grant). Held again (an assignment granted
 * after the revocation): UndoneSinceError, the row failed (exit 7), and the same command sends a
 * new key, which revokes the grant held now. The revoked assignment itself still listed held is a
 * read that lags (review20 F6): read again through the waits, then NotShownYetError (unknown);
 * so is one that cannot be told apart after this run's own lost answer.
 */
export async function checkStoredRevocation(
  platform: Platform,
  row: Grant,
  revoked: Revoked,
  stored: Stored,
): Promise<void> {
  const then = `revoked ${storedBy(stored.resumed, stored.afterLostAnswer)}${at(revoked.revoked_at)} (the platform answered with its record of it)`;
  const stale = (held: RoleAssignment) => theRevokedOne(held, revoked) ?? stored.afterLostAnswer;
  const { held } = await readUntilShown(
    platform,
    row,
    then,
    stored,
    (now) => now.held === undefined || !stale(now.held),
    `the platform still lists ${row.user}'s ${row.role.name} held, and not as a grant made after the revocation`,
  );
  if (held === undefined) return;
  throw new UndoneSinceError(
    `${then}, but ${row.user} holds ${row.role.name} again, granted${at(held.assigned_at)}: not revoked now`,
    'if it should not hold it, run the same command again: it revokes the grant held now (a new request)',
  );
}

/** What a stored grant answered. */
interface Made {
  assigned_at?: string | null;
  expires_at?: string | null;
  audit_trail_id?: string;
}

/** `until T`, or `with no end`. */
const until = (time: string | null | undefined) => (time ? `until ${time}` : 'with no end');

/**
 * A grant answered from the record: counted granted only while the user holds the role, and with
 * the expiry held now (review20 F1). Revoked or ended since: UndoneSinceError, the row failed
 * (exit 7), and the same command sends a new key, which grants it anew. Not listed at all is a read
 * that may lag (review20 F6; a resumed run's grant too, review20c F10): read again through the
 * waits, then NotShownYetError (unknown). `extendTo` (--extend: the row's expiry): a held expiry other than
 * it is changed since too (the same command extends it anew). Returns the row's details: the
 * expiry held now, and, when it is not the stored one, that it was changed since.
 */
export async function checkStoredGrant(
  platform: Platform,
  row: Grant,
  made: Made,
  stored: Stored,
  extendTo?: string | null,
): Promise<{
  expires_at: string | null;
  reason?: string;
  granted_expires_at?: string | null;
  note?: string;
}> {
  const then = `granted ${storedBy(stored.resumed, stored.afterLostAnswer)}${at(made.assigned_at)} (the platform answered with its record of it)`;
  // The grant made, listed ended: by its audit trail id when the answer carries one.
  const madeEnded = (a: RoleAssignment | undefined) =>
    a !== undefined && (made.audit_trail_id === undefined || a.audit_trail_id === made.audit_trail_id);
  const { held, ended } = await readUntilShown(
    platform,
    row,
    then,
    stored,
    // Not listed at all is a read that may lag, whoever made the grant: this run's lost answer or
    // the earlier run it resumes, seconds ago (review20c F10); read again through the waits.
    (now) => now.held !== undefined || madeEnded(now.ended),
    `the platform does not list ${row.user}'s ${row.role.name} granted`,
    { auditTrailId: made.audit_trail_id },
  );
  if (held !== undefined) {
    const now = held.expires_at ?? null;
    if (extendTo !== undefined && !sameExpiry(now, extendTo))
      throw new UndoneSinceError(
        `${then}, but its expiry was changed since: ${row.user} holds ${row.role.name} ${until(now)}, not ${until(extendTo)}`,
        'if it should end as the file says, run the same command again: it extends it anew (a new request)',
      );
    if (made.expires_at === undefined || sameExpiry(now, made.expires_at ?? null)) return { expires_at: now };
    return {
      expires_at: now,
      reason: 'expiry_changed_since',
      granted_expires_at: made.expires_at ?? null,
      note: `granted ${until(made.expires_at)}, and its expiry was changed since: held ${until(now)} now`,
    };
  }
  const how =
    ended === undefined
      ? 'the platform lists no assignment of it'
      : ended.revoked_at
        ? `it was revoked at ${ended.revoked_at}`
        : `its assignment is ${String(ended.status)}`;
  throw new UndoneSinceError(
    `${then}, but ${how}: ${row.user} does not hold ${row.role.name} now`,
    'if it should hold it, run the same command again: it grants it anew (a new request)',
  );
}
