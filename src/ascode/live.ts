import { assignmentInForce } from '../api/roles.js';
import type { OAuthClient } from '../api/schemas/oauth.js';
import type { Role } from '../api/schemas/roles.js';
import type { Webhook } from '../api/schemas/webhooks.js';
import { SvcError } from '../errors.js';
import { someNames } from '../output/format.js';
import type { Platform } from '../platform/index.js';
import { grantKey } from './model.js';

/**
 * The live state of the tenants a plan covers, read through the platform client in bulk:
 * tenant-wide listings (every assignment of a tenant in pages of 500, not one request per user
 * or grant), a few tenants at a time. Grants are kept small (a 100,000-grant estate is held in
 * tens of megabytes).
 */

export interface TenantInfo {
  id: string;
  slug: string;
  display_name: string;
  /** The caller's highest role there. */
  role: string;
}

export interface LiveGrant {
  user: string;
  roleId: string;
  roleName: string;
  expiresAt: string | null;
  justification: string | null;
}

export interface LiveTenant {
  tenant: TenantInfo;
  /** Every live role of the tenant by name, built-in and custom. */
  roles: Map<string, Role>;
  /** Active grants by `user role-name`. */
  grants: Map<string, LiveGrant>;
  webhooks: Webhook[];
  clients: OAuthClient[];
  /**
   * Custom roles the platform shows no description of, even in their own record (the reference
   * shows only id and name): their descriptions are not compared, and export writes none.
   */
  undescribed: string[];
}

/** Tenants read at the same time (each with its four listings in parallel). */
export const TENANTS_AT_ONCE = 4;

/**
 * Which of the integrations are read: only those a file declares or manages (a plan's scope, an
 * export's --only), so a delegated admin who may assign roles but not read OAuth clients (which
 * takes oauth_client.manage) can plan and apply a grants-only file. Roles and grants are always
 * read: a grant names its role.
 */
export interface Reads {
  webhooks: boolean;
  clients: boolean;
}

export const READ_ALL: Reads = { webhooks: true, clients: true };

export async function readLive(
  platform: Platform,
  tenants: readonly TenantInfo[],
  signal: AbortSignal,
  reads: Reads | ((tenant: TenantInfo) => Reads) = READ_ALL,
): Promise<Map<string, LiveTenant>> {
  const out = new Map<string, LiveTenant>();
  await eachLimited(tenants, TENANTS_AT_ONCE, async (tenant) => {
    out.set(
      tenant.id,
      await readTenant(platform, tenant, signal, typeof reads === 'function' ? reads(tenant) : reads),
    );
  });
  return new Map(tenants.map((t) => [t.id, out.get(t.id)!]));
}

async function readTenant(
  platform: Platform,
  tenant: TenantInfo,
  signal: AbortSignal,
  reads: Reads,
): Promise<LiveTenant> {
  const options = { tenant: tenant.id, signal };
  const [roles, grants, webhooks, clients] = await Promise.all([
    collect(platform.roles.listAll({ limit: 200 }, options)),
    readGrants(platform, tenant, options),
    reads.webhooks ? collect(platform.webhooks.listAll({ limit: 200 }, options)) : [],
    reads.clients ? platform.oauth.clients.list(options).then((page) => page.items) : [],
  ]);
  // A listing as thin as the reference allows (id and name) is completed from each role's own
  // record; what even that lacks is refused, never taken as "built-in" or "unchanged".
  const live = roles.filter((role) => !role.deleted_at);
  const full = new Map<Role, Role>();
  await eachLimited(live.filter(thinRole), TENANTS_AT_ONCE, async (role) => {
    full.set(role, { ...role, ...(await platform.roles.get(role.id, options)) });
  });
  const byName = new Map<string, Role>();
  const undescribed: string[] = [];
  for (const listed of live) {
    const role = full.get(listed) ?? listed;
    const missing = thinRole(role);
    if (missing === 'description') undescribed.push(role.name);
    else if (missing) throw thinRoleError(role, tenant, missing);
    byName.set(role.name, role);
  }
  return { tenant, roles: byName, grants, webhooks, clients, undescribed };
}

/**
 * The field a role lacks for svc to judge it (undefined: none): its kind, which tells a custom
 * role (compared, exported, pruned) from a built-in one; a custom role's permissions and
 * description, which plan compares and export writes. A listing that lacks one is completed from
 * each role's own record; what that lacks is refused, but for a description, which a platform may
 * keep to itself: such a role is `undescribed`.
 */
function thinRole(role: Role): 'kind' | 'permissions' | 'description' | undefined {
  if (typeof role.kind !== 'string') return 'kind';
  if (role.kind !== 'custom') return undefined;
  if (!Array.isArray(role.permissions)) return 'permissions';
  if (typeof role.description !== 'string') return 'description';
  return undefined;
}

function thinRoleError(role: Role, tenant: TenantInfo, missing: string): SvcError {
  const why = missing === 'kind' ? ', so svc cannot tell a custom role from a built-in one' : '';
  return new SvcError(
    'failure',
    `the platform gave role ${role.name} of ${tenant.slug} without ${JSON.stringify(missing)}${why}`,
    {
      code: 'bad_response',
      hint: 'svc compares and exports custom roles by their kind and permissions: is --base-url the platform API?',
    },
  );
}

async function readGrants(
  platform: Platform,
  tenant: TenantInfo,
  options: { tenant: string; signal: AbortSignal },
): Promise<Map<string, LiveGrant>> {
  const grants = new Map<string, LiveGrant>();
  // Thousands of grants share a role, an expiry, a justification: one copy of each string.
  const shared = new Map<string, string>();
  const one = (text: string | null | undefined): string | null => {
    if (text === null || text === undefined) return null;
    const known = shared.get(text);
    if (known !== undefined) return known;
    shared.set(text, text);
    return text;
  };
  for await (const a of platform.roles.listAllTenantAssignments({ limit: 500 }, options)) {
    const inForce = assignmentInForce(a.status);
    if (inForce === 'ended') continue;
    if (inForce === 'unknown') {
      throw new SvcError(
        'failure',
        `the platform lists ${a.user_id}'s assignment of ${a.role_name} in ${tenant.slug} with status ${JSON.stringify(a.status)}, which svc does not know`,
        {
          code: 'bad_response',
          hint: 'svc counts a grant as held only when its status is absent or "active", and as ended when "expired", "revoked" or "role_deleted"; is --base-url the platform API?',
        },
      );
    }
    const roleName = one(a.role_name)!;
    grants.set(grantKey(a.user_id, roleName), {
      user: a.user_id,
      roleId: one(a.role_id)!,
      roleName,
      expiresAt: one(a.expires_at),
      justification: one(a.justification),
    });
  }
  return grants;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Runs `work` over `items`, at most `limit` at a time; the first failure is thrown once all have stopped. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < items.length && !failure) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw failure.error;
}

/**
 * Says, per tenant, which custom roles the platform shows no description of, and `what` follows (of
 * one role, or of several). `concerned` keeps those the command's words are true of (review19c F8):
 * export's when it writes roles, plan's those the file declares a description of (the ones really
 * left uncompared); a tenant with none left is not named.
 */
export function sayUndescribed(
  live: Iterable<LiveTenant>,
  warn: (message: string) => void,
  what: (one: boolean) => string,
  concerned: (tenant: LiveTenant, role: string) => boolean,
): void {
  for (const tenant of live) {
    const named = tenant.undescribed.filter((role) => concerned(tenant, role));
    if (named.length === 0) continue;
    const [one, ...more] = named;
    const roles =
      more.length === 0 ? `custom role ${one}` : `${named.length} custom roles (${someNames(named)})`;
    warn(
      `${tenant.tenant.slug}: the platform shows no description of ${roles}, so ${what(more.length === 0)}`,
    );
  }
}
