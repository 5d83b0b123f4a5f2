import { Command, Option } from 'commander';
import { AUDIT_PAGE, AUDIT_TARGET_TYPES } from '../../api/audit.js';
import type { AuditTrailEntry, AuditTrailListQuery } from '../../api/schemas/audit.js';
import { commandLine, svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { lookupMayFail, UsageError } from '../../errors.js';
import { PermissionDeniedError } from '../../http/errors.js';
import { idInWords } from '../../http/path.js';
import { quoted } from '../../output/format.js';
import { lookForUser, TenantForbiddenError } from '../../platform/errors.js';
import type { Platform } from '../../platform/index.js';
import { choiceFlag, examples, idFlag, type MakeContext, nonEmpty } from '../kit.js';
import {
  DEFAULT_LIMIT,
  flagWords,
  Listing,
  type ListingOptions,
  listingOptions,
  parseListing,
} from '../listing.js';
import { resolveTimes } from '../platform-clock.js';
import { type TimeFlags, timeFlags } from '../time-flags.js';
import { type AuditRole, auditRoles } from './roles.js';
import { AUDIT_COLUMNS } from './shared.js';

/** --since/--until: a duration counts back from the platform's clock, learnt when the command runs. */
export interface AuditLsOptions extends ListingOptions, TimeFlags {
  query: Omit<AuditTrailListQuery, 'cursor' | 'limit' | 'since' | 'until'>;
  /** Role by id or name: resolved to its id before the query is sent. */
  role: string | undefined;
}

export function parseAuditLs(flags: Record<string, unknown>): AuditLsOptions {
  const text = (flag: string, raw: unknown) => (raw === undefined ? undefined : nonEmpty(flag, raw));
  const times = timeFlags(flags);
  const action = text('--action', flags.action);
  if (action !== undefined && !/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$/.test(action)) {
    throw new UsageError(`--action ${quoted(action)} is not an action (role.assigned) or a family (role)`);
  }
  const query: AuditLsOptions['query'] = {
    order: flags.oldestFirst === true ? 'asc' : 'desc',
    ...(action ? { action } : {}),
    ...(flags.actor === undefined
      ? {}
      : { actor: idFlag('--actor', flags.actor, 'a user id or an API key id') }),
    ...(flags.user === undefined ? {} : { user_id: idFlag('--user', flags.user, idInWords('user')) }),
    ...(flags.targetType === undefined
      ? {}
      : { target_type: choiceFlag('--target-type', flags.targetType, AUDIT_TARGET_TYPES) }),
    ...(flags.target === undefined ? {} : { target_id: idFlag('--target', flags.target, 'an object id') }),
  };
  return { ...parseListing(flags), query, ...times, role: text('--role', flags.role) };
}

export async function runAuditLs(ctx: Context, options: AuditLsOptions): Promise<void> {
  const platform = await ctx.platform();
  let roleId: string | undefined;
  if (options.role !== undefined) {
    // A custom role is named by id in the trail; its name is resolved first (built-in ids are their names).
    const [role, ...others] = await auditRoles(platform, options.role);
    roleId = role!.id;
    if (others.length > 0) noteOtherRoles(ctx, options.role, role!, others);
  }
  const query = {
    ...options.query,
    ...(roleId ? { role_id: roleId } : {}),
    ...(await timeFilters(ctx, platform, options)),
  };
  const listing = new Listing<AuditTrailEntry>(options, AUDIT_PAGE.max);
  const entries = listing.items((page) => platform.audit.list({ ...query, ...page }));
  const count = await ctx.out.list(entries, AUDIT_COLUMNS, { empty: 'no audit-trail entries match' });
  listing.hintMore(ctx, svcCommand(ctx.settings(), `audit ls${continuation(query)}`));
  if (count === 0) await noteUnknownUsers(ctx, platform, query);
}

/**
 * --role NAME filters on one role, but a name is free again once its role is deleted: say which
 * role is covered and how to see the others' entries, rather than leave them out unsaid.
 */
function noteOtherRoles(ctx: Context, name: string, role: AuditRole, others: AuditRole[]): void {
  const state = (r: AuditRole) =>
    r.deleted_at === null ? 'live' : r.deleted_at === undefined ? 'deleted' : `deleted ${r.deleted_at}`;
  const also = others.map((r) => `${r.id} (${state(r)})`).join(', ');
  const flags = others.map((r) => `--role ${r.id}`).join(' or ');
  ctx.out.warn(
    `--role ${name} covers ${role.id} (${state(role)}); ${name} was also the name of ${also}: ${flags} for ${others.length > 1 ? 'their' : 'its'} entries`,
  );
}

/** --since/--until as instants: entries are timed on the platform's clock (resolveTimes). */
async function timeFilters(
  ctx: Context,
  platform: Platform,
  options: TimeFlags,
): Promise<Pick<AuditTrailListQuery, 'since' | 'until'>> {
  const { since, until } = await resolveTimes(ctx, platform, options);
  return { ...(since ? { since } : {}), ...(until ? { until } : {}) };
}

/**
 * --user or --actor matched nothing: a typo in the id reads like a user whose roles never changed
 * (or who changed nothing), so say when the id is no user of the tenant. Only a note (exit 0): a
 * deleted user's history is still in the trail, and an actor may be an API key or an OAuth client
 * (their own ids, which svc does not look up: the note says so). A caller who may not list users
 * (tenant_auditor) is told the id went unchecked. One lookup for both flags (brief paging22 4:
 * --actor had no note).
 */
async function noteUnknownUsers(ctx: Context, platform: Platform, query: AuditTrailListQuery): Promise<void> {
  const named = [
    ...(query.user_id === undefined ? [] : [{ id: query.user_id, other: '' }]),
    ...(query.actor === undefined
      ? []
      : [
          {
            id: query.actor,
            other: ' (an actor may also be an API key or an OAuth client, by an id svc did not look up)',
          },
        ]),
  ];
  if (named.length === 0) return;
  let users: Set<string>;
  try {
    users = await platform.users.existing([...new Set(named.map((n) => n.id))]);
  } catch (error) {
    if (!lookupMayFail(error)) throw error;
    const why =
      error instanceof PermissionDeniedError && !(error instanceof TenantForbiddenError)
        ? 'listing users needs role.read'
        : 'the users could not be read';
    for (const { id, other } of named) {
      ctx.out.warn(
        `no entries, and svc could not check that ${id} is a user of this tenant (${why})${other}; check the id`,
      );
    }
    return;
  }
  for (const { id, other } of named) {
    if (users.has(id)) continue;
    const look = lookForUser(id)(commandLine(ctx.settings()));
    ctx.out.warn(`no entries, and ${id} is not a user of this tenant${other}; ${look}`);
  }
}

/**
 * The filters of `query` as flags, for the command that continues a listing: a cursor is bound to
 * the filters that produced it, so times are the resolved instants (not `7d`, which moves) and a
 * role its id.
 */
function continuation(query: AuditTrailListQuery): string {
  const filters = flagWords([
    ['--action', query.action],
    ['--actor', query.actor],
    ['--user', query.user_id],
    ['--role', query.role_id],
    ['--target-type', query.target_type],
    ['--target', query.target_id],
    ['--since', query.since],
    ['--until', query.until],
  ]);
  return `${filters}${query.order === 'asc' ? ' --oldest-first' : ''}`;
}

export function lsCommand(make: MakeContext): Command {
  const command = new Command('ls')
    .alias('list')
    .summary('List audit-trail entries, newest first, with filters')
    .description(
      "The tenant's audit trail: every role grant, expiry change and revocation, custom-role change,\n" +
        'API key issued or revoked, and webhook or OAuth client created, changed, re-keyed or deleted —\n' +
        'who did it, when, and in which request. Newest first (--oldest-first to reverse); without --all,\n' +
        `the first ${DEFAULT_LIMIT} (or --limit) are printed and where to continue is shown on stderr.\n` +
        'Columns: id, at, action, actor, summary, justification, request, client (the OAuth client a\n' +
        'change was made through: svc-cli for svc login, empty for a JWT or an API key), change (what\n' +
        "it did: a role's permissions +added -removed, a webhook's or OAuth client's fields\n" +
        'old → new, secrets masked; --json has them as before, after, permissions_added/_removed).\n' +
        'Needs audit_trail.read (tenant_auditor, tenant_admin).',
    );
  for (const option of listingOptions('entries')) command.addOption(option);
  return command
    .addOption(
      new Option(
        '--action <action>',
        'an action (role.assigned) or a family (role, api_key, webhook, oauth_client)',
      ),
    )
    .addOption(new Option('--actor <id>', 'who made the change (a user id or an API key id)'))
    .addOption(new Option('--user <id>', 'changes to this user’s roles'))
    .addOption(
      new Option(
        '--role <role>',
        'changes involving this role (id or name; a name several roles have had: one, the others named on stderr)',
      ),
    )
    .addOption(
      new Option('--target <id>', 'changes to this object (a webhook, client, key, role or user id)'),
    )
    .addOption(
      new Option('--target-type <type>', 'changes to this kind of object').choices(AUDIT_TARGET_TYPES),
    )
    .addOption(
      new Option(
        '--since <time>',
        "at or after: ISO 8601 with a zone (2026-01-15T09:30:00Z), a date (00:00Z), or 30m, 2h, 7d ago on the platform's clock",
      ),
    )
    .addOption(
      new Option('--until <time>', 'before: ISO 8601 with a zone, a date (00:00Z), or a duration ago'),
    )
    .addOption(new Option('--oldest-first', 'oldest first'))
    .addHelpText(
      'after',
      examples(
        ['svc audit ls', 'the 50 newest entries'],
        ['svc audit ls --user usr_analyst --since 7d', "a week of changes to usr_analyst's roles"],
        ['svc audit ls --action webhook --all --ndjson', 'every webhook change, one JSON object per line'],
        ['svc audit ls --action role.updated --since 7d', 'which permissions roles gained or lost this week'],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const ctx = await make(cmd);
      await runAuditLs(ctx, parseAuditLs(flags));
    });
}
