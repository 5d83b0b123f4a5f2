import type { OAuthClient } from '../api/schemas/oauth.js';
import type { Webhook } from '../api/schemas/webhooks.js';
import { base, sameSet } from './changes.js';
import { comparable, fingerprint } from './fingerprint.js';
import type { LiveTenant } from './live.js';
import type { ClientEntry, DesiredTenant, Manage, WebhookEntry } from './model.js';
import type { FieldChange, PlanChange } from './plan.js';
import type { Problem } from './source.js';

/**
 * Webhooks and OAuth clients: matched to live ones by their id when the entry gives it, else by
 * URL (webhooks) or name (clients); an entry that matches several live ones is a problem (the
 * file must say which, with its id). Fields the entry leaves out are left as they are.
 */

type Field<E, L> = [name: string, wanted: (e: E) => unknown, current: (l: L) => unknown, set?: boolean];

const WEBHOOK_FIELDS: Array<Field<WebhookEntry, Webhook>> = [
  ['url', (e) => e.url, (l) => l.url],
  ['event_types', (e) => e.event_types, (l) => l.event_types, true],
  ['description', (e) => e.description, (l) => l.description ?? ''],
  ['status', (e) => e.status, (l) => l.status],
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

const sortedIfSet = (value: unknown, set: boolean | undefined) =>
  set && Array.isArray(value) ? [...value].map(String).sort() : value;

function fieldChanges<E, L>(fields: Array<Field<E, L>>, entry: E, current: L | undefined): FieldChange[] {
  const out: FieldChange[] = [];
  for (const [field, wanted, have, set] of fields) {
    const to = wanted(entry);
    if (to === undefined) continue;
    if (!current) {
      out.push({ field, to: sortedIfSet(to, set) });
      continue;
    }
    const from = have(current);
    const same = set ? sameSet(to as unknown[], (from as unknown[] | undefined) ?? []) : to === from;
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
}

function diffMatched<E, L>(m: Matching<E, L>, problems: Problem[]): PlanChange[] {
  const changes: PlanChange[] = [];
  const claimed = new Set<string>();
  for (const entry of m.entries) {
    const pin = m.pinned(entry);
    const candidates =
      pin !== undefined
        ? m.live.filter((l) => m.liveId(l) === pin)
        : m.live.filter((l) => m.liveKey(l) === m.naturalKey(entry));
    if (candidates.length > 1) {
      const ids = candidates.map(m.liveId).join(', ');
      problems.push({
        line: m.line(entry),
        message: `${candidates.length} live ${m.what}s are ${m.naturalKey(entry)} (${ids}): give this entry the id of the one it is (svc export writes them)`,
      });
      continue;
    }
    const current = candidates[0];
    if (current) {
      if (claimed.has(m.liveId(current))) {
        problems.push({ line: m.line(entry), message: `two entries are ${m.what} ${m.liveId(current)}` });
        continue;
      }
      claimed.add(m.liveId(current));
    }
    if (!current && pin !== undefined) continue; // reported by ./references.ts
    const fields = fieldChanges(m.fields, entry, current);
    if (current && fields.length === 0) continue;
    const change = current
      ? base(m.kind, 'update', m.naturalKey(entry), m.liveId(current), m.line(entry), m.print(current))
      : base(m.kind, 'create', m.naturalKey(entry), null, m.line(entry), null);
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
    },
    problems,
  );
}

export function diffClients(
  desired: DesiredTenant,
  live: LiveTenant,
  manage: Manage,
  problems: Problem[],
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
    },
    problems,
  );
}
