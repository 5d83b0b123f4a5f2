/**
 * Which webhooks a revocation stops (attack29a F1): the platform stops a webhook whose owner
 * (owner_id) no longer holds the read permission of one of its kinds (channel-holds.ts, the rule
 * channelRefusal applies to a choice), and it stays stopped after they regain it. A grant revoked
 * (roles revoke, a file, svc apply --prune) or a role deleted may so stop the webhooks its users
 * own: every preview of one says which (or that svc could not tell), and the run says which the
 * platform did stop, read back. One rule and one wording for every verb.
 *
 * The platform also stops a webhook set up through an API key when the key stops acting: when its
 * issuer no longer holds its key role's permissions (API_KEY_ROLES) without an end date. Which key
 * set up a webhook is not shown, so a change that takes away what its owner's keys act with makes
 * those owners' webhooks `unsure`: said as "svc could not tell", never as none (review29d M1).
 */

import { counted } from '../output/format.js';
import { isStopped } from './channel-holds.js';
import { missingPermissions } from './holds.js';
import { API_KEY_ROLES, BUILTIN_ROLE_DEFINITIONS, eventReadPermissions } from './permissions.js';

/** A webhook as this rule reads it: only what the platform shows of every webhook. */
export interface OwnedWebhook {
  id: string;
  status: string;
  event_types: readonly string[];
  owner_id?: string | null | undefined;
  disabled_reason?: string | null | undefined;
}

/** A grant a user holds, with its role's permissions; `ends`: it has an end date (expires_at). */
export interface HeldRole {
  roleId: string;
  permissions: readonly string[];
  ends?: boolean;
}

/**
 * What svc can tell: the webhooks the change stops (`watched`: every enabled one of the users it
 * touches; `unsure`: those it may stop through their owner's API keys), or why it cannot.
 */
export type WebhookStops =
  | {
      known: true;
      stops: { id: string; owner: string }[];
      watched: string[];
      unsure?: { id: string; owner: string }[];
    }
  | { known: false; why: string };

/** The permissions each API key role acts with: the built-in roles' (the reference's catalog). */
const BUILTIN_KEY_ROLES: readonly (readonly string[])[] = Object.values(API_KEY_ROLES).map(
  (role) => BUILTIN_ROLE_DEFINITIONS[role].permissions,
);

/**
 * The rule over what is read: each enabled webhook whose owner is among `held`'s users and who,
 * once the grants `removes` names are gone, lacks the read permission of one of its kinds.
 * `held`: the active grants of each user whose grants change (others keep theirs).
 */
export function stopsOver(
  webhooks: readonly OwnedWebhook[],
  held: ReadonlyMap<string, readonly HeldRole[]>,
  removes: (user: string, roleId: string) => boolean,
  /** The permissions each API key role acts with (the tenant's roles when read). */
  keyRoles: readonly (readonly string[])[] = BUILTIN_KEY_ROLES,
): WebhookStops {
  const stops: { id: string; owner: string }[] = [];
  const unsure: { id: string; owner: string }[] = [];
  const watched: string[] = [];
  for (const w of webhooks) {
    if (w.status !== 'enabled') continue;
    // A server that does not show owners: whose webhooks stop cannot be told.
    if (w.owner_id === undefined)
      return { known: false, why: 'the platform does not show the owners of webhooks' };
    const owner = w.owner_id;
    if (owner === null) continue;
    const grants = held.get(owner);
    if (grants === undefined || !grants.some((g) => removes(owner, g.roleId))) continue;
    watched.push(w.id);
    const after = grants.filter((g) => !removes(owner, g.roleId)).flatMap((g) => g.permissions);
    if (missingPermissions(after, eventReadPermissions(w.event_types)).length > 0)
      stops.push({ id: w.id, owner });
    else if (
      // A key acts while its issuer holds its role's permissions without an end date (the
      // platform's rule): only such grants count, before and after (review29e M1).
      takesKeyRole(lasting(grants), lasting(grants.filter((g) => !removes(owner, g.roleId))), keyRoles)
    )
      unsure.push({ id: w.id, owner });
  }
  return { known: true, stops, watched, ...(unsure.length > 0 ? { unsure } : {}) };
}

/** The permissions of the grants without an end date. */
const lasting = (grants: readonly HeldRole[]) =>
  grants.filter((g) => g.ends !== true).flatMap((g) => g.permissions);

/** Whether the change takes away what an API key of its owner acts with: held before, not after. */
function takesKeyRole(
  before: readonly string[],
  after: readonly string[],
  keyRoles: readonly (readonly string[])[],
): boolean {
  return keyRoles.some(
    (needed) =>
      missingPermissions(before, needed).length === 0 && missingPermissions(after, needed).length > 0,
  );
}

/** At most this many ids named in a line; the rest counted. */
const SHOWN = 5;

const listed = (ids: readonly string[]) =>
  ids.length <= SHOWN
    ? ids.join(', ')
    : `${ids.slice(0, SHOWN).join(', ')} and ${(ids.length - SHOWN).toLocaleString('en')} more`;

const ownersOf = (stops: readonly { owner: string }[]) => [...new Set(stops.map((s) => s.owner))].join(', ');

/** Why a webhook stops, in words every line shares. */
const RULE =
  "a webhook delivers only while its owner holds its kinds' read permission (and, set up through an API key, while the key acts), and stays stopped after they regain it";

/**
 * A preview's words (a question's sentence, a dry run's or a plan's line): the webhooks it stops,
 * or that svc could not tell which; undefined when it stops none.
 */
export function stopsSaid(forecast: WebhookStops, subject = 'this'): string | undefined {
  if (!forecast.known) return `svc could not tell which webhooks ${subject} stops (${forecast.why}): ${RULE}`;
  const { stops, unsure = [] } = forecast;
  if (stops.length === 0 && unsure.length === 0) return undefined;
  const parts = [
    ...(stops.length > 0
      ? [
          `${subject} stops ${counted(stops.length, 'webhook')} of ${ownersOf(stops)} (${listed(stops.map((s) => s.id))})`,
        ]
      : []),
    ...(unsure.length > 0
      ? [
          `svc could not tell whether ${stops.length > 0 ? 'it' : subject} stops ${counted(unsure.length, 'webhook')} of ${ownersOf(unsure)} (${listed(unsure.map((s) => s.id))}): it takes away what their API keys act with, and a webhook set up through one stops with it`,
        ]
      : []),
  ];
  return `${parts.join('; ')}: ${RULE}`;
}

/**
 * After the run (read back, not guessed): the watched webhooks the platform now shows stopped
 * (status disabled with a disabled_reason), in words; undefined when none is.
 */
export function stoppedSaid(
  watched: readonly string[],
  now: readonly OwnedWebhook[],
  /** The run's `svc webhooks get ID` line (its -p, --tenant, --base-url: src/platform's sayStopped). */
  getLine: string,
): string | undefined {
  const set = new Set(watched);
  const stopped = now.filter((w) => set.has(w.id) && isStopped(w));
  if (stopped.length === 0) return undefined;
  const owners = [...new Set(stopped.map((w) => w.owner_id ?? ''))].filter(Boolean);
  return `the platform disabled ${counted(stopped.length, 'webhook')}${owners.length ? ` of ${owners.join(', ')}` : ''} (${listed(stopped.map((w) => w.id))}): \`${getLine}\` says why and who may enable it again`;
}

/** stopsSaid as a question's further sentence (` This stops …`), or nothing. */
export function stopsSentence(forecast: WebhookStops | undefined): string {
  const said = forecast && stopsSaid(forecast);
  if (said === undefined) return '';
  return ` ${said.startsWith('this') ? `T${said.slice(1)}` : said}.`;
}
