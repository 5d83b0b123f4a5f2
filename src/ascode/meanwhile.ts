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
 * A field found at the plan's target (`to`) has not moved away from the file: sending it undoes
 * nothing. When every field the change sends is found so (someone made the same change meanwhile),
 * the change is made already: each check answers `'done'`, and apply sends nothing and says so.
 */

type Read = { tenant: string; signal: AbortSignal };

const same = (now: unknown, then: unknown, set: boolean): boolean =>
  set ? Array.isArray(now) && Array.isArray(then) && sameSet(now, then) : (now ?? null) === (then ?? null);

/** What a check before a write found: the change made already, or nothing against sending it. */
export type Meanwhile = 'done' | undefined;

/**
 * The fields `change` sends whose value in `now(field)` is neither the plan's `from` nor its `to`,
 * and whether every field it sends (permissions included, which go as add/remove) is found at `to`.
 */
function moved(change: PlanChange, now: (field: string) => { value: unknown; set: boolean } | undefined) {
  const out: string[] = [];
  let done = true;
  for (const f of change.fields) {
    if (f.to === undefined) continue;
    if (f.field === 'permissions') {
      done = false; // sent as add/remove, not read here: left to the write
      continue;
    }
    const live = now(f.field);
    const atTarget = live !== undefined && same(live.value, f.to, live.set);
    if (!atTarget) done = false;
    if (live !== undefined && !atTarget && !same(live.value, f.from, live.set)) out.push(f.field);
  }
  return { fields: out, done: done && out.length === 0 };
}

/** Throws the refusal when a field moved; `'done'` when the whole change is found made already. */
function verdict(found: { fields: string[]; done: boolean }, check: string): Meanwhile {
  if (found.fields.length > 0) throw refusal(found.fields, check);
  return found.done ? 'done' : undefined;
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
): Promise<Meanwhile> {
  const kind = change.kind as 'webhook' | 'oauth_client';
  const live: Webhook | OAuthClient =
    kind === 'webhook'
      ? await platform.webhooks.get(change.id!, read)
      : await platform.oauth.clients.get(change.id!, read);
  return verdict(
    moved(change, (field) => liveField(kind, field, live)),
    check,
  );
}

/** Refuses (changed_meanwhile) a role update whose description changed since the plan. */
export async function refuseRoleMoved(
  platform: Platform,
  change: PlanChange,
  read: Read,
  check: string,
): Promise<Meanwhile> {
  if (!change.fields.some((f) => f.field !== 'permissions' && f.to !== undefined)) return undefined;
  const role = await platform.roles.get(change.id!, read);
  return verdict(
    moved(change, (field) =>
      field === 'description' || field === 'name'
        ? { value: (role as Record<string, unknown>)[field] ?? null, set: false }
        : undefined,
    ),
    check,
  );
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
): Promise<Meanwhile> {
  const user = change.grant!.user;
  for await (const a of platform.roles.listAllTenantAssignments({ role_id: roleId, user_id: user }, read)) {
    if (a.user_id !== user || a.role_id !== roleId) continue;
    return verdict(
      moved(change, (field) =>
        field === 'expires_at' ? { value: a.expires_at ?? null, set: false } : undefined,
      ),
      check,
    );
  }
  return undefined;
}
