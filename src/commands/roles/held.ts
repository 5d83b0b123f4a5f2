import type { RoleAssignment } from '../../api/schemas/roles.js';
import type { Context } from '../../context.js';
import { assignmentFields, type RoleRef } from './shared.js';

/** A grant of a role the user holds already: left as it is, or (--extend) its expiry moved. */

/** `until T`, or `permanently`: how long a grant lasts, in messages. */
export const until = (expiresAt: string | null | undefined) =>
  expiresAt ? `until ${expiresAt}` : 'permanently';

/**
 * A role the user holds already: one outcome in single and bulk runs alike — already_assigned,
 * nothing changed, exit 0 — with the assignment in place (its expiry) and how to move it.
 */
export async function alreadyAssigned(
  ctx: Context,
  held: RoleAssignment | undefined,
  user: string,
  role: RoleRef,
): Promise<void> {
  // Machines get the assignment in place marked, so nothing granted never reads as a fresh grant.
  if (held) await ctx.out.record({ ...held, already_assigned: true }, assignmentFields(held));
  const name = held?.role_name ?? role.name;
  const audit = held?.audit_trail_id ? ` (audit trail ${held.audit_trail_id})` : '';
  ctx.out.info(
    `skipped: already_assigned — ${user} already holds ${name} ${until(held?.expires_at)}${audit}; nothing changed`,
  );
  ctx.out.info(
    `To move its expiry: svc roles assign ${user} ${name} --extend --expires-in DURATION --justification TEXT`,
  );
}

/** --extend on a role already held: its expiry moves to the one asked for, audited (PATCH). */
export async function moveExpiry(
  ctx: Context,
  user: string,
  role: RoleRef,
  change: { expires: string | null; justification: string },
  previous: RoleAssignment | undefined,
): Promise<void> {
  const platform = await ctx.platform();
  const data = await platform.roles.updateAssignment(user, role.id, {
    expires_at: change.expires,
    justification: change.justification,
  });
  await ctx.out.record(data, assignmentFields(data));
  if (ctx.out.isMachine) return;
  if (previous && previous.expires_at === data.expires_at) {
    ctx.out.info(`${user} already holds ${data.role_name} ${until(data.expires_at)}; nothing changed`);
    return;
  }
  const notes = [
    previous ? `was ${until(previous.expires_at)}` : '',
    data.update_audit_trail_id ? `audit trail ${data.update_audit_trail_id}` : '',
  ].filter(Boolean);
  const said = notes.length ? ` (${notes.join('; ')})` : '';
  ctx.out.success(`${user} holds ${data.role_name} ${until(data.expires_at)} now${said}`);
}
