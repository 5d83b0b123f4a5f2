// Just past 300 lines: roles' and grants' differences and the plan's order among them are one
// reading of a tenant; webhooks and OAuth clients live in diff-integrations.ts.
import { isoSeconds } from '../api/time.js';
import { sym } from '../output/symbols.js';
import { base, sameSet } from './changes.js';
import { diffClients, diffWebhooks } from './diff-integrations.js';
import { comparable, DigestBuilder, fingerprint, liveIdentity } from './fingerprint.js';
import { expiryVerb } from './held-expiry.js';
import type { LiveGrant, LiveTenant } from './live.js';
import type { DesiredTenant, GrantEntry, Kind, Manage } from './model.js';
import {
  changeKey,
  type FieldChange,
  type GrantTarget,
  type PlanChange,
  type PlanTenant,
  type Scope,
} from './plan.js';
import type { Problem } from './source.js';

/**
 * The difference between what a tenant should have and what it has: roles and grants here,
 * webhooks and OAuth clients in ./diff-integrations.ts. Removals are computed only within what
 * the file manages, and marked `prune` (applied only with --prune). Then what the plan left
 * alone in scope is fingerprinted, so a saved plan can tell if the tenant changed since.
 */

export interface DiffInput {
  desired: DesiredTenant;
  live: LiveTenant;
  manage: Manage;
  /** Relative expiries (`expires_in`) count from here: the plan's time, or the run's first start. */
  anchorMs: number;
  /** Said when a grant counts a duration from anchorMs (the command's word on whose clock it is). */
  onDuration?: () => void;
  /** svc plan --create-missing: an entry whose webhook or client id is not in the tenant is created. */
  createMissing?: boolean;
}

export function diffTenant(input: DiffInput): { tenant: PlanTenant; problems: Problem[] } {
  const { desired, live, manage } = input;
  const problems: Problem[] = [];
  const changes: PlanChange[] = [];
  const tenantId = live.tenant.id;
  const key = (change: PlanChange) => changeKey(tenantId, change);

  // The role changes a grant of the role waits for: its creation, or a change of its permissions
  // (a grant made before a narrowing, which apply makes last when the caller holds the role, would
  // hand out what the file takes out, and keep it if the narrowing failed).
  const roleChanges = new Map<string, string>();
  for (const role of desired.roles.values()) {
    const current = live.roles.get(role.name);
    if (!current) {
      const change = base('role', 'create', role.name, null, role.line, null);
      change.fields = [
        { field: 'name', to: role.name },
        ...(role.description === undefined ? [] : [{ field: 'description', to: role.description }]),
        { field: 'permissions', to: [...role.permissions].sort() },
      ];
      roleChanges.set(role.name, key(change));
      changes.push(change);
      continue;
    }
    if (current.kind !== 'custom') continue;
    const fields: FieldChange[] = [];
    // A description the platform does not show (LiveTenant.undescribed) is not compared.
    if (
      role.description !== undefined &&
      typeof current.description === 'string' &&
      role.description !== current.description
    ) {
      fields.push({ field: 'description', from: current.description, to: role.description });
    }
    if (!sameSet(role.permissions, current.permissions ?? [])) {
      fields.push({
        field: 'permissions',
        from: [...current.permissions].sort(),
        to: [...role.permissions].sort(),
      });
    }
    if (fields.length > 0) {
      const change = base(
        'role',
        'update',
        role.name,
        current.id,
        role.line,
        fingerprint(comparable.role(current)),
      );
      change.fields = fields;
      if (fields.some((f) => f.field === 'permissions')) roleChanges.set(role.name, key(change));
      changes.push(change);
    }
  }

  const listedRoles = new Set([...desired.roles.keys(), ...[...desired.grants.values()].map((g) => g.role)]);
  for (const [name, grant] of desired.grants) {
    if (grant.expiry.kind === 'in') input.onDuration?.();
    const change = diffGrant(grant, live.grants.get(name), live, roleChanges, input.anchorMs, problems);
    if (change) changes.push(change);
  }
  const revocations = new Map<string, string[]>();
  /** The grants (`user role`) this plan revokes itself. */
  const revokedGrants = new Set<string>();
  if (manage.grants !== 'none') {
    for (const [name, grant] of live.grants) {
      if (desired.grants.has(name)) continue;
      if (manage.grants === 'listed-roles' && !listedRoles.has(grant.roleName)) continue;
      const change = base(
        'grant',
        'delete',
        name,
        null,
        null,
        fingerprint(comparable.grant(grant)),
        'revoke',
      );
      change.prune = true;
      change.grant = target(grant, grant.expiresAt);
      change.fields = [{ field: 'expires_at', from: grant.expiresAt }];
      changes.push(change);
      const revoked = revocations.get(grant.roleName);
      if (revoked) revoked.push(key(change));
      else revocations.set(grant.roleName, [key(change)]);
      revokedGrants.add(name);
    }
  }
  if (manage.roles === 'all') {
    const holders = new Map<string, string[]>();
    // Pushed, not copied: a role of a tenant with 100,000 grants may have thousands of holders.
    for (const [name, grant] of live.grants) {
      const held = holders.get(grant.roleName);
      if (held) held.push(name);
      else holders.set(grant.roleName, [name]);
    }
    for (const role of live.roles.values()) {
      if (role.kind !== 'custom' || desired.roles.has(role.name)) continue;
      const change = base('role', 'delete', role.name, role.id, null, fingerprint(comparable.role(role)));
      change.prune = true;
      const held = holders.get(role.name) ?? [];
      // Who keeps the role until it goes (not revoked first): apply deletes it only while no one else holds it.
      const ending = held.filter((g) => !revokedGrants.has(g)).map((g) => live.grants.get(g)!.user);
      change.fields = [
        { field: 'permissions', from: [...role.permissions].sort() },
        ...(held.length > 0 ? [{ field: 'grants', from: held.length, holders: ending.sort() }] : []),
      ];
      change.needs = revocations.get(role.name) ?? [];
      changes.push(change);
    }
  }
  changes.push(
    ...diffWebhooks(desired, live, manage, problems, input.createMissing),
    ...diffClients(desired, live, manage, problems, input.createMissing),
  );

  const scope = scopeOf(desired, manage, listedRoles);
  return {
    tenant: {
      id: tenantId,
      slug: live.tenant.slug,
      display_name: live.tenant.display_name,
      scope,
      unchanged: unchangedDigests(live, scope, changes),
      changes,
    },
    problems,
  };
}

const target = (
  g: { user: string; roleName: string; roleId: string | null },
  expiresAt: string | null,
  justification: string | null = null,
  expiry?: GrantEntry['expiry'],
): GrantTarget => ({
  user: g.user,
  role: g.roleName,
  role_id: g.roleId,
  expires_at: expiresAt,
  justification,
  // The span an expiry was counted from the anchor with: how a run judges a grant made meanwhile.
  ...(expiry?.kind === 'in' ? { expires_in: expiry.text } : {}),
});

function diffGrant(
  grant: GrantEntry,
  current: LiveGrant | undefined,
  live: LiveTenant,
  roleChanges: ReadonlyMap<string, string>,
  anchorMs: number,
  problems: Problem[],
): PlanChange | undefined {
  const name = `${grant.user} ${grant.role}`;
  const { expiry } = grant;
  const wanted =
    expiry.kind === 'never' ? null : isoSeconds(expiry.kind === 'in' ? anchorMs + expiry.ms : expiry.ms);
  const justification = grant.justification ?? null;
  if (!current) {
    const change = base('grant', 'create', name, null, grant.line, null, 'grant');
    const roleId = live.roles.get(grant.role)?.id ?? null;
    change.grant = target({ user: grant.user, roleName: grant.role, roleId }, wanted, justification, expiry);
    change.fields = [{ field: 'expires_at', to: wanted }];
    const roleChange = roleChanges.get(grant.role);
    if (roleChange) change.needs = [roleChange];
    return change;
  }
  const held = current.expiresAt;
  const verb = expiryVerb(expiry.kind, held, wanted);
  if (verb === undefined) return undefined;
  if (justification === null) {
    problems.push({
      line: grant.line,
      message: `the grant of ${grant.role} to ${grant.user} would ${verb === 'extend' ? 'be extended' : 'be shortened'} (expires ${held ?? 'never'} ${sym.arrow} ${wanted ?? 'never'}), which needs a justification: add "justification:" to it`,
    });
  }
  const change = base(
    'grant',
    'update',
    name,
    null,
    grant.line,
    fingerprint(comparable.grant(current)),
    verb,
  );
  change.grant = target(current, wanted, justification, expiry);
  change.fields = [{ field: 'expires_at', from: held, to: wanted }];
  // Extended, it hands the role out for longer: as it will be, not as it is.
  const roleChange = verb === 'extend' ? roleChanges.get(grant.role) : undefined;
  if (roleChange) change.needs = [roleChange];
  return change;
}

function scopeOf(desired: DesiredTenant, manage: Manage, listedRoles: Set<string>): Scope {
  return {
    roles: manage.roles === 'all' ? 'all' : [...desired.roles.keys()].sort(),
    grants: manage.grants === 'all' ? 'all' : [...listedRoles].sort(),
    webhooks:
      manage.webhooks === 'all'
        ? 'all'
        : [...new Set(desired.webhooks.flatMap((w) => (w.id ? [w.id, w.url] : [w.url])))].sort(),
    oauth_clients:
      manage.oauth_clients === 'all'
        ? 'all'
        : [
            ...new Set(desired.clients.flatMap((c) => (c.client_id ? [c.client_id, c.name] : [c.name]))),
          ].sort(),
  };
}

const within = (scope: 'all' | string[], ...names: Array<string | undefined>) =>
  scope === 'all' || names.some((n) => n !== undefined && scope.includes(n));

/** Is a live resource in what the plan compared? (./drift.ts asks the same of a saved plan.) */
export const inScope = {
  role: (scope: Scope, name: string) => within(scope.roles, name),
  grant: (scope: Scope, roleName: string) => within(scope.grants, roleName),
  webhook: (scope: Scope, id: string, url: string) => within(scope.webhooks, id, url),
  oauth_client: (scope: Scope, id: string, name: string) => within(scope.oauth_clients, id, name),
};

/** The identity of the live resource a change is about, as liveIdentity() names it (none for creations). */
export function targetOf(change: PlanChange): string | undefined {
  if (change.kind === 'role' || change.kind === 'grant') return change.name;
  return change.id ?? undefined;
}

export function unchangedDigests(
  live: LiveTenant,
  scope: Scope,
  changes: readonly PlanChange[],
): PlanTenant['unchanged'] {
  const targeted = new Set(
    changes.flatMap((c) => {
      const t = targetOf(c);
      return t === undefined ? [] : [`${c.kind} ${t}`];
    }),
  );
  const digests = {
    role: new DigestBuilder(),
    grant: new DigestBuilder(),
    webhook: new DigestBuilder(),
    oauth_client: new DigestBuilder(),
  };
  // What a plan creates has no id yet: a live one of its URL or name is the creation itself
  // (made since by a run of this plan, which a resumed run must not take for drift) — unless it
  // was there when the plan was made (`existing`, beside which the creation was planned).
  const creations = changes.filter((c) => c.action === 'create');
  const created = new Set(creations.map((c) => `${c.kind} ${c.name}`));
  const existed = new Set(creations.flatMap((c) => (c.existing ?? []).map((id) => `${c.kind} ${id}`)));
  const note = <K extends Kind>(
    kind: K,
    resource: Parameters<(typeof comparable)[K]>[0],
    natural?: string,
  ) => {
    const identity = liveIdentity(kind, resource as never);
    if (targeted.has(`${kind} ${identity}`)) return;
    if (created.has(`${kind} ${natural}`) && !existed.has(`${kind} ${identity}`)) return;
    digests[kind].add(identity, fingerprint((comparable[kind] as (r: unknown) => object)(resource)));
  };
  for (const role of live.roles.values())
    if (role.kind === 'custom' && inScope.role(scope, role.name)) note('role', role);
  for (const grant of live.grants.values()) if (inScope.grant(scope, grant.roleName)) note('grant', grant);
  for (const webhook of live.webhooks)
    if (inScope.webhook(scope, webhook.id, webhook.url)) note('webhook', webhook, webhook.url);
  for (const client of live.clients)
    if (inScope.oauth_client(scope, client.client_id, client.name)) note('oauth_client', client, client.name);
  return {
    role: digests.role.done(),
    grant: digests.grant.done(),
    webhook: digests.webhook.done(),
    oauth_client: digests.oauth_client.done(),
  };
}
