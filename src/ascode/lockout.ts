// Past 300 lines: every refusal svc apply predicts from the caller's holds (its own administration,
// handing out, webhook channels, OAuth client reach) is judged here, in one pass over the plan.
import {
  authorityFrom,
  type CallerAuthority,
  type Refusal,
  thirdPartyClientOf,
} from '../api/caller-authority.js';
import { CHANNEL_CHOICE, WEBHOOK_SECRET, type WebhookChoice } from '../api/channel-holds.js';
import { clientArming } from '../api/client-reach.js';
import { AdministrationForecast, TENANT_ADMIN } from '../api/last-admin.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { reasonLines } from '../output/problems.js';
import type { LiveTenant } from './live.js';
import { markOwnReach, refuseKeyStop, refuseLoss, refuseOwnReachOrder } from './own-reach.js';
import { phaseOf } from './phases.js';
import type { PlanChange, PlanDocument } from './plan.js';
import { headline } from './render.js';

/**
 * Every reason svc apply refuses a change for (`refused`, ./lockout.ts and src/api/holds.ts), in
 * the words of plan's closing warning and apply's refusal: the one place that lists them.
 */
export const REFUSAL_REASONS =
  'change your own grants, take away your own administration, leave a tenant without an administrator, stop the ' +
  'API key you are applying with, hand out ' +
  'more than you hold, need a permission held without an end date that you hold only until a date (a webhook, ' +
  "an OAuth client), or create or change an OAuth client with an API key or a third-party client's token " +
  '(only a user with their own login may)';

/**
 * What it takes to administer a tenant with svc apply: reading and managing roles and grants,
 * webhooks and OAuth clients. A plan may not take any of these away from the caller.
 */
export const ADMINISTERING = [
  'role.read',
  'role.manage',
  'role.assign',
  'webhook.read',
  'webhook.manage',
  'oauth_client.manage',
] as const;

/**
 * Marks the grant changes the platform refuses for the caller whatever they hold (403
 * `self_assignment`, also svc's policy): granting themselves a role, or moving their own grant's
 * expiry. Revoking one's own grant is allowed (refuseLockout decides whether it locks them out).
 * `throughKey`: the caller is an API key and `caller` the user who issued it (the platform sees a
 * key through to its issuer).
 */
export function refuseOwnGrants(changes: PlanChange[], caller: string, throughKey = false): number {
  const key = throughKey ? `this API key was issued by ${caller}, and ` : '';
  let refused = 0;
  for (const change of changes) {
    if (change.kind !== 'grant' || change.grant?.user !== caller || change.action === 'delete') continue;
    const what =
      change.action === 'create'
        ? `${key}nobody grants themselves a role (${change.grant.role})`
        : `${key}nobody changes the expiry of their own grant (${change.grant.role})`;
    change.refused = `${what}: the platform refuses it (self_assignment); have another administrator make this change, or leave it out of the file`;
    refused++;
  }
  return refused;
}

/**
 * Marks the role changes the platform refuses for the caller whatever they hold (403
 * `self_assignment`): putting permissions into a role they hold live (just in time too), which is
 * granting them to themselves (src/api/self-assignment.ts). Narrowing it is left to refuseLockout.
 * `throughKey`: as refuseOwnGrants.
 */
export function refuseOwnWidens(
  live: LiveTenant,
  changes: PlanChange[],
  caller: string,
  throughKey = false,
): number {
  const mine = new Set([...live.grants.values()].filter((g) => g.user === caller).map((g) => g.roleName));
  const key = throughKey ? `this API key was issued by ${caller}, and ` : '';
  let refused = 0;
  for (const change of changes) {
    if (change.refused || change.kind !== 'role' || change.action !== 'update' || !mine.has(change.name))
      continue;
    const to = change.fields.find((f) => f.field === 'permissions')?.to;
    const before = live.roles.get(change.name)?.permissions ?? [];
    if (!Array.isArray(to) || !to.some((p) => !before.includes(p as string))) continue;
    change.refused = `${key}nobody puts permissions into a role they hold (${change.name}): the platform refuses it (self_assignment); have another administrator make this change, or leave it out of the file`;
    refused++;
  }
  return refused;
}

/**
 * The rules of what the caller may not do to themselves: the number of changes refused. An API
 * key administers with its own role, so only its issuer's grants are refused through it, and only
 * when /v1/me names the issuer (credential.issued_by; another server's key: left to the platform).
 */
export function refuseSelf(live: LiveTenant, changes: PlanChange[], caller: Caller): number {
  if (caller.type === 'user')
    return (
      refuseOwnGrants(changes, caller.id) +
      refuseOwnWidens(live, changes, caller.id) +
      refuseLockout(live, changes, caller.id)
    );
  const issuer = caller.credential?.issued_by;
  return typeof issuer === 'string'
    ? refuseOwnGrants(changes, issuer, true) +
        refuseOwnWidens(live, changes, issuer, true) +
        refuseKeyStop(live, changes, issuer)
    : 0;
}

/**
 * Marks the changes that would take away the caller's own administration of the tenant
 * (revoking their grant, deleting or narrowing a role they hold) as `refused`; svc apply will
 * not make them. The caller's grants after the plan still count when they merely get an expiry:
 * they administer until then, and the platform keeps the last tenant_admin anyway.
 */
export function refuseLockout(live: LiveTenant, changes: PlanChange[], caller: string): number {
  return refuseLoss(
    live,
    changes,
    caller,
    ADMINISTERING,
    (lost) =>
      `it would take away your own administration of ${live.tenant.slug} (${lost.join(', ')}); keep it in the file, or have another administrator make this change`,
  );
}

/**
 * Marks the grant changes the platform would refuse by its last-tenant-admin rule (409
 * last_tenant_admin: a change cannot make the tenant's administration end sooner, see
 * src/api/last-admin.ts) as `refused`, played over the live tenant_admin grants in the order svc
 * apply makes them (grants and expiry moves before revocations), assuming --prune. Changes
 * refused already are left out: apply will not make them.
 */
export function refuseLastAdmin(live: LiveTenant, changes: PlanChange[], now: number): number {
  const ordered = changes
    .filter((c) => c.kind === 'grant' && c.grant?.role === TENANT_ADMIN && !c.refused)
    .map((change, i) => ({ change, i }))
    .sort((a, b) => phaseOf(a.change) - phaseOf(b.change) || a.i - b.i);
  if (ordered.length === 0) return 0;
  const admins = [...live.grants.values()]
    .filter((g) => g.roleName === TENANT_ADMIN)
    .map((g) => ({ user: g.user, expiresAt: g.expiresAt }));
  const forecast = new AdministrationForecast(live.tenant.slug, admins, now);
  let refused = 0;
  for (const { change } of ordered) {
    const { user, expires_at } = change.grant!;
    let refusal: string | undefined;
    if (change.action === 'create') forecast.grant(user, expires_at);
    else if (change.action === 'update') refusal = forecast.move(user, expires_at);
    else refusal = forecast.revoke(user);
    if (refusal === undefined) continue;
    change.refused = `the platform refuses it (last_tenant_admin): ${refusal}`;
    refused++;
  }
  return refused;
}

/**
 * Who makes the changes: GET /v1/me's id and type; for an API key who issued it, and for a
 * person's OAuth token whether its client is a third party's (src/api/caller-authority.ts thirdPartyClientOf),
 * when the server says so.
 */
export interface Caller {
  id: string;
  type: 'user' | 'api_key';
  credential?: { issued_by?: string | null; client_id?: string | null; third_party?: boolean | null };
}

/**
 * Marks the changes the platform refuses the caller for what they hold (src/api/holds.ts: 403
 * insufficient_permission, a grant or a role change handing out permissions they lack or for
 * longer than they hold them, a widen included, which reaches the role's live holders until their
 * grants end; insufficient_role, an operation they may not do at all; user_required, a key
 * granting, creating or widening a role that mints keys, or creating or changing an OAuth client) as `refused`, judged on their own live
 * grants in the tenant (an API key: its one role), and a third-party OAuth client's token
 * as the platform refuses it what only users may do (user_required, naming the client). Roles are changed before grants, so a grant is
 * judged on its role's permissions after the plan. Changes refused already are left out.
 */
export function refuseBeyondHolds(live: LiveTenant, changes: PlanChange[], caller: Caller): number {
  const permissionsOf = (role: string) => live.roles.get(role)?.permissions;
  const held =
    caller.type === 'user'
      ? [...live.grants.values()]
          .filter((g) => g.user === caller.id)
          .map((g) => ({ role: g.roleName, expiresAt: g.expiresAt }))
      : [{ role: live.tenant.role, expiresAt: null }];
  const authority = authorityFrom(
    live.tenant.slug,
    caller.type === 'user',
    held,
    permissionsOf,
    thirdPartyClientOf(caller),
  );
  if (!authority) return 0;
  const planned = new Map<string, readonly string[]>();
  for (const c of changes) {
    const to = c.fields.find((f) => f.field === 'permissions')?.to;
    if (c.kind === 'role' && Array.isArray(to)) planned.set(c.name, to as string[]);
  }
  let refused = 0;
  for (const change of changes) {
    if (change.refused) continue;
    const refusal = holdsRefusal(authority, live, change, (role) => planned.get(role) ?? permissionsOf(role));
    if (!refusal) continue;
    change.refused = `the platform refuses it (${refusal.code}): ${refusal.message}`;
    refused++;
  }
  return refused;
}

function holdsRefusal(
  authority: CallerAuthority,
  live: LiveTenant,
  change: PlanChange,
  after: (role: string) => readonly string[] | undefined,
): Refusal | undefined {
  if (change.kind === 'webhook') return authority.integration('webhook', webhookChannel(live, change));
  if (change.kind === 'oauth_client') {
    // Creating or changing a client is for users themselves (a key's client would outlive it).
    const users = change.action === 'delete' ? undefined : authority.users(`oauth_clients_${change.action}`);
    return users ?? authority.integration('oauth_client', undefined, clientReach(live, change));
  }
  const before = live.roles.get(change.name)?.permissions ?? null;
  if (change.kind === 'role') {
    // Roles change before grants: what a widen adds reaches the role's holders of now.
    const holders = [...live.grants.values()]
      .filter((g) => g.roleName === change.name)
      .map((g) => ({ user: g.user, expiresAt: g.expiresAt }));
    return authority.role(
      change.name,
      before,
      change.action === 'delete' ? null : (after(change.name) ?? before),
      holders,
    );
  }
  const { role, expires_at } = change.grant!;
  const permissions = after(role);
  if (!permissions) return undefined;
  if (change.action === 'delete') return authority.revoke({ name: role, permissions });
  const current = change.action === 'update' ? (live.grants.get(change.name)?.expiresAt ?? null) : undefined;
  return authority.grant({ name: role, permissions }, expires_at, current);
}

/**
 * The changes of a plan that refuseSelf and refuseBeyondHolds refuse against the live state now
 * (one line each): a saved plan, or a resumed run's, is judged on the caller's grants at apply
 * time. `pending` says which changes this run would still make.
 */
export function refusedNow(
  doc: PlanDocument,
  live: ReadonlyMap<string, LiveTenant>,
  pending: (tenant: string, change: PlanChange) => boolean,
  caller: Caller,
): string[] {
  const lines: string[] = [];
  for (const tenant of doc.tenants) {
    const have = live.get(tenant.id);
    if (!have) continue;
    // Copies: the plan's own `refused` marks stay as they were (svc apply reports those).
    const changes = tenant.changes.filter((c) => !c.refused && pending(tenant.id, c)).map((c) => ({ ...c }));
    refuseSelf(have, changes, caller);
    refuseBeyondHolds(have, changes, caller);
    markOwnReach(have, changes, caller);
    refuseOwnReachOrder(have, changes, caller);
    for (const change of changes) {
      if (change.refused) lines.push(`${tenant.slug}: ${headline(change).slice(2)}: ${change.refused}`);
    }
  }
  return lines;
}

/**
 * A change svc refuses (your own administration, or one the platform would refuse you) that this
 * run would make stops the whole run. One is said in the error; several are each a line of their
 * own before it (with --json/--ndjson: the error's details), not one line of all of them.
 */
export function stopOnRefused(ctx: Context, doc: PlanDocument, prune: boolean): void {
  const refused = doc.tenants.flatMap((t) =>
    t.changes
      .filter((c) => c.refused && (prune || !c.prune))
      .map((c) => `${t.slug}: ${headline(c).slice(2)}: ${c.refused}`),
  );
  if (refused.length === 0) return;
  if (refused.length === 1) {
    throw new UsageError(`svc apply refuses ${refused[0]}`, { code: 'lockout', hint: 'nothing was applied' });
  }
  const { details, where } = reasonLines(ctx, refused);
  throw new UsageError(
    `svc apply refuses ${refused.length.toLocaleString('en')} of the plan's changes (${where})`,
    {
      code: 'lockout',
      hint: 'take them out of the file, or have someone who may make them apply it; nothing was applied',
      details,
    },
  );
}

/**
 * What a webhook change chooses of where event data goes (src/api/channel-holds.ts choiceRefusal: a
 * creation hands out the signing secret too), or
 * undefined when it chooses nothing: a deletion, or a change of description, max_attempts, or
 * removed kinds only. As the sandbox judges it; a key is judged by its role here, by its issuer there.
 */
function webhookChannel(live: LiveTenant, change: PlanChange): WebhookChoice | undefined {
  if (change.action === 'delete') return undefined;
  const to = (name: string) => change.fields.find((f) => f.field === name)?.to;
  const current = live.webhooks.find((w) => w.id === change.id);
  const kinds = (to('event_types') as string[] | undefined) ?? current?.event_types ?? [];
  if (change.action === 'create')
    return { what: CHANNEL_CHOICE.create, kinds, secret: WEBHOOK_SECRET.create };
  const chooses =
    to('url') !== undefined ||
    kinds.some((k) => !current?.event_types.includes(k as never)) ||
    (to('status') === 'enabled' && current?.status === 'disabled');
  return chooses ? { what: CHANNEL_CHOICE.update, kinds } : undefined;
}

/**
 * What an OAuth client change arms the client with (src/api/client-reach.ts clientArming: scopes added,
 * a redirect URI added or changed, every scope of a new client), as the sandbox judges it; none
 * for a deletion.
 */
function clientReach(live: LiveTenant, change: PlanChange) {
  if (change.action === 'delete') return [];
  const to = (name: string) => change.fields.find((f) => f.field === name)?.to as string[] | undefined;
  const current = live.clients.find((c) => c.client_id === change.id);
  const before = change.action === 'create' || !current ? null : current;
  const after = {
    scopes: to('scopes') ?? current?.scopes ?? [],
    redirect_uris: to('redirect_uris') ?? current?.redirect_uris ?? [],
  };
  return clientArming(before, after);
}
