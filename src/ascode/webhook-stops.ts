/**
 * The webhooks a plan's removals stop (attack29a F1): a grant revoked or a custom role deleted
 * by svc apply --prune takes away read permissions, and the platform stops every webhook whose
 * owner no longer holds its kinds' (src/api/webhook-stops.ts, the rule and its words, shared with
 * roles revoke and roles delete). Told over the live state the plan read; the webhooks read here
 * when the file names none (a grants-only file), or said as unknown when they cannot be.
 */

import { type HeldRole, stopsOver, stopsSaid, type WebhookStops } from '../api/webhook-stops.js';
import type { Context } from '../context.js';
import { lookupMayFail } from '../errors.js';
import type { Platform } from '../platform/index.js';
import { forecastStops } from '../platform/webhook-stops.js';
import type { LiveTenant } from './live.js';
import type { PlanDocument, PlanTenant } from './plan.js';

/** The grants a tenant's plan revokes and the roles it deletes, as the forecasts take them. */
interface Removals {
  /** The users whose grants it takes: those of its revocations, or anyone when it deletes a role. */
  users: ReadonlySet<string> | 'any';
  /** Does it take `roleId` from `user` (a grant revoked, or the role deleted)? */
  removes: (user: string, roleId: string) => boolean;
}

/** The one reading of a plan's removals (svc plan's warning, svc apply --prune's forecast); undefined: none. */
function removalsOf(planned: PlanTenant): Removals | undefined {
  const grants = new Set<string>();
  const users = new Set<string>();
  const roles = new Set<string>();
  for (const c of planned.changes) {
    if (c.action !== 'delete') continue;
    if (c.kind === 'grant' && c.grant?.role_id) {
      grants.add(`${c.grant.user} ${c.grant.role_id}`);
      users.add(c.grant.user);
    }
    if (c.kind === 'role' && c.id) roles.add(c.id);
  }
  if (grants.size === 0 && roles.size === 0) return undefined;
  return {
    users: roles.size > 0 ? 'any' : users,
    removes: (user, roleId) => roles.has(roleId) || grants.has(`${user} ${roleId}`),
  };
}

/** What the removals of one tenant's plan stop, or undefined when it removes no grant or role. */
export async function planStops(
  platform: Platform,
  live: LiveTenant,
  planned: PlanTenant,
  webhooksRead: boolean,
  signal: AbortSignal,
): Promise<WebhookStops | undefined> {
  const removals = removalsOf(planned);
  if (!removals) return undefined;
  let webhooks = live.webhooks;
  if (!webhooksRead) {
    try {
      webhooks = [];
      for await (const w of platform.webhooks.listAll({ limit: 200 }, { tenant: live.tenant.id, signal }))
        webhooks.push(w);
    } catch (error) {
      if (!lookupMayFail(error)) throw error;
      return { known: false, why: `reading the webhooks failed: ${error.message}` };
    }
  }
  const permissions = new Map([...live.roles.values()].map((r) => [r.id, r.permissions] as const));
  const held = new Map<string, HeldRole[]>();
  for (const g of live.grants.values()) {
    const list = held.get(g.user) ?? [];
    list.push({ roleId: g.roleId, permissions: permissions.get(g.roleId) ?? [], ends: g.expiresAt !== null });
    held.set(g.user, list);
  }
  return stopsOver(webhooks, held, removals.removes);
}

/** One warning per tenant whose removals stop webhooks (or whose could not be told). */
export async function sayPlanStops(
  ctx: Context,
  platform: Platform,
  live: ReadonlyMap<string, LiveTenant>,
  planned: readonly PlanTenant[],
  webhooksRead: boolean,
  /** Who stops them, in the warning: `svc apply --prune`. */
  by: string,
): Promise<void> {
  for (const tenant of planned) {
    const l = live.get(tenant.id);
    if (!l) continue;
    const stops = await planStops(platform, l, tenant, webhooksRead, ctx.signal);
    const said = stops && stopsSaid(stops, by);
    if (said) ctx.out.warn(`${l.tenant.slug}: ${said}`);
  }
}

/** One tenant's forecast of what svc apply --prune stops, read before the run (and read back after it). */
export interface TenantStops {
  tenant: { id: string; slug: string };
  stops: WebhookStops;
}

/**
 * svc apply --prune's forecasts, read from the platform for each tenant whose plan revokes a grant
 * or deletes a role (a saved plan holds no live grants: they are read, as roles revoke reads them).
 */
export async function applyStops(
  platform: Platform,
  doc: PlanDocument,
  signal: AbortSignal,
): Promise<TenantStops[]> {
  const out: TenantStops[] = [];
  for (const tenant of doc.tenants) {
    const removals = removalsOf(tenant);
    if (!removals) continue;
    const stops = await forecastStops(platform, removals.users, removals.removes, undefined, {
      tenant: tenant.id,
      signal,
    });
    out.push({ tenant: { id: tenant.id, slug: tenant.slug }, stops });
  }
  return out;
}
