/**
 * The webhooks a revocation or a role's deletion stops, read from the platform (the rule and its
 * words: src/api/webhook-stops.ts): one forecast for every preview (roles revoke's question, a
 * revoke file's dry run and question, roles delete's question, svc apply --prune's), and one read
 * back after the run.
 */

import { API_KEY_ROLES, BUILTIN_ROLE_DEFINITIONS } from '../api/permissions.js';
import { assignmentInForce } from '../api/roles.js';
import { type HeldRole, stoppedSaid, stopsOver, type WebhookStops } from '../api/webhook-stops.js';
import { lookupMayFail, readAfterChange } from '../errors.js';
import { shellWord } from '../system/shell-words.js';
import type { Platform } from './index.js';
import type { CallOptions } from './transport.js';

/**
 * Which webhooks removing the grants `removes` names would stop: the webhooks listed (one paged
 * read), then only the grants of their owners the change touches (`users`; `any`: every owner, a
 * role deleted from all its holders). `permissions`: each role's by id when the caller has them.
 * A read refused or unanswered (no webhook.read, say): known false, with the reason.
 */
export function forecastStops(
  platform: Platform,
  users: ReadonlySet<string> | 'any',
  removes: Removes,
  permissions?: ReadonlyMap<string, readonly string[]>,
  /** The tenant read (svc apply's, one of several); the run's otherwise. */
  options: CallOptions = {},
): Promise<WebhookStops> {
  return forecastOf(platform, async () => ({ users, removes }), permissions, options);
}

type Removes = (user: string, roleId: string) => boolean;

/**
 * A revoke file's forecast (`rows`: its rows, read once more): only the rows of users who own an
 * enabled webhook are kept (a few), whatever the file's length.
 */
export function forecastFileStops(
  platform: Platform,
  rows: AsyncIterable<object>,
  permissions: ReadonlyMap<string, readonly string[]>,
): Promise<WebhookStops> {
  return forecastOf(
    platform,
    async (owners) => {
      const pairs = new Set<string>();
      for await (const event of rows) {
        if (!('row' in event)) continue;
        const row = event.row as { user: string; role: { id: string } };
        if (owners.has(row.user)) pairs.add(`${row.user} ${row.role.id}`);
      }
      return { users: owners, removes: (user, roleId) => pairs.has(`${user} ${roleId}`) };
    },
    permissions,
  );
}

async function forecastOf(
  platform: Platform,
  /** The change, told the owners of enabled webhooks. */
  change: (owners: ReadonlySet<string>) => Promise<{ users: ReadonlySet<string> | 'any'; removes: Removes }>,
  permissions?: ReadonlyMap<string, readonly string[]>,
  options: CallOptions = {},
): Promise<WebhookStops> {
  try {
    const webhooks = [];
    for await (const w of platform.webhooks.listAll({ limit: 200 }, options)) webhooks.push(w);
    const enabled = new Set(
      webhooks
        .filter((w) => w.status === 'enabled' && typeof w.owner_id === 'string')
        .map((w) => w.owner_id as string),
    );
    const { users, removes } = await change(enabled);
    const owners = [...enabled].filter((o) => users === 'any' || users.has(o));
    const held = new Map<string, HeldRole[]>();
    let keyRoles: (readonly string[])[] | undefined;
    if (owners.length > 0) {
      const roles = permissions ?? (await everyRole(platform, options));
      // What API keys act with, as the tenant lists the key roles (the catalog's when it does not).
      keyRoles = Object.values(API_KEY_ROLES).map(
        (r) => roles.get(r) ?? BUILTIN_ROLE_DEFINITIONS[r].permissions,
      );
      for (const owner of owners) {
        const items = (await platform.roles.listAssignments(owner, {}, options)).items;
        held.set(
          owner,
          items
            .filter((a) => assignmentInForce(a.status) !== 'ended')
            .map((a) => ({
              roleId: a.role_id,
              permissions: roles.get(a.role_id) ?? [],
              ends: a.expires_at != null,
            })),
        );
      }
    }
    return stopsOver(webhooks, held, removes, keyRoles);
  } catch (error) {
    if (!lookupMayFail(error)) throw error;
    // The reason's first clause: a question is no place for the refusal's own advice (a role to ask
    // for), which the verbs that read webhooks give in full.
    const reason = error.message.split('; ')[0];
    return { known: false, why: `reading the webhooks or their owners' grants failed: ${reason}` };
  }
}

async function everyRole(platform: Platform, options: CallOptions): Promise<Map<string, readonly string[]>> {
  const listed = new Map<string, readonly string[]>();
  for await (const r of platform.roles.listAll({ limit: 200 }, options)) listed.set(r.id, r.permissions);
  return listed;
}

/**
 * After the run: the watched webhooks the platform shows stopped now, in one warning (read back;
 * nothing said when none is, or when nothing was watched).
 */
export async function sayStopped(
  platform: Platform,
  forecast: WebhookStops | undefined,
  warn: (line: string) => void,
  /** svc apply's tenant: its slug before the words, and the tenant read. */
  tenant?: { id: string; slug: string },
): Promise<void> {
  if (!forecast?.known || forecast.watched.length === 0) return;
  const at = tenant ? `${tenant.slug}: ` : '';
  const read = async () => {
    const now = [];
    for await (const w of platform.webhooks.listAll({ limit: 200 }, tenant ? { tenant: tenant.id } : {}))
      now.push(w);
    return now;
  };
  const now = await readAfterChange(read(), undefined);
  if (now === undefined) {
    warn(
      `${at}svc could not read the webhooks back to tell which the platform disabled (${forecast.watched.length.toLocaleString('en')} watched: their owners' grants changed)`,
    );
    return;
  }
  const look = 'webhooks get ID';
  const getLine = tenant
    ? platform.svcAnyTenant(`--tenant ${shellWord(tenant.slug)} ${look}`)
    : platform.svc(look);
  const said = stoppedSaid(forecast.watched, now, getLine);
  if (said !== undefined) warn(`${at}${said}`);
}
