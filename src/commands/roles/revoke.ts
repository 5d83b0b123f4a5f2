import { Command, Option } from 'commander';
import { stopsSentence } from '../../api/webhook-stops.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { OutcomeUnknownError } from '../../http/errors.js';
import { forecastStops, sayStopped } from '../../platform/webhook-stops.js';
import { withBulkFlags } from '../bulk-flags.js';
import { changedIn, tenantChanged } from '../changed-in.js';
import {
  confirmDestructive,
  deleted,
  examples,
  type MakeContext,
  nonEmpty,
  tenantLabel,
  userArg,
} from '../kit.js';
import { chooseFrom } from '../pick.js';
import { verdict } from '../verdict.js';
import { type BulkFileOptions, parseFileBulkFlags, runBulkFile } from './bulk.js';
import { keysStop } from './held.js';
import {
  assignmentFields,
  namedNotFound,
  passMissing,
  type RoleRef,
  resolveRole,
  roleToGrant,
} from './shared.js';
import { parsedUnswapped, refuseSwapped } from './swapped.js';

export interface RolesRevokeOptions {
  user: string | undefined;
  role: string | undefined;
  bulk: BulkFileOptions | undefined;
}

export function parseRolesRevoke(
  user: unknown,
  role: unknown,
  flags: Record<string, unknown>,
): RolesRevokeOptions {
  const bulkFlags = parseFileBulkFlags(flags);
  if (flags.file !== undefined) {
    if (user !== undefined || role !== undefined)
      throw new UsageError('give USER and ROLE, or --file, not both');
    return {
      user: undefined,
      role: undefined,
      bulk: { file: nonEmpty('--file', flags.file), ...bulkFlags, defaults: {} },
    };
  }
  const given = {
    user: user === undefined ? undefined : userArg(user),
    role: role === undefined ? undefined : nonEmpty('ROLE', role),
  };
  refuseSwapped('revoke', given.user, given.role);
  return { ...given, bulk: undefined };
}

export async function runRolesRevoke(ctx: Context, options: RolesRevokeOptions): Promise<void> {
  if (options.bulk) return runBulkFile(ctx, 'revoke', options.bulk);
  const missing = [options.user === undefined ? 'USER' : '', options.role === undefined ? 'ROLE' : ''].filter(
    Boolean,
  );
  if (missing.length > 0 && !ctx.canPrompt) {
    throw new UsageError(`missing ${missing.join(' and ')}`, {
      hint: passMissing(missing),
    });
  }
  const platform = await ctx.platform();
  const user =
    options.user ??
    (
      await ctx.prompter.input('User id', {
        validate: (v) => (/^\S+$/.test(v.trim()) ? true : 'a user id, e.g. usr_analyst'),
      })
    ).trim();
  let role: RoleRef;
  if (options.role === undefined) {
    const roleId = await chooseFrom(ctx, 'Role to revoke', async () => {
      const held = (await platform.roles.listAssignments(user)).items;
      if (held.length === 0) throw new UsageError(`${user} holds no role in this tenant; nothing to revoke`);
      return held.map((a) => ({
        name: a.role_name,
        value: a.role_id,
        description: a.expires_at ? `until ${a.expires_at}` : 'permanent',
      }));
    });
    role = await resolveRole(platform, roleId);
  } else {
    role = await roleToGrant(platform, options.role);
  }
  // The webhooks the user owns that the revocation stops (attack29a F1): asked, then read back
  // (with --yes too: what was enabled before is what the run's words are read against).
  const stops = await forecastStops(platform, new Set([user]), (_u, id) => id === role.id);
  await confirmDestructive(
    ctx,
    async () => {
      // Giving up one's own grant (tenant_admin above all) is said so: it is asked only on a terminal.
      const own = (await platform.me.get()).id === user;
      const what = own ? `your own ${role.name} grant (${user})` : `${role.name} from ${user}`;
      return `Revoke ${what} in ${await tenantLabel(ctx)}?${stopsSentence(stops)}`;
    },
    `revoking ${role.name} from ${user}`,
  );
  const revoking = platform.roles.revoke(user, role.id).catch(async (error: unknown) => {
    if (error instanceof OutcomeUnknownError) {
      throw error.withHint(
        'run the same command again to find out: it is safe (a grant the lost attempt revoked is reported as not held)',
      );
    }
    throw await namedNotFound(platform, error, user);
  });
  const data = await deleted(ctx, revoking, {
    act: 'revoke',
    thing: 'the grant',
    done: 'revoked',
    subject: `${user} no longer holds ${role.name}${changedIn(ctx.settings())}`,
    target: { user_id: user, role_id: role.id, role_name: role.name },
    noun: 'assignment',
  });
  if (data === undefined) return;
  // The one verdict of every delete and revoke (verdict.ts); the assignment's fields stay at the top too.
  if (ctx.out.isMachine) {
    await sayStopped(platform, stops, (m) => ctx.out.warn(m));
    return ctx.out.json(verdict('revoked', 'assignment', data, data));
  }
  await ctx.out.record(data, assignmentFields(data, tenantChanged(ctx.settings())));
  // Nullable in the document: a server that sends null gets no clause, not "(audit trail null)".
  const audit = data.revocation_audit_trail_id ? ` (audit trail ${data.revocation_audit_trail_id})` : '';
  ctx.out.success(`revoked ${data.role_name} from ${data.user_id}${changedIn(ctx.settings())}${audit}`);
  await sayStopped(platform, stops, (m) => ctx.out.warn(m));
}

export function revokeCommand(make: MakeContext): Command {
  return withBulkFlags(
    new Command('revoke')
      .summary('Revoke a role from a user, or from many listed in a file')
      .description(
        'Revoke a role from a user in the tenant: the role stops granting access at once and the ' +
          `revocation is written to the audit trail. A revocation may stop API keys: ${keysStop()}. ` +
          "It also stops the webhooks the user owns whose kinds' read permission it takes away (they stay " +
          'stopped after the user regains it): the question, the dry run and the summary name them. ' +
          'Asks first on a terminal; needs --yes ' +
          'otherwise. A USER and ROLE named alone whose grant is not held is refused as the platform ' +
          'answers it (exit 5, not found): a grant revoked already and one never held look alike, so a ' +
          'script is not told of a revocation that may never have been; a file, which lists what should ' +
          'not be held, skips such a row instead (not_assigned, exit 0).\n\nWith --file, revokes every row (columns user and role; a grants file works' +
          ' too) of a CSV, NDJSON or JSON-array file, or of standard input (-), read as `svc roles assign --file` reads it (spreadsheet CSV included), checked as a whole first, ' +
          'journaled and resumable like `svc roles assign --file`. Rows whose role is not held are ' +
          'reported as skipped (not_assigned); a row whose revoke lost its answer and whose retry ' +
          'found the grant gone is ok (gone_after_lost_answer), never skipped. A resumed row the ' +
          'platform answers from its record of the earlier revocation (marked Idempotent-Replayed or another usual ' +
          'spelling; a server that marks none is taken at its word) is counted revoked only while the user ' +
          'does not hold the role again (one read of their grants): held again, it fails (changed_since, ' +
          'exit 7) and the same command revokes the grant held now; the revoked assignment itself still listed ' +
          '(a read that lags) is read again, then its outcome is unknown (not_shown_yet). Rows that revoke ' +
          'your own roles are made last, after every other row has finished (and not while an ' +
          'earlier row is still owed: own_row_deferred), so they cannot take away the power the ' +
          'others need; the dry run lists them last too. The question names them, as the single verb asks "your own" ' +
          'grant, and the dry run warns of them and marks each with a note. When GET /v1/me, which tells them ' +
          'apart, goes unanswered, nothing is revoked (exit 1; the dry run exits 1 not_checked): run it again. --dry-run plans a ' +
          'row the platform would refuse as fail, and exits 7: a role whose permissions you do not ' +
          "all hold (insufficient_permission), or the tenant's last tenant_admin (last_tenant_admin, " +
          'played over the live grants in file order, and tenant_admin rows are made one at a time in ' +
          'that order, whatever --concurrency (a file is of one tenant, whose last tenant_admin they ' +
          'guard), so the real run refuses the row the dry run said); a row whose check the server did not answer ' +
          '(5xx, no answer) is planned unknown, and the dry run exits 1.',
      )
      .argument('[user]', 'user id')
      .argument('[role]', 'role id or name')
      .addOption(
        new Option(
          '--file <file>',
          'revoke every row of a CSV, NDJSON or JSON-array file; - reads standard input (no rows there: nothing to do, exit 0; a CSV through a pipe whose last line has no line ending: refused, cut short?); at most 1,000,000 rows',
        ),
      ),
    '--file',
    'with --file: print what would be revoked, without changing anything',
  )
    .addHelpText(
      'after',
      examples(
        ['svc roles revoke usr_analyst tenant_admin', 'asks for confirmation on a terminal'],
        ['svc roles revoke usr_analyst fx-desk --yes', 'in a script'],
        ['svc roles revoke --file grants.csv --yes --ndjson', 'undo a bulk grant, one result line per row'],
        [
          'svc roles assignments --role fx-desk --ndjson | svc roles revoke --file - --yes',
          "every holder of a role: svc's own listing (and a bulk run's --ndjson results) is a file it reads",
        ],
      ),
    )
    .action(
      async (
        user: string | undefined,
        role: string | undefined,
        flags: Record<string, unknown>,
        cmd: Command,
      ) => {
        const options = await parsedUnswapped(make, cmd, () => parseRolesRevoke(user, role, flags));
        await runRolesRevoke(await make(cmd), options);
      },
    );
}
