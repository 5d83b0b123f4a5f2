import { Option } from 'commander';
import type { RoleAssignment } from '../../api/schemas/roles.js';
import type { Context } from '../../context.js';
import type { Column } from '../../output/output.js';
import type { Platform } from '../../platform/index.js';
import { Listing, type ListingOptions, listingOptions, parseListing } from '../listing.js';

/**
 * The list flags of `roles assignments` and `roles holders`: `--limit`, `--cursor` and `--all`
 * as on every list, and `--include-ended` for expired, revoked and role-deleted assignments
 * (which `--all` meant on these two verbs until s8).
 */
export interface AssignmentListingOptions extends ListingOptions {
  /** undefined: not said (the default, the ones in force; --all then notes its old meaning). */
  includeEnded: boolean | undefined;
}

/** The largest page of GET /v1/role-assignments. */
const ASSIGNMENT_PAGE_MAX = 500;

export function parseAssignmentListing(flags: Record<string, unknown>): AssignmentListingOptions {
  return {
    ...parseListing(flags),
    includeEnded: typeof flags.includeEnded === 'boolean' ? flags.includeEnded : undefined,
  };
}

export function assignmentListingOptions(): Option[] {
  return [
    ...listingOptions('assignments'),
    new Option('--include-ended', 'include expired, revoked and role-deleted assignments (see status)'),
    new Option('--no-include-ended', 'only the assignments in force (the default; with --all, no note)'),
  ];
}

/**
 * `--all` meant "include the ended ones" on these verbs: someone who still means that is told,
 * on stderr, for one release (then this goes). --no-include-ended says which rows are meant (the
 * same rows): no note then, so a pipeline that reads every page is not told so on every run.
 */
export function noteAllMeaning(ctx: Context, options: AssignmentListingOptions): void {
  if (options.all && options.includeEnded === undefined) {
    ctx.out.warn(
      '--all reads every page, as on every list; expired, revoked and role-deleted assignments are shown with --include-ended (--no-include-ended: the ones in force, without this note)',
    );
  }
}

export const inactiveQuery = (options: AssignmentListingOptions) =>
  options.includeEnded ? { include_inactive: true } : {};

/**
 * The tenant's assignments matching `filter` (a role's, a user's), within the listing's bounds,
 * then where to continue: `command` is the command line that gave them, whose filters the
 * cursor is bound to.
 */
export async function listTenantAssignments(
  ctx: Context,
  platform: Platform,
  options: AssignmentListingOptions,
  filter: { role_id?: string; user_id?: string },
  output: { columns: Array<Column<RoleAssignment>>; empty: string; command: string },
): Promise<void> {
  const listing = new Listing<RoleAssignment>(options, ASSIGNMENT_PAGE_MAX);
  const rows = listing.items((page) =>
    platform.roles.listTenantAssignments({ ...filter, ...inactiveQuery(options), ...page }),
  );
  await ctx.out.list(rows, output.columns, { empty: output.empty });
  listing.hintMore(ctx, `${output.command}${options.includeEnded ? ' --include-ended' : ''}`);
}
