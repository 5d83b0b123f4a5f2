import type { TenantSummary } from '../api/schemas/tenants.js';
import { redactUrlText } from '../api/secret-names.js';
import { didYouMean } from '../api/suggest.js';
import { tenantByRef } from '../api/tenant-id.js';
import type { TenantInfo } from './live.js';
import { type AccessFile, type Block, type DesiredTenant, grantKey, type Located } from './model.js';
import type { Problem } from './source.js';
import { seenButNotHeld } from './visible.js';

/** The tenant references of a file that are not among the caller's tenants (by slug or id). */
export function unknownTenantRefs(file: AccessFile, mine: readonly TenantInfo[]): string[] {
  return [
    ...new Set(
      file.blocks
        .flatMap((b) => (b.tenants === 'all' ? [] : b.tenants.map((t) => t.ref)))
        .filter((r) => !tenantByRef(mine, r)),
    ),
  ];
}

/**
 * What each tenant should have: the tenants the blocks name (by slug or id, or `all`: every
 * tenant where the caller is tenant_admin), and the entries of every block naming a tenant added
 * up. The same resource declared twice for a tenant is fine when both say the same, a problem
 * otherwise.
 */
export function desiredTenants(
  file: AccessFile,
  mine: readonly TenantInfo[],
  /** Tenants the caller sees (an org_admin) but holds no role in, by slug and id. */
  seen: ReadonlyMap<string, TenantSummary> = new Map(),
): { tenants: TenantInfo[]; desired: Map<string, DesiredTenant>; problems: Problem[] } {
  const problems: Problem[] = [];
  const tenants = new Map<string, TenantInfo>();
  const desired = new Map<string, DesiredTenant>();
  const slugs = mine.map((t) => t.slug);
  for (const block of file.blocks) {
    for (const tenant of blockTenants(block, mine, slugs, seen, problems)) {
      tenants.set(tenant.id, tenant);
      let into = desired.get(tenant.id);
      if (!into) {
        into = { roles: new Map(), grants: new Map(), webhooks: [], clients: [], line: block.line };
        desired.set(tenant.id, into);
      }
      add(into, block, tenant, problems);
    }
  }
  return { tenants: [...tenants.values()], desired, problems };
}

function blockTenants(
  block: Block,
  mine: readonly TenantInfo[],
  slugs: string[],
  seen: ReadonlyMap<string, TenantSummary>,
  problems: Problem[],
): TenantInfo[] {
  if (block.tenants === 'all') {
    const administered = mine.filter((t) => t.role === 'tenant_admin');
    if (administered.length === 0) {
      problems.push({
        line: block.line,
        message: '"tenants: all" names no tenant: you are tenant_admin nowhere',
      });
    }
    return administered;
  }
  return block.tenants.flatMap((ref) => {
    const tenant = tenantByRef(mine, ref.ref);
    if (tenant) return [tenant];
    const visible = seen.get(ref.ref);
    if (visible) {
      problems.push({ line: ref.line, message: seenButNotHeld(ref.ref, visible), forbidden: true });
      return [];
    }
    problems.push({
      line: ref.line,
      message: `tenant "${ref.ref}" is not one of your tenants${didYouMean(ref.ref, slugs)} (svc tenants ls lists them)`,
    });
    return [];
  });
}

/** What an entry says, lists of names (permissions, event types, scopes) in any order. */
const content = (entry: Located) =>
  JSON.stringify({ ...entry, line: undefined }, (_key, value) =>
    Array.isArray(value) && value.every((v) => typeof v === 'string') ? [...value].sort() : value,
  );

function add(into: DesiredTenant, block: Block, tenant: TenantInfo, problems: Problem[]): void {
  const once = <T extends Located>(map: Map<string, T>, key: string, entry: T, what: string, hint = '') => {
    const earlier = map.get(key);
    if (!earlier) {
      map.set(key, entry);
      return;
    }
    if (content(earlier) !== content(entry)) {
      problems.push({
        line: entry.line,
        message: `${what} is declared again for ${tenant.slug} with other values (first at line ${earlier.line ?? '?'})${hint}`,
      });
    }
  };
  for (const role of block.roles) once(into.roles, role.name, role, `role "${role.name}"`);
  for (const grant of block.grants) {
    once(into.grants, grantKey(grant.user, grant.role), grant, `the grant of ${grant.role} to ${grant.user}`);
  }
  if (block.unreadGrants?.length) into.unreadGrants = [...(into.unreadGrants ?? []), ...block.unreadGrants];
  const webhooks = new Map(into.webhooks.map((w) => [w.id ?? w.url, w]));
  for (const webhook of block.webhooks) {
    const hint = webhook.id ? '' : '; webhooks that share a URL are told apart by their "id"';
    // An error names the webhook by its URL as a label: its secrets masked (README, "Secrets are
    // never in the file"); the line numbers tell two such URLs apart.
    const label = `webhook ${webhook.id ?? redactUrlText(webhook.url)}`;
    once(webhooks, webhook.id ?? webhook.url, webhook, label, hint);
  }
  into.webhooks = [...webhooks.values()];
  const clients = new Map(into.clients.map((c) => [c.client_id ?? c.name, c]));
  for (const client of block.clients) {
    const hint = client.client_id ? '' : '; clients that share a name are told apart by their "client_id"';
    once(
      clients,
      client.client_id ?? client.name,
      client,
      `OAuth client "${client.client_id ?? client.name}"`,
      hint,
    );
  }
  into.clients = [...clients.values()];
}
