import { type HeldGrant, heldUntil, missingPermissions } from '../../api/holds.js';
import { spreadAsTheyCame } from '../../api/numbers-as-they-came.js';
import { API_KEY_ROLES } from '../../api/permissions.js';
import { assignmentInForce, oddGrantStatus } from '../../api/roles.js';
import type { RoleAssignment } from '../../api/schemas/roles.js';
import { sameExpiry, sameInstant, serverTime } from '../../api/time.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { optionalLookup, readAfterChange } from '../../errors.js';
import { quoted, timeSpan } from '../../output/format.js';
import { sym } from '../../output/symbols.js';
import { AcceptedUnreadError, SelfAssignmentError } from '../../platform/errors.js';
import type { Platform } from '../../platform/index.js';
import { shellWord } from '../../system/shell-words.js';
import { changedIn, tenantChanged } from '../changed-in.js';
import { assignmentFields, type RoleRef } from './shared.js';

/** A grant of a role the user holds already: left as it is, or (--extend) its expiry moved. */

/** `until T`, or `permanently`: how long a grant lasts, in messages. */
export const until = (expiresAt: string | null | undefined) =>
  expiresAt ? `until ${expiresAt}` : 'permanently';

/**
 * The platform granted with another expiry than the one sent (a server that drops it: a
 * just-in-time grant become standing; attack18b 15): one line saying both, or undefined.
 */
export function expiryNotKept(sent: string | null, answered: string | null | undefined): string | undefined {
  const same =
    sent === null
      ? answered === null || answered === undefined // a server that leaves nulls out (review18b R7)
      : typeof answered === 'string' && sameInstant(answered, sent);
  if (same) return undefined;
  const asked = sent === null ? 'no expiry' : `an expiry at ${sent}`;
  const got =
    answered === null || answered === undefined
      ? 'the grant it answered with has none'
      : `it answered ${answered}`;
  return `the platform did not keep the expiry asked for: svc sent ${asked}, ${got}`;
}

/**
 * A grant answered with an `expires_at` that is neither none nor a time (`"usr_bulk_000029"`,
 * `"pending"`, `""`; attack27a F3): granted, but how long it lasts the answer does not say, so it
 * is never `✓ … until <text>`. The rule of a revocation's `revoked_at` that is not a time (platform/
 * delete-answer.ts): an answer svc cannot read, the outcome unknown (AcceptedUnreadError: exit 1,
 * a bulk row `unknown`, exit 7), with where to see the grant. Undefined for null, none or a time.
 */
export function expiryUnread(
  grant: { user: string; role: string; sent: string | null; answered: unknown; status?: number },
  /** Where the grant is seen (`see it with: svc roles assignments U`), the hint. */
  hint: string,
): AcceptedUnreadError | undefined {
  const { answered } = grant;
  if (answered === null || answered === undefined || Number.isFinite(serverTime(answered))) return undefined;
  const asked = grant.sent === null ? 'no expiry' : `an expiry at ${grant.sent}`;
  return new AcceptedUnreadError(
    `the platform granted ${grant.role} to ${grant.user}, but its answer's expires_at is not a time (${quoted(answered)}): how long the grant lasts is unknown (svc sent ${asked})`,
    { hint },
    grant.status ?? 201,
    false,
  );
}

/**
 * What moving an expiry from `previous` to `next` takes away, in words (`this shortens the grant
 * by 4 h`, `this makes a permanent grant end`), or undefined when it ends no sooner. --extend
 * sets the expiry given, sooner or later; its name promises later, so sooner is said.
 */
export function shortening(previous: string | null | undefined, next: string | null): string | undefined {
  if (previous === undefined || next === null) return undefined;
  if (previous === null) return 'this makes a permanent grant end';
  const by = serverTime(previous) - serverTime(next);
  if (!(by > 0)) return undefined;
  const span = timeSpan(by);
  return `this shortens the grant by ${span === '0 min' ? 'less than a minute' : span}`;
}

/**
 * What a permanent grant given an end, or a role revoked, may do to the user's API keys: the
 * platform's answer does not say which keys stop, so the words say what the rule is (help and
 * the --extend warning alike).
 */
export const keysStop = (who = 'the user') =>
  `API keys ${who} issued stop at once while they do not hold the key's role (tenant_viewer for a publishable, ` +
  'tenant_admin for a service-role key) without an end date, and act again once they do ' +
  "(`svc tenants api-keys ls --json` names each key's created_by)";

/** Why an --extend can shorten, after shortening()'s words. */
export const EXTEND_SETS = '--extend sets the expiry given, sooner or later';

/**
 * A role the user holds already: one outcome in single and bulk runs alike — already_assigned,
 * nothing changed, exit 0 — with the assignment in place (its expiry) and how to move it. Found so
 * by the retry of an attempt whose answer was lost, and nothing shows it is another's
 * (foundAfterLostAnswer, src/platform/found-after-lost.ts), it is most likely that attempt's grant:
 * said granted (bulk: found_after_lost_answer), never "nothing changed".
 */
export async function alreadyAssigned(
  ctx: Context,
  held: RoleAssignment | undefined,
  user: string,
  role: RoleRef,
  /** The lost answer, when the grant is most likely that attempt's (foundAfterLostAnswer). */
  lostAnswer?: string,
  /** A 2xx answered with this grant, and what shows it is not this request's (grantAnswerNotMade). */
  answered?: string,
): Promise<void> {
  const name = held?.role_name ?? role.name;
  const audit = held?.audit_trail_id ? ` (audit trail ${held.audit_trail_id})` : '';
  if (lostAnswer !== undefined) {
    // Not the attempt's own stored refusal, and the grant is the one it sent: most likely its own.
    if (held)
      await ctx.out.record(
        spreadAsTheyCame(held, { found_after_lost_answer: true }),
        assignmentFields(held, tenantChanged(ctx.settings())),
      );
    if (!ctx.out.isMachine) {
      ctx.out.success(
        `granted ${name} to ${user}${changedIn(ctx.settings())} ${until(held?.expires_at)}${audit}: most likely by this command's attempt whose answer was lost (${lostAnswer}); its retry found the grant in place`,
      );
    }
    return;
  }
  // Machines get the assignment in place marked, so nothing granted never reads as a fresh grant.
  if (held)
    await ctx.out.record(
      spreadAsTheyCame(held, { already_assigned: true }),
      assignmentFields(held, tenantChanged(ctx.settings())),
    );
  // Said by a 2xx (attack26b F6): its grant, who made it and why it is not this request's.
  const since = answered && held ? ` since ${held.assigned_at} by ${held.assigned_by}` : '';
  const why = answered ? ` (the server answered with that grant: ${answered})` : '';
  ctx.out.info(
    `skipped: already_assigned ${sym.dash} ${user} already holds ${name}${since} ${until(held?.expires_at)}${audit}; nothing changed${why}`,
  );
  ctx.out.info(
    `to move its expiry: ${svcCommand(ctx.settings(), `roles assign ${shellWord(user)} ${shellWord(name)} --extend --expires-in DURATION --justification TEXT`)}`,
  );
}

/** --extend on a role already held: its expiry moves to the one asked for, audited (PATCH). */
export async function moveExpiry(
  ctx: Context,
  user: string,
  role: RoleRef,
  change: {
    expires: string | null;
    justification: string /** where the expiry counts from, in words */;
    counted: string;
  },
  previous: RoleAssignment | undefined,
): Promise<void> {
  const platform = await ctx.platform();
  const data = await platform.roles.updateAssignment(user, role.id, {
    expires_at: change.expires,
    justification: change.justification,
  });
  const odd = oddGrantStatus(data.status);
  if (odd) ctx.out.warn(odd);
  const shorter = shortening(previous?.expires_at, data.expires_at);
  if (shorter) ctx.out.warn(`${shorter} (${EXTEND_SETS}; ${change.counted})`);
  // Read after the change (readAfterChange): cut short, the keys "may" stop, as when the grants
  // cannot be read.
  const keys =
    previous?.expires_at === null &&
    data.expires_at !== null &&
    (await readAfterChange(endsKeyHold(platform, user, data), true));
  if (keys) ctx.out.warn(`this may stop API keys: ${keysStop(user)}`);
  await ctx.out.record(data, assignmentFields(data, tenantChanged(ctx.settings())));
  if (ctx.out.isMachine) return;
  if (previous && sameExpiry(previous.expires_at, data.expires_at)) {
    ctx.out.info(`${user} already holds ${data.role_name} ${until(data.expires_at)}; nothing changed`);
    return;
  }
  const notes = [
    previous ? `was ${until(previous.expires_at)}` : '',
    data.update_audit_trail_id ? `audit trail ${data.update_audit_trail_id}` : '',
  ].filter(Boolean);
  const said = notes.length ? ` (${notes.join('; ')})` : '';
  ctx.out.success(
    `${user} holds ${data.role_name}${changedIn(ctx.settings())} ${until(data.expires_at)} now${said}`,
  );
}

/**
 * Whether a permanent grant given an end (`moved`, as the platform now holds it) ends the user's
 * hold of a key role without an end date — the platform's rule (src/api/holds.ts, as the sandbox's
 * keyStopped applies it): a key acts only while its issuer holds every permission of its role
 * (tenant_viewer, tenant_admin) without an end date, whichever roles carry them, custom ones too.
 * True as well when the user's grants or the roles cannot be read: the warning says "may".
 * `permissions`: each role's, by id, when the caller has them (a bulk run's roles) — else listed.
 */
export async function endsKeyHold(
  platform: Platform,
  user: string,
  moved: Pick<RoleAssignment, 'role_id' | 'expires_at'>,
  permissions?: ReadonlyMap<string, readonly string[]>,
): Promise<boolean> {
  const everyRole = async () => {
    const listed = new Map<string, readonly string[]>();
    for await (const r of platform.roles.listAll()) listed.set(r.id, r.permissions);
    return listed;
  };
  const [roles, held] = await Promise.all([
    permissions ?? optionalLookup(everyRole()),
    optionalLookup(platform.roles.listAssignments(user)),
  ]);
  if (!roles || !held) return true;
  return keyHoldEnds(roles, held.items, moved);
}

/**
 * endsKeyHold's rule over what is known: the user's assignments (`held`, the moved one as it was
 * or as it is) and each role's permissions by id. Before: the moved grant permanent; after: ending
 * at `moved.expires_at`. A dry run asks it of the assignments it read, before anything moved.
 */
export function keyHoldEnds(
  permissions: ReadonlyMap<string, readonly string[]>,
  held: readonly RoleAssignment[],
  moved: Pick<RoleAssignment, 'role_id' | 'expires_at'>,
): boolean {
  // A status svc does not know may be a hold that ends: it cannot tell, so keys may stop.
  if (held.some((a) => assignmentInForce(a.status) === 'unknown')) return true;
  const active = held.filter((a) => assignmentInForce(a.status) === 'held');
  const grants = (expiry: (a: RoleAssignment) => string | null): HeldGrant[] =>
    active.map((a) => ({ permissions: permissions.get(a.role_id) ?? [], expiresAt: expiry(a) }));
  const after = grants((a) => (a.role_id === moved.role_id ? moved.expires_at : a.expires_at));
  const before = grants((a) => (a.role_id === moved.role_id ? null : a.expires_at));
  const all = before.flatMap((g) => g.permissions);
  return Object.values(API_KEY_ROLES).some((keyRole) => {
    const needed = permissions.get(keyRole);
    if (needed === undefined) return true;
    return (
      missingPermissions(all, needed).length === 0 &&
      heldUntil(before, needed) === null &&
      heldUntil(after, needed) !== null
    );
  });
}

/**
 * `--extend` refused as a grant to oneself (self_assignment: the platform checks it before it
 * looks at who holds what): when the user holds the role, what was asked is a move of its expiry,
 * so the caller sends that instead and gets the platform's answer to it (its refusal in its own
 * words: "changes the expiry of their own roles"). The active assignment, or undefined when the
 * role is not held (or cannot be read): the grant's refusal then stands.
 */
export async function heldAfterSelfRefusal(
  platform: Platform,
  error: unknown,
  user: string,
  roleId: string,
  signal?: AbortSignal,
): Promise<RoleAssignment | undefined> {
  if (!(error instanceof SelfAssignmentError)) return undefined;
  const held = await optionalLookup(platform.roles.listAssignments(user, {}, { signal }));
  return held?.items.find((a) => a.role_id === roleId && assignmentInForce(a.status) === 'held');
}
