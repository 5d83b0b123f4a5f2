import type { OAuthClient } from '../api/schemas/oauth.js';
import type { Webhook } from '../api/schemas/webhooks.js';
import { SvcError } from '../errors.js';
import type { Platform } from '../platform/index.js';
import { sameSet } from './changes.js';
import { liveField } from './diff-integrations.js';
import type { PlanChange } from './plan.js';

/**
 * An update whose field the platform takes only whole (a role's description, a webhook's URL or
 * event_types, an OAuth client's name, redirect_uris or scopes, a grant's expiry: the platform
 * offers no add/remove form for them, unlike a role's permissions) overwrites whatever is there.
 * So apply reads the resource again just before its write, and sends nothing when a field it sends
 * no longer holds the value the plan compared (`from`): someone changed it since the plan's check,
 * and the write would undo that change without a word. The drift check again, narrowly, at the
 * last moment; what is left is the time between this read and the write (docs/RELIABILITY.md).
 */

type Read = { tenant: string; signal: AbortSignal };

const same = (now: unknown, then: unknown, set: boolean): boolean =>
  set ? Array.isArray(now) && Array.isArray(then) && sameSet(now, then) : (now ?? null) === (then ?? null);

/** The names of the fields `change` sends whose value in `now(field)` is not the plan's `from`. */
function moved(change: PlanChange, now: (field: string) => { value: unknown; set: boolean } | undefined) {
  const out: string[] = [];
  for (const f of change.fields) {
    if (f.to === undefined || f.field === 'permissions') continue; // permissions go as add/remove
    const live = now(f.field);
    if (live !== undefined && !same(live.value, f.from, live.set)) out.push(f.field);
  }
  return out;
}

function refusal(fields: string[], check: string): SvcError {
  const names = fields.join(', ');
  return new SvcError(
    'conflict',
    `not updated: its ${names} changed since the plan was checked: someone changed ${fields.length === 1 ? 'it' : 'them'} meanwhile, and sending the plan's ${names} would undo that; nothing of this change was sent; see ${check}, and plan again`,
    { code: 'changed_meanwhile' },
  );
}

/** Refuses (changed_meanwhile) a webhook or OAuth client update whose fields changed since the plan. */
export async function refuseIntegrationMoved(
  platform: Platform,
  change: PlanChange,
  read: Read,
  check: string,
): Promise<void> {
  const kind = change.kind as 'webhook' | 'oauth_client';
  const live: Webhook | OAuthClient =
    kind === 'webhook'
      ? await platform.webhooks.get(change.id!, read)
      : await platform.oauth.clients.get(change.id!, read);
  const fields = moved(change, (field) => liveField(kind, field, live));
  if (fields.length > 0) throw refusal(fields, check);
}

/** Refuses (changed_meanwhile) a role update whose description changed since the plan. */
export async function refuseRoleMoved(
  platform: Platform,
  change: PlanChange,
  read: Read,
  check: string,
): Promise<void> {
  if (!change.fields.some((f) => f.field !== 'permissions' && f.to !== undefined)) return;
  const role = await platform.roles.get(change.id!, read);
  const fields = moved(change, (field) =>
    field === 'description' || field === 'name'
      ? { value: (role as Record<string, unknown>)[field] ?? null, set: false }
      : undefined,
  );
  if (fields.length > 0) throw refusal(fields, check);
}

/**
 * Refuses (changed_meanwhile) a grant's expiry change when the grant's expiry is no longer the one
 * the plan moved it from. A grant no longer held is left to the write (it answers not found).
 */
export async function refuseGrantMoved(
  platform: Platform,
  change: PlanChange,
  roleId: string,
  read: Read,
  check: string,
): Promise<void> {
  const user = change.grant!.user;
  for await (const a of platform.roles.listAllTenantAssignments({ role_id: roleId, user_id: user }, read)) {
    if (a.user_id !== user || a.role_id !== roleId) continue;
    const fields = moved(change, (field) =>
      field === 'expires_at' ? { value: a.expires_at ?? null, set: false } : undefined,
    );
    if (fields.length > 0) throw refusal(fields, check);
    return;
  }
}
