import { isStopped } from '../api/channel-holds.js';
import type { OAuthClient } from '../api/schemas/oauth.js';
import type { Webhook } from '../api/schemas/webhooks.js';
import { base, sameSet } from './changes.js';
import { comparable, fingerprint } from './fingerprint.js';
import type { LiveTenant } from './live.js';
import type { ClientEntry, DesiredTenant, Manage, WebhookEntry } from './model.js';
import type { FieldChange, PlanChange } from './plan.js';
import { changeLabel } from './render.js';
import type { Problem } from './source.js';

/**
 * Webhooks and OAuth clients: matched to live ones by their id when the entry gives it, else by
 * URL (webhooks) or name (clients); an entry that matches several live ones is a problem (the
 * file must say which, with its id). An entry whose id the tenant does not have (an export of
 * another tenant or platform) is a live one of its URL or name exactly as it says, or created with
 * --create-missing. Fields the entry leaves out are left as they are.
 */

/** A stopped webhook's status as a plan shows it (what it is before a change). */
export const STOPPED_STATUS = 'disabled by the platform';

type Field<E, L> = [
  name: string,
  wanted: (e: E) => unknown,
  current: (l: L) => unknown,
  set?: boolean,
  /** A wanted value that is no change though it differs from `current`'s words. */
  already?: (to: unknown, l: L) => boolean,
];

const WEBHOOK_FIELDS: Array<Field<WebhookEntry, Webhook>> = [
  ['url', (e) => e.url, (l) => l.url],
  ['event_types', (e) => e.event_types, (l) => l.event_types, true],
  ['description', (e) => e.description, (l) => l.description ?? ''],
  // A webhook the platform stopped is shown as such, and it is disabled: a file saying `disabled`
  // (an unedited export) is no change, and sends nothing, so its disabled_reason stays (attack29a
  // F3, review29d H1); `enabled` enables it.
  [
    'status',
    (e) => e.status,
    (l) => (isStopped(l) ? STOPPED_STATUS : l.status),
    false,
    (to, l) => to === 'disabled' && isStopped(l),
  ],
  ['max_attempts', (e) => e.max_attempts, (l) => l.max_attempts],
];

const CLIENT_FIELDS: Array<Field<ClientEntry, OAuthClient>> = [
  ['name', (e) => e.name, (l) => l.name],
  ['description', (e) => e.description, (l) => l.description ?? ''],
  ['redirect_uris', (e) => e.redirect_uris, (l) => l.redirect_uris, true],
  ['grant_types', (e) => e.grant_types, (l) => l.grant_types, true],
  ['scopes', (e) => e.scopes, (l) => l.scopes, true],
  ['token_lifetime_seconds', (e) => e.token_lifetime_seconds, (l) => l.token_lifetime_seconds],
  [
    'refresh_token_lifetime_seconds',
    (e) => e.refresh_token_lifetime_seconds,
    (l) => l.refresh_token_lifetime_seconds,
  ],
  ['pkce_required', (e) => e.pkce_required, (l) => l.pkce_required],
];

/**
 * A live webhook's or client's value of a field as a plan compares it (its `from`), and whether the
 * field is a set: what apply reads again just before its write (./meanwhile.ts).
 */
export function liveField(
  kind: 'webhook' | 'oauth_client',
  field: string,
  live: Webhook | OAuthClient,
): { value: unknown; set: boolean } | undefined {
  const fields = (kind === 'webhook' ? WEBHOOK_FIELDS : CLIENT_FIELDS) as Array<Field<unknown, unknown>>;
  const found = fields.find(([name]) => name === field);
  return found ? { value: found[2](live), set: found[3] === true } : undefined;
}

const sortedIfSet = (value: unknown, set: boolean | undefined) =>
  set && Array.isArray(value) ? [...value].map(String).sort() : value;

function fieldChanges<E, L>(fields: Array<Field<E, L>>, entry: E, current: L | undefined): FieldChange[] {
  const out: FieldChange[] = [];
  for (const [field, wanted, have, set, already] of fields) {
    const to = wanted(entry);
    if (to === undefined) continue;
    if (!current) {
      out.push({ field, to: sortedIfSet(to, set) });
      continue;
    }
    const from = have(current);
    const same = set
      ? sameSet(to as unknown[], (from as unknown[] | undefined) ?? [])
      : to === from || already?.(to, current) === true;
    if (!same) out.push({ field, from: sortedIfSet(from, set), to: sortedIfSet(to, set) });
  }
  return out;
}

interface Matching<E, L> {
  kind: 'webhook' | 'oauth_client';
  what: string;
  entries: E[];
  live: L[];
  pinned: (e: E) => string | undefined;
  naturalKey: (e: E) => string;
  liveId: (l: L) => string;
  liveKey: (l: L) => string;
  fields: Array<Field<E, L>>;
  print: (l: L) => string;
  line: (e: E) => number | undefined;
  managed: boolean;
  /** The fields a removal shows. */
  removed: (l: L) => FieldChange[];
  /** svc plan --create-missing: an entry whose id is not in the tenant is created. */
  createMissing: boolean;
  /** The tenant's slug, for messages. */
  tenant: string;
}

/** An entry's id that the tenant does not have, and no live one of its URL or name is as it says. */
export const missingIdMessage = (what: string, id: string, tenant: string, field: string) =>
  `${what} ${id} does not exist in ${tenant}, nor one as this entry says: --create-missing creates it (restoring an export elsewhere), or leave "${field}" out`;

/**
 * What to do about two live ones of an entry's URL or name: how it happens (runs applying one file
 * under two credentials, whose creation keys the platform keeps apart) and the two ways out.
 */
function sameEntryTwice(m: { kind: 'webhook' | 'oauth_client'; tenant: string }): string {
  const del = m.kind === 'webhook' ? 'webhooks delete ID' : 'oauth delete CLIENT_ID';
  return `runs applying this file at once under two credentials (the platform keeps each caller's creations apart) may each create one; delete the extra one (svc --tenant ${m.tenant} ${del}), or give this entry the id of the one it is (svc export writes them)`;
}

/**
 * Which live resource each entry is, in three passes, each live one claimed by one entry at most:
 * entries whose id is live are that one; entries whose id is not live (an export of another tenant
 * or platform) are a live one of their URL or name that is exactly as they say, else created (with
 * --create-missing; a problem without); entries without an id are the one live resource of their URL
 * or name not claimed yet (several: a problem, never a guess), else created.
 */
function diffMatched<E, L>(m: Matching<E, L>, problems: Problem[]): PlanChange[] {
  const claimed = new Set<string>();
  const matched = new Map<E, L | null>();
  const unclaimed = (entry: E) =>
    m.live.filter((l) => !claimed.has(m.liveId(l)) && m.liveKey(l) === m.naturalKey(entry));
  const claim = (entry: E, current: L | null) => {
    matched.set(entry, current);
    if (current) claimed.add(m.liveId(current));
  };
  const pinned = m.entries.filter((e) => m.pinned(e) !== undefined);
  const missing: E[] = [];
  for (const entry of pinned) {
    const current = m.live.find((l) => m.liveId(l) === m.pinned(entry));
    if (!current) missing.push(entry);
    else if (claimed.has(m.liveId(current))) {
      problems.push({ line: m.line(entry), message: `two entries are ${m.what} ${m.liveId(current)}` });
    } else claim(entry, current);
  }
  for (const entry of missing) {
    const same = unclaimed(entry).find((l) => fieldChanges(m.fields, entry, l).length === 0);
    if (same || m.createMissing) claim(entry, same ?? null);
    else {
      const field = m.kind === 'webhook' ? 'id' : 'client_id';
      problems.push({
        line: m.line(entry),
        message: missingIdMessage(m.what, m.pinned(entry)!, m.tenant, field),
      });
    }
  }
  for (const entry of m.entries) {
    if (m.pinned(entry) !== undefined) continue;
    const candidates = unclaimed(entry);
    if (candidates.length > 1) {
      const ids = candidates.map(m.liveId).join(', ');
      problems.push({
        line: m.line(entry),
        message: `${candidates.length} live ${m.what}s are ${changeLabel(m.kind, m.naturalKey(entry))} (${ids}): ${sameEntryTwice(m)}`,
      });
      continue;
    }
    claim(entry, candidates[0] ?? null);
  }
  const changes: PlanChange[] = [];
  for (const entry of m.entries) {
    const current = matched.get(entry);
    if (current === undefined) continue; // a problem, said above
    const fields = fieldChanges(m.fields, entry, current ?? undefined);
    if (current && fields.length === 0) continue;
    let change: PlanChange;
    if (current) {
      change = base(
        m.kind,
        'update',
        m.naturalKey(entry),
        m.liveId(current),
        m.line(entry),
        m.print(current),
      );
    } else {
      change = base(m.kind, 'create', m.naturalKey(entry), null, m.line(entry), null);
      const ref = m.pinned(entry);
      if (ref !== undefined) change.ref = ref;
      const existing = m.live.filter((l) => m.liveKey(l) === m.naturalKey(entry)).map(m.liveId);
      if (existing.length > 0) change.existing = existing.sort();
    }
    change.fields = fields;
    changes.push(change);
  }
  if (m.managed) {
    for (const current of m.live) {
      if (claimed.has(m.liveId(current))) continue;
      const change = base(
        m.kind,
        'delete',
        m.liveKey(current),
        m.liveId(current),
        undefined,
        m.print(current),
      );
      change.prune = true;
      change.fields = m.removed(current);
      changes.push(change);
    }
  }
  return changes;
}

export function diffWebhooks(
  desired: DesiredTenant,
  live: LiveTenant,
  manage: Manage,
  problems: Problem[],
  createMissing = false,
): PlanChange[] {
  return diffMatched<WebhookEntry, Webhook>(
    {
      kind: 'webhook',
      what: 'webhook',
      entries: desired.webhooks,
      live: live.webhooks,
      pinned: (e) => e.id,
      naturalKey: (e) => e.url,
      liveId: (l) => l.id,
      liveKey: (l) => l.url,
      fields: WEBHOOK_FIELDS,
      print: (l) => fingerprint(comparable.webhook(l)),
      line: (e) => e.line,
      managed: manage.webhooks === 'all',
      removed: (l) => [{ field: 'event_types', from: [...l.event_types].sort() }],
      createMissing,
      tenant: live.tenant.slug,
    },
    problems,
  );
}

export function diffClients(
  desired: DesiredTenant,
  live: LiveTenant,
  manage: Manage,
  problems: Problem[],
  createMissing = false,
): PlanChange[] {
  return diffMatched<ClientEntry, OAuthClient>(
    {
      kind: 'oauth_client',
      what: 'OAuth client',
      entries: desired.clients,
      live: live.clients,
      pinned: (e) => e.client_id,
      naturalKey: (e) => e.name,
      liveId: (l) => l.client_id,
      liveKey: (l) => l.name,
      fields: CLIENT_FIELDS,
      print: (l) => fingerprint(comparable.oauth_client(l)),
      line: (e) => e.line,
      managed: manage.oauth_clients === 'all',
      removed: (l) => [{ field: 'scopes', from: [...l.scopes].sort() }],
      createMissing,
      tenant: live.tenant.slug,
    },
    problems,
  );
}
