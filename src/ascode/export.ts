// Just past 300 lines: the export document, its YAML with comments, and the secrets it must never
// write are one view of the live state, read together.
import type { OAuthClient } from '../api/schemas/oauth.js';
import type { Webhook } from '../api/schemas/webhooks.js';
import { redactUrlText } from '../api/secret-names.js';
import { utcText } from '../api/time.js';
import type { CommandLine } from '../config/settings.js';
import { cellText } from '../output/format.js';
import { shellWord } from '../system/shell-words.js';
import type { LiveGrant, LiveTenant } from './live.js';
import { MANAGE_KINDS, type ManagedKind } from './schema.js';
import { looksSecret } from './shape.js';

/**
 * The live state as an access file: every custom role, active grant, webhook and OAuth client
 * of the chosen tenants, one block each, with `manage: all` — so `svc plan` of an export shows
 * no changes, and a later edit shows exactly itself. Grants alike (same role, expiry and
 * justification) are written as one entry with `users:`. Ids are written only where the natural
 * identity is ambiguous (two webhooks with one URL, two clients with one name).
 */

type Doc = Record<string, unknown>;

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sorted = (values: readonly string[] | undefined) => [...(values ?? [])].sort(byText);

/**
 * `kinds` (svc export --only) are what is written and managed; the file says nothing of the
 * others, so svc plan of it leaves them alone (and does not read them).
 */
export function exportDocument(
  tenants: readonly LiveTenant[],
  kinds: readonly ManagedKind[] = MANAGE_KINDS,
): Doc {
  const only = (entries: Doc): Doc =>
    Object.fromEntries(Object.entries(entries).filter(([kind]) => kinds.includes(kind as ManagedKind)));
  return {
    version: 1,
    manage: only({ roles: 'all', grants: 'all', webhooks: 'all', oauth_clients: 'all' }),
    blocks: tenants.map((live) => ({
      tenants: live.tenant.slug,
      ...only({
        roles: [...live.roles.values()]
          .filter((r) => r.kind === 'custom')
          .sort((a, b) => byText(a.name, b.name))
          .map((r) => ({
            name: r.name,
            // One the platform does not show is left out: an empty one, applied, would erase it.
            ...(typeof r.description === 'string' ? { description: r.description } : {}),
            permissions: sorted(r.permissions),
          })),
        grants: groupGrants(live.grants.values()),
        webhooks: webhooks(live.webhooks),
        oauth_clients: clients(live.clients),
      }),
    })),
  };
}

function groupGrants(grants: Iterable<LiveGrant>): Doc[] {
  const groups = new Map<
    string,
    { role: string; expires: string | null; why: string | null; users: string[] }
  >();
  for (const g of grants) {
    // A zone-less expiry (the platform's UTC) is written with its Z: plan refuses one without.
    const expires = g.expiresAt === null ? null : utcText(g.expiresAt);
    const key = JSON.stringify([g.roleName, expires, g.justification]);
    const group = groups.get(key);
    if (group) group.users.push(g.user);
    else groups.set(key, { role: g.roleName, expires, why: g.justification, users: [g.user] });
  }
  return [...groups.values()]
    .sort(
      (a, b) =>
        byText(a.role, b.role) ||
        byText(a.expires ?? '', b.expires ?? '') ||
        byText(a.why ?? '', b.why ?? ''),
    )
    .map((g) => ({
      role: g.role,
      ...(g.users.length === 1 ? { user: g.users[0] } : { users: sorted(g.users) }),
      ...(g.expires === null ? {} : { expires_at: g.expires }),
      ...(g.why === null || g.why.trim() === '' ? {} : { justification: g.why }),
    }));
}

function webhooks(list: readonly Webhook[]): Doc[] {
  const shared = duplicates(list.map((w) => w.url));
  return [...list]
    .sort((a, b) => byText(a.url, b.url) || byText(a.id, b.id))
    .map((w) => ({
      ...(shared.has(w.url) ? { id: w.id } : {}),
      url: w.url,
      event_types: sorted(w.event_types),
      description: w.description ?? '',
      // A webhook the platform stopped is written `disabled`, as it is: a restore creates it
      // disabled (review29d H1), and plan reads `disabled` against it as no change (attack29a F3).
      ...(w.status === undefined ? {} : { status: w.status }),
      ...(w.max_attempts === undefined ? {} : { max_attempts: w.max_attempts }),
    }));
}

function clients(list: readonly OAuthClient[]): Doc[] {
  const shared = duplicates(list.map((c) => c.name));
  return [...list]
    .sort((a, b) => byText(a.name, b.name) || byText(a.client_id, b.client_id))
    .map((c) => ({
      ...(shared.has(c.name) ? { client_id: c.client_id } : {}),
      name: c.name,
      description: c.description ?? '',
      redirect_uris: sorted(c.redirect_uris),
      grant_types: sorted(c.grant_types),
      scopes: sorted(c.scopes),
      token_lifetime_seconds: c.token_lifetime_seconds,
      refresh_token_lifetime_seconds: c.refresh_token_lifetime_seconds,
      pkce_required: c.pkce_required,
    }));
}

/** Does the document name a webhook or client by id (live ones of one URL or name)? */
export const writesIds = (doc: Doc): boolean =>
  (doc.blocks as Doc[]).some(
    (b) =>
      ((b.webhooks as Doc[] | undefined) ?? []).some((w) => w.id !== undefined) ||
      ((b.oauth_clients as Doc[] | undefined) ?? []).some((c) => c.client_id !== undefined),
  );

function duplicates(values: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const v of values) (seen.has(v) ? twice : seen).add(v);
  return twice;
}

/** A value of the live state that svc's file check would refuse as a secret, and how to fix it. */
export interface SecretValue {
  tenant: string;
  kind: string;
  name: string;
  field: string;
  fix: string;
}

/**
 * The fix of a value, as command lines in its tenant (`svc -p … --tenant T …`); `id` is the live
 * webhook's or client's id (the file writes one only where a URL or name is shared).
 */
const FIXES: Record<string, (svc: CommandLine, entry: Doc, id: string) => string> = {
  roles: (svc, e) => svc(`roles update ${shellWord(String(e.name))} --description TEXT`),
  grants: (svc, e) =>
    `a justification cannot be edited: ${svc(`roles revoke ${e.user === undefined ? 'USER' : shellWord(String(e.user))} ${shellWord(String(e.role))}`)}, then grant it again with another`,
  webhooks: (svc, e, id) =>
    svc(`webhooks update ${shellWord(id)} --${String(e.field ?? 'description')} TEXT`),
  oauth_clients: (svc, _e, id) => svc(`oauth update ${shellWord(id)} --description TEXT`),
};

const KIND_NAMES: Record<string, string> = {
  roles: 'role',
  grants: 'grant',
  webhooks: 'webhook',
  oauth_clients: 'OAuth client',
};

/**
 * Every value of an export that the file check (`looksSecret`, ./shape.ts) would refuse: an
 * export never writes a secret into a file meant for review, and never one svc plan rejects.
 * `live` is what the document was made of (exportDocument: one block each, in order); `svcIn`
 * gives the run's command lines in a tenant, for the fixes. A webhook is named by id, its URL
 * only a label with its secrets masked (review attack17 A3: the error printed the URL's token);
 * a client by id and name.
 */
export function secretValues(
  doc: Doc,
  live: readonly LiveTenant[],
  svcIn: (tenant: string) => CommandLine,
): SecretValue[] {
  const found: SecretValue[] = [];
  for (const [i, block] of (doc.blocks as Doc[]).entries()) {
    const tenant = block.tenants as string;
    const { webhooks = [], clients = [] } = live[i] ?? {};
    for (const kind of Object.keys(KIND_NAMES)) {
      for (const entry of (block[kind] as Doc[] | undefined) ?? []) {
        for (const [field, value] of Object.entries(entry)) {
          const texts = Array.isArray(value) ? value : [value];
          if (!texts.some((v) => typeof v === 'string' && looksSecret(v))) continue;
          // Written without an id only when it is the one of its URL (name) in the tenant.
          const id =
            kind === 'webhooks'
              ? String(entry.id ?? webhooks.find((w) => w.url === entry.url)?.id ?? 'WEBHOOK_ID')
              : String(
                  entry.client_id ?? clients.find((c) => c.name === entry.name)?.client_id ?? 'CLIENT_ID',
                );
          const name = entryLabel(kind, entry, id);
          const fix = FIXES[kind]!(svcIn(tenant), { ...entry, field }, id);
          found.push({ tenant, kind: KIND_NAMES[kind]!, name, field, fix });
        }
      }
    }
  }
  return found;
}

/**
 * The URLs an export writes whole though they carry a secret (redactUrlText's rule: a secret query
 * parameter, a credential in the path), each named with it masked: a webhook's URL, which is how
 * the file names it, and an OAuth client's redirect URI, which must match the platform's byte for
 * byte (review s11 f, findings s14 secrets #3; session 19: a redirect URI's `?token=` was written
 * unsaid). The file holding one is written 0600. Webhooks by URL, clients by id, per tenant; only
 * of the kinds written.
 */
export function urlsWithSecrets(
  live: readonly LiveTenant[],
  kinds: readonly ManagedKind[],
): Array<{ tenant: string; what: string }> {
  const found: Array<{ tenant: string; what: string }> = [];
  const secret = (url: string) => redactUrlText(url) !== url;
  for (const { tenant, webhooks, clients } of live) {
    if (kinds.includes('webhooks'))
      // Named by id as well: masked, two such URLs can read alike (review16e E4).
      for (const w of [...webhooks].sort((a, b) => byText(a.url, b.url)).filter((w) => secret(w.url)))
        found.push({ tenant: tenant.slug, what: `the URL of webhook ${w.id} (${redactUrlText(w.url)})` });
    if (kinds.includes('oauth_clients'))
      for (const c of [...clients].sort((a, b) => byText(a.client_id, b.client_id)))
        for (const uri of sorted(c.redirect_uris).filter(secret))
          found.push({
            tenant: tenant.slug,
            what: `the redirect URI ${redactUrlText(uri)} of OAuth client ${c.client_id}`,
          });
  }
  return found;
}

/** An entry as its line names it: never a secret of its own (a URL's masked, a secret-shaped name left out). */
function entryLabel(kind: string, entry: Doc, id: string): string {
  if (kind === 'grants')
    return `${String(entry.user ?? (entry.users as string[]).join(','))} ${String(entry.role)}`;
  if (kind === 'webhooks') return `${id} (${redactUrlText(String(entry.url))})`;
  if (kind === 'oauth_clients') return looksSecret(String(entry.name)) ? id : `${id} (${String(entry.name)})`;
  return String(entry.name);
}

// ── YAML ─────────────────────────────────────────────────────────────────────────────────

/** Text YAML reads back as the same string (plain when that is unambiguous, else JSON-quoted). */
function scalar(value: unknown): string {
  if (typeof value !== 'string') return value === undefined ? 'null' : JSON.stringify(value);
  const plain =
    /^[A-Za-z_][A-Za-z0-9_ ./@+-]*$/.test(value) &&
    !value.endsWith(' ') &&
    !/^(true|false|null|yes|no|on|off|y|n)$/i.test(value);
  return plain ? value : JSON.stringify(value);
}

const isScalarList = (v: unknown): v is unknown[] =>
  Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object');

/** The lines of a map at `indent`, a comment after the line of any key `comments` names. */
function mapLines(map: Doc, indent: string, out: string[], comments: Record<string, string> = {}): void {
  for (const [key, value] of Object.entries(map)) {
    const note = comments[key] ? `  # ${comments[key]}` : '';
    if (Array.isArray(value)) {
      if (value.length === 0) out.push(`${indent}${key}: []${note}`);
      else if (isScalarList(value)) {
        const flow = `[${value.map(scalar).join(', ')}]`;
        if (indent.length + key.length + flow.length < 100) out.push(`${indent}${key}: ${flow}${note}`);
        else {
          out.push(`${indent}${key}:${note}`);
          for (const item of value) out.push(`${indent}  - ${scalar(item)}`);
        }
      } else {
        out.push(`${indent}${key}:${note}`);
        for (const item of value) listItem(item as Doc, `${indent}  `, out);
      }
    } else if (value !== null && typeof value === 'object') {
      out.push(`${indent}${key}:${note}`);
      mapLines(value as Doc, `${indent}  `, out);
    } else out.push(`${indent}${key}: ${scalar(value)}${note}`);
  }
}

function listItem(item: Doc, indent: string, out: string[], comments?: Record<string, string>): void {
  const start = out.length;
  mapLines(item, `${indent}  `, out, comments);
  out[start] = `${indent}- ${out[start]!.slice(indent.length + 2)}`;
}

/**
 * The document as YAML, with a header and each block's tenant named by display name. A comment
 * holds one line whatever a name holds (cellText: a line break is a space, a control character or
 * U+2028 a visible escape): a display name "Acme\nversion: 2" made a key of the file, and svc plan
 * refused svc's own export.
 */
export function exportYaml(doc: Doc, tenants: readonly LiveTenant[], header: string[]): string {
  const out = header.map((line) => `# ${cellText(line)}`);
  const { blocks, ...top } = doc;
  mapLines(top, '', out);
  const list = blocks as Doc[];
  out.push(list.length === 0 ? 'blocks: []' : 'blocks:');
  list.forEach((block, i) => {
    const name = cellText(tenants[i]!.tenant.display_name);
    listItem(block, '  ', out, { tenants: name });
  });
  return `${out.join('\n')}\n`;
}
