import { Command } from 'commander';
import { stopsSentence, type WebhookStops } from '../../api/webhook-stops.js';
import type { Context } from '../../context.js';
import { counted } from '../../output/format.js';
import { forecastStops, sayStopped } from '../../platform/webhook-stops.js';
import { alreadyGone } from '../already-gone.js';
import { changedIn } from '../changed-in.js';
import { confirmDestructive, deleted, examples, type MakeContext, nonEmpty, tenantLabel } from '../kit.js';
import { verdict } from '../verdict.js';
import { countHolders, holdersSay, resolveRole } from './shared.js';

export interface RolesDeleteOptions {
  role: string;
}

export function parseRolesDelete(role: unknown): RolesDeleteOptions {
  return { role: nonEmpty('ROLE', role) };
}

export async function runRolesDelete(ctx: Context, options: RolesDeleteOptions): Promise<void> {
  const platform = await ctx.platform();
  const role = await resolveRole(platform, options.role);
  // Deleted already (read by id, or by the name it had): the platform's DELETE would refuse it
  // (409 role_deleted); nothing is asked or sent, as of a record or a key gone already.
  if (role.deleted_at) {
    return alreadyGone(ctx, {
      thing: `role ${role.name} (${role.id})${changedIn(ctx.settings())}`,
      done: 'deleted',
      at: role.deleted_at,
      json: verdict('already_deleted', 'role', role, role),
    });
  }
  // A built-in role goes straight to the server, whose refusal (builtin_role_immutable) is the answer.
  let holders: number | undefined;
  let stops: WebhookStops | undefined;
  if (role.kind === 'custom') {
    holders = await countHolders(platform, role.id);
    // The webhooks its holders own that losing it stops (attack29a F1): asked, then read back.
    stops = holders === 0 ? undefined : await forecastStops(platform, 'any', (_u, id) => id === role.id);
    const who =
      holders === undefined
        ? 'Users holding it lose it at once.'
        : holders === 0
          ? 'Nobody holds it.'
          : `${counted(holders, 'user holds it and loses', 'users hold it and lose')} it at once.`;
    await confirmDestructive(
      ctx,
      async () =>
        `Delete the custom role ${role.name} (${role.id}) in ${await tenantLabel(ctx)}? ${who}${stopsSentence(stops)}`,
      `deleting role ${role.name}`,
    );
  }
  const data = await deleted(ctx, platform.roles.delete(role.id), {
    act: 'delete',
    thing: 'the role',
    done: 'deleted',
    subject: `role ${role.name} (${role.id})${changedIn(ctx.settings())} is gone`,
    target: { id: role.id, name: role.name },
    noun: 'role',
  });
  if (data === undefined) return;
  // The one verdict (verdict.ts); the answer's fields (the role, `revoked_assignments`) stay at the top too.
  if (ctx.out.isMachine) {
    await sayStopped(platform, stops, (m) => ctx.out.warn(m));
    return ctx.out.json(verdict('deleted', 'role', data, data));
  }
  ctx.out.success(
    `deleted role ${data.name} (${data.id})${changedIn(ctx.settings())}${lostBy(data, holders)}`,
  );
  await sayStopped(platform, stops, (m) => ctx.out.warn(m));
}

/**
 * Who lost the role, said only as known (attack24b F2): the delete's own count when its answer
 * gives one (the sandbox's `revoked_assignments`; the reference shows no body); otherwise the
 * count read before the delete, said as that, for grants and revokes may have come in between.
 */
function lostBy(answer: object, before: number | undefined): string {
  const revoked = (answer as { revoked_assignments?: unknown }).revoked_assignments;
  if (typeof revoked === 'number' && Number.isSafeInteger(revoked) && revoked >= 0) {
    return holdersSay(revoked, { none: 'nobody held it', some: (its) => `${its} lost it` });
  }
  if (before === undefined) return '';
  const held = before === 0 ? 'nobody held it' : `${counted(before, 'user')} held it`;
  return `; ${held} when svc looked before deleting it (the platform's answer does not say how many lost it)`;
}

export function deleteCommand(make: MakeContext): Command {
  return new Command('delete')
    .alias('rm')
    .summary('Delete a custom role')
    .description(
      'Soft-delete a custom role: it disappears from lists and stops granting access at once; ' +
        'the record stays (with deleted_at) for the audit trail. Asks first on a terminal, saying how ' +
        'many users hold it, in which tenant, and the webhooks they own that losing it stops; needs --yes otherwise. A role deleted already (by id, ' +
        'or by the name it had) is left as it is: "nothing changed", exit 0, nothing asked. With --json: ' +
        'svc\'s verdict, {"outcome": "deleted" | "already_deleted" | "gone_after_lost_answer", "role": {…}} ' +
        "(the role's fields also at the top, as before).",
    )
    .argument('<role>', 'role id or name')
    .addHelpText(
      'after',
      examples(
        ['svc roles delete fx-desk', 'asks for confirmation on a terminal'],
        ['svc roles delete role_0123456789abcdef01234567 --yes', 'in a script'],
      ),
    )
    .action(async (role: string, _flags: unknown, cmd: Command) => {
      const options = parseRolesDelete(role);
      await runRolesDelete(await make(cmd), options);
    });
}
