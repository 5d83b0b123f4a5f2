import { saysNothing } from '../api/characters.js';
import { type Expiry, parseAt, parseDuration } from '../api/expiry.js';
import { redirectUriProblem, repeatedRedirectUris } from '../api/redirect-uris.js';
import { isBuiltinPrefix, RESERVED_ROLE_PREFIXES, reservedFor, reservedNameRule } from '../api/roles.js';
import { redactUrlText } from '../api/secret-names.js';
import { quoted } from '../output/format.js';
import type {
  AccessFile,
  Block,
  ClientEntry,
  GrantEntry,
  Manage,
  RoleEntry,
  TenantRef,
  WebhookEntry,
} from './model.js';
import type { Path, Problem, Source } from './source.js';

/**
 * Reads the entries of a file whose shape has been checked (./shape.ts) into the model, and
 * checks what needs no platform: role names, durations and times, URLs, OAuth client rules,
 * ids that only make sense for one tenant. Every problem carries its line. Whether an expires_at
 * is in the past is the platform's clock's to say: its times are returned (`times`), to be judged
 * once the platform has been read (./engine.ts).
 */

type Raw = Record<string, unknown>;

/** A grant's expires_at, at the line of its field. */
export interface FileTime {
  line: number | undefined;
  expiry: Expiry;
}

export function readEntries(
  source: Source,
  shapeProblems: ReadonlyArray<{ path: Path }> = [],
): { file: AccessFile; problems: Problem[]; times: FileTime[] } {
  const problems: Problem[] = [];
  const times: FileTime[] = [];
  const at = (path: Path, message: string) => problems.push({ line: source.line(path), message });
  // Anything at or above a misshapen value is left out (it was reported by ./shape.ts).
  const broken = new Set<string>();
  const exact = new Set(shapeProblems.map(({ path }) => pathKey(path)));
  for (const { path } of shapeProblems)
    for (let i = 0; i <= path.length; i++) broken.add(pathKey(path.slice(0, i)));
  const fine = (path: Path) => !broken.has(pathKey(path));
  const isMap = (v: unknown): v is Raw => v !== null && typeof v === 'object' && !Array.isArray(v);
  const root = isMap(source.value) ? source.value : {};
  const manage = (isMap(root.manage) ? root.manage : {}) as Partial<Manage>;
  const rawBlocks = Array.isArray(root.blocks) ? (root.blocks as unknown[]) : [];
  const blocks = rawBlocks.flatMap((raw, b) =>
    isMap(raw) && !exact.has(pathKey(['blocks', b])) && fine(['blocks', b, 'tenants'])
      ? [readBlock(source, raw, ['blocks', b], times, at, fine)]
      : [],
  );
  // Roles declared by an entry left out: a grant of one is said to be of that entry, not of a missing role.
  const unreadRoles = new Map<string, number | undefined>();
  rawBlocks.forEach((raw, b) => {
    const roles = isMap(raw) && Array.isArray(raw.roles) ? (raw.roles as unknown[]) : [];
    roles.forEach((role, i) => {
      const path = ['blocks', b, 'roles', i];
      if (fine(path) || !isMap(role) || typeof role.name !== 'string' || unreadRoles.has(role.name)) return;
      unreadRoles.set(role.name, source.line(path));
    });
  });
  return {
    file: {
      label: source.label,
      sha256: source.sha256,
      manage: {
        roles: fine(['manage', 'roles']) ? (manage.roles ?? 'none') : 'none',
        grants: fine(['manage', 'grants']) ? (manage.grants ?? 'none') : 'none',
        webhooks: fine(['manage', 'webhooks']) ? (manage.webhooks ?? 'none') : 'none',
        oauth_clients: fine(['manage', 'oauth_clients']) ? (manage.oauth_clients ?? 'none') : 'none',
      },
      blocks,
      unreadRoles,
    },
    problems,
    times,
  };
}

type At = (path: Path, message: string) => void;

const pathKey = (path: Path) => JSON.stringify(path);

function readBlock(
  source: Source,
  raw: Raw,
  path: Path,
  times: FileTime[],
  at: At,
  fine: (path: Path) => boolean,
): Block {
  const line = source.line(path);
  const tenants: Block['tenants'] =
    raw.tenants === 'all'
      ? 'all'
      : (Array.isArray(raw.tenants) ? (raw.tenants as string[]) : [raw.tenants as string]).map(
          (ref, i): TenantRef => ({
            ref: ref.trim(),
            line: source.line(Array.isArray(raw.tenants) ? [...path, 'tenants', i] : [...path, 'tenants']),
          }),
        );
  const single = tenants !== 'all' && tenants.length === 1;
  const entries = <T>(kind: string, read: (item: Raw, p: Path) => T | T[] | undefined): T[] => {
    const list = raw[kind];
    if (!Array.isArray(list)) return [];
    return (list as Raw[]).flatMap((item, i) =>
      fine([...path, kind, i]) ? (read(item, [...path, kind, i]) ?? []) : [],
    );
  };
  return {
    tenants,
    line,
    roles: entries('roles', (item, p) => readRole(source, item, p, at)),
    grants: entries('grants', (item, p) => readGrants(source, item, p, times, at)),
    webhooks: entries('webhooks', (item, p) => readWebhook(source, item, p, single, at)),
    clients: entries('oauth_clients', (item, p) => readClient(source, item, p, single, at)),
    unreadGrants: unreadGrants(source, raw.grants, [...path, 'grants'], fine),
  };
}

/** The user and role of each grant entry left out for its shape whose user and role are fine. */
function unreadGrants(source: Source, list: unknown, path: Path, fine: (path: Path) => boolean) {
  if (!Array.isArray(list)) return [];
  return (list as unknown[]).flatMap((item, i) => {
    const p = [...path, i];
    if (fine(p) || item === null || typeof item !== 'object') return [];
    const raw = item as Raw;
    const role = typeof raw.role === 'string' && fine([...p, 'role']) ? raw.role.trim() : '';
    const users = Array.isArray(raw.users) ? (raw.users as unknown[]) : [raw.user];
    if (role === '' || !fine([...p, raw.users === undefined ? 'user' : 'users'])) return [];
    return users.flatMap((user) =>
      typeof user === 'string' && user.trim() !== ''
        ? [{ line: source.line(p), user: user.trim(), role }]
        : [],
    );
  });
}

function readRole(source: Source, raw: Raw, path: Path, at: At): RoleEntry {
  const name = raw.name as string;
  const reserved = RESERVED_ROLE_PREFIXES.find((prefix) => name.startsWith(prefix));
  if (reserved) {
    at(
      [...path, 'name'],
      isBuiltinPrefix(reserved)
        ? `"${name}": names starting with ${reserved} belong to ${reservedFor(reserved)}, which cannot be declared (grant them instead)`
        : `"${name}": ${reservedNameRule(reserved).replace('role names', 'names')}; choose another name`,
    );
  }
  return {
    line: source.line(path),
    name,
    ...(raw.description === undefined ? {} : { description: raw.description as string }),
    permissions: raw.permissions as string[],
  };
}

function readGrants(source: Source, raw: Raw, path: Path, times: FileTime[], at: At): GrantEntry[] {
  let expiry: GrantEntry['expiry'] = { kind: 'never' };
  if (typeof raw.expires_at === 'string') {
    const parsed = parseAt(raw.expires_at);
    if (parsed.ok) {
      expiry = parsed.value;
      times.push({ line: source.line([...path, 'expires_at']), expiry });
    } else at([...path, 'expires_at'], `"expires_at" ${parsed.message}`);
  } else if (typeof raw.expires_in === 'string') {
    const parsed = parseDuration(raw.expires_in);
    if (parsed.ok) expiry = parsed.value;
    else at([...path, 'expires_in'], `"expires_in" ${parsed.message}`);
  }
  // Only invisible characters (U+200B, a braille blank) say nothing, as with --justification (saysNothing).
  const nothing =
    typeof raw.justification === 'string' ? saysNothing('"justification"', raw.justification) : undefined;
  if (nothing !== undefined) at([...path, 'justification'], `${nothing}; write the reason in words`);
  const line = source.line(path);
  const users = raw.users === undefined ? [raw.user as string] : (raw.users as string[]);
  return users.map((user) => ({
    line,
    user: user.trim(),
    role: (raw.role as string).trim(),
    expiry,
    ...(raw.justification === undefined ? {} : { justification: (raw.justification as string).trim() }),
  }));
}

/** A URL an error repeats: its secrets masked (README, "Secrets are never in the file") and bounded. */
const shownUrl = (url: string) => quoted(redactUrlText(url));

function readWebhook(source: Source, raw: Raw, path: Path, single: boolean, at: At): WebhookEntry {
  let url = raw.url as string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      at([...path, 'url'], `"url" ${shownUrl(url)} must use http or https`);
    } else if (parsed.username || parsed.password) {
      at([...path, 'url'], `"url" must not carry a user or password (${SECRET_IN_URL})`);
    } else url = parsed.href;
  } catch {
    at([...path, 'url'], `"url" ${shownUrl(url)} is not a URL (e.g. https://hooks.example.com/svc)`);
  }
  if (raw.id !== undefined && !single) {
    at([...path, 'id'], `"id" names one tenant's webhook; it only fits in a block of one tenant`);
  }
  return {
    line: source.line(path),
    url,
    event_types: raw.event_types as string[],
    ...pick(raw, ['id', 'description', 'status', 'max_attempts']),
  };
}

const SECRET_IN_URL = 'secrets never go in the file';

function readClient(source: Source, raw: Raw, path: Path, single: boolean, at: At): ClientEntry {
  const uris = raw.redirect_uris as string[];
  uris.forEach((uri, i) => {
    const problem = redirectUriProblem(uri);
    if (problem) at([...path, 'redirect_uris', i], `redirect URI ${shownUrl(uri)} ${problem}`);
  });
  for (const [i, problem] of repeatedRedirectUris(uris)) {
    at([...path, 'redirect_uris', i], `redirect URI ${shownUrl(uris[i]!)} ${problem}`);
  }
  const grantTypes = raw.grant_types as string[] | undefined;
  if (grantTypes && !grantTypes.includes('authorization_code')) {
    at([...path, 'grant_types'], '"grant_types": refresh_token needs authorization_code');
  }
  const access = raw.token_lifetime_seconds as number | undefined;
  const refresh = raw.refresh_token_lifetime_seconds as number | undefined;
  if (access !== undefined && refresh !== undefined && refresh < access) {
    at(
      [...path, 'refresh_token_lifetime_seconds'],
      '"refresh_token_lifetime_seconds" must be at least token_lifetime_seconds',
    );
  }
  if (raw.client_id !== undefined && !single) {
    at(
      [...path, 'client_id'],
      `"client_id" names one tenant's client; it only fits in a block of one tenant`,
    );
  }
  return {
    line: source.line(path),
    name: raw.name as string,
    redirect_uris: uris,
    scopes: raw.scopes as string[],
    ...pick(raw, [
      'client_id',
      'description',
      'grant_types',
      'token_lifetime_seconds',
      'refresh_token_lifetime_seconds',
      'pkce_required',
    ]),
  };
}

function pick(raw: Raw, keys: string[]): Record<string, never> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (raw[key] !== undefined) out[key] = raw[key];
  return out as Record<string, never>;
}
