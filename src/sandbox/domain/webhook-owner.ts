import { choiceRefusal, readRefusal, secretRefusal, type WebhookChoice } from '../../api/channel-holds.js';
import { type HeldGrant, missingPermissions } from '../../api/holds.js';
import { EVENT_READ_PERMISSIONS, eventReadPermissions } from '../../api/permissions.js';
import type { SandboxState } from '../state.js';
import type { Principal } from '../types.js';
import { keyStopped } from './api-keys.js';
import { heldGrants, thirdPartyClient, userGrants, userPermissions } from './authorization.js';
import { DomainError } from './errors.js';
import { grantRevoked } from './token-revocation.js';
import type { DataReader } from './webhook-views.js';
import type { WebhookOwner, WebhookRecord } from './webhooks.js';

/**
 * A webhook is a standing read channel: it sends its kinds' data to its URL for as long as it
 * exists. So, as for an API key, whoever chooses where that data goes (creates the webhook,
 * changes its URL, adds kinds, enables it) must hold the read permission of each kind's data
 * (EVENT_READ_PERMISSIONS) without an end date, and the webhook delivers only while its owner —
 * the person who last made that choice — still holds them and the credential they chose it
 * through still exists. Once it stops, it stays stopped (keptStop) until someone enables it. A
 * replay chooses nothing (the owner chose the URL): it takes the read permission held now. The
 * person behind a credential: a user's own login; a delegated OAuth token's approving user (the
 * webhook also ends with the client, and when every token the user's approval gave the client
 * is revoked); an API key's
 * issuer (the webhook also ends with the key). A key the sandbox's test controls minted has no
 * person behind it: its webhooks end with the key.
 */

/** The person and credential behind a choice made by `principal`. */
export function ownerOf(state: SandboxState, principal: Principal, tenantId: string): WebhookOwner {
  if (principal.fixedRoles) {
    const key = state.identity.apiKeyById(tenantId, principal.subject);
    const issuer = key && state.identity.users.has(key.created_by) ? key.created_by : null;
    return { user: issuer, via: { kind: 'api_key', id: principal.subject } };
  }
  const client = thirdPartyClient(principal);
  return {
    user: principal.user?.id ?? null,
    via: client === null ? null : { kind: 'oauth_client', id: client },
  };
}

/** The grants the choice is judged by: the person's own (a key's issuer's), or a key's role when no one is behind it. */
function choiceGrants(state: SandboxState, principal: Principal, tenantId: string): HeldGrant[] {
  const { user } = ownerOf(state, principal, tenantId);
  if (user === null || user === principal.user?.id) return heldGrants(state, principal, tenantId);
  return userGrants(state, user, tenantId);
}

/**
 * 403 insufficient_permission unless the caller holds the read permission of every kind without
 * an end date, and, for a choice that hands out the signing secret (a creation), webhook.manage so
 * held (src/api/channel-holds.ts choiceRefusal).
 */
export function requireChannel(
  state: SandboxState,
  principal: Principal,
  tenantId: string,
  choice: WebhookChoice,
): void {
  refuseBy(choiceRefusal(choiceGrants(state, principal, tenantId), choice));
}

/**
 * 403 insufficient_permission unless the caller holds webhook.manage and the read permission of
 * every kind without an end date (src/api/channel-holds.ts secretRefusal): a rotation or restore of the
 * signing secret, a standing credential.
 */
export function requireSecret(
  state: SandboxState,
  principal: Principal,
  tenantId: string,
  what: string,
  kinds: readonly string[],
): void {
  refuseBy(secretRefusal(what, choiceGrants(state, principal, tenantId), kinds));
}

/** 403 insufficient_permission unless the caller holds, now, the read permission of every kind (a replay). */
export function requireRead(
  state: SandboxState,
  principal: Principal,
  tenantId: string,
  what: string,
  kinds: readonly string[],
): void {
  refuseBy(readRefusal(what, heldGrants(state, principal, tenantId), kinds));
}

/** A hold rule's refusal (src/api/holds.ts), if any, as the platform's 403 insufficient_permission. */
function refuseBy(refusal: string | undefined): void {
  if (refusal !== undefined) throw new DomainError('insufficient_permission', refusal);
}

/** The permissions that read this kind's data which these held permissions lack (none: they read it). */
const unreadable = (held: readonly string[], kind: string): string[] =>
  missingPermissions(held, eventReadPermissions([kind]));

const heldPermissions = (state: SandboxState, principal: Principal, tenantId: string): string[] =>
  heldGrants(state, principal, tenantId).flatMap((g) => g.permissions);

/** 403 insufficient_permission unless the caller holds the permission that reads this kind's data (a payload). */
export function requireEventRead(
  state: SandboxState,
  principal: Principal,
  tenantId: string,
  kind: string,
): void {
  const missing = unreadable(heldPermissions(state, principal, tenantId), kind);
  if (missing.length === 0) return;
  throw new DomainError(
    'insufficient_permission',
    `this delivery's payload is the data of its ${kind} event, which ${missing.join(', ')} reads; you lack it: ask for a role that grants it`,
  );
}

/**
 * Whether the caller reads each kind's data, by requireEventRead's rule: what shows a target's
 * answer body in a delivery's or a dead-letter entry's errors (webhook-views.ts, shownError).
 */
export function eventDataReader(state: SandboxState, principal: Principal, tenantId: string): DataReader {
  const held = heldPermissions(state, principal, tenantId);
  return (kind) => unreadable(held, kind).length === 0;
}

/**
 * Why the platform stopped a webhook (it shows status disabled and this as disabled_reason, and
 * makes no delivery), or null while its owner may keep it: the credential it was chosen through
 * is gone, or the owner no longer holds the read permission of one of its kinds.
 */
export function stoppedBecause(state: SandboxState, webhook: WebhookRecord): string | null {
  const { owner } = webhook;
  if (owner === null) return null;
  const readers = eventReadPermissions(webhook.event_types);
  const fix = `someone who holds ${readers.join(', ') || 'them'} without an end date can enable it again, and then owns it`;
  const gone = channelGone(state, webhook.tenant_id, owner);
  if (gone !== null) return `${gone.stop}; ${fix}`;
  if (owner.user === null) return null;
  const held = state.identity.users.has(owner.user)
    ? userPermissions(state, owner.user, webhook.tenant_id)
    : new Set<string>();
  const missing = missingPermissions(held, readers);
  if (missing.length === 0) return null;
  const kinds = webhook.event_types.filter((k) => missing.includes(EVENT_READ_PERMISSIONS[k] ?? ''));
  const read = missing.length === 1 ? 'reads' : 'read';
  return `its owner ${owner.user} no longer holds ${missing.join(', ')}, which ${read} the data of ${kinds.join(', ')}; ${fix}`;
}

/**
 * The OAuth client or API key `owner` chose through, when it no longer acts: in a disabled_reason's
 * words (`stop`: "the OAuth client cli_… it was set up through was deleted") and as what a secret
 * was given to (`holder`: "…set up through, which was deleted"); null while it acts, or for a user's
 * own login.
 */
function channelGone(
  state: SandboxState,
  tenantId: string,
  owner: WebhookOwner,
): { stop: string; holder: string } | null {
  const via = owner.via;
  const words = (named: string, fate: string) => ({
    stop: `${named} ${fate}`,
    holder: `${named}, which ${fate}`,
  });
  if (via?.kind === 'oauth_client') {
    const client = `the OAuth client ${via.id} it was set up through`;
    if (!state.oauth.clients.has(via.id)) return words(client, 'was deleted');
    if (owner.user !== null && grantRevoked(state, via.id, owner.user)) {
      return {
        stop: `every token of ${client} was revoked for ${owner.user}, who approved it`,
        holder: `${client}, whose every token was revoked for ${owner.user}, who approved it`,
      };
    }
  }
  if (via?.kind === 'api_key') {
    const key = state.identity.apiKeyById(tenantId, via.id);
    const named = `the API key ${via.id} it was set up through`;
    if (!key || key.revoked_at !== null) return words(named, 'was revoked');
    if (keyStopped(state, key) !== undefined) {
      return words(
        named,
        `no longer acts (its issuer ${key.created_by} no longer holds its role's permissions without an end date)`,
      );
    }
  }
  return null;
}

/**
 * Whether the webhook still signs with a secret answered through an OAuth client or API key that no
 * longer acts (created through a vendor's token or a key, then the client deleted or the key
 * revoked): whoever kept it signs events its receiver trusts, so the webhook's record says so
 * (rotation_reason) until a user rotates it (review18 R18-7). Null otherwise.
 */
export function rotationReason(state: SandboxState, webhook: WebhookRecord): string | null {
  const given = webhook.secretGivenTo;
  const gone = given === null ? null : channelGone(state, webhook.tenant_id, given);
  if (gone === null) return null;
  return `its signing secret was given to ${gone.holder}: whoever kept it can sign events its receiver trusts; rotate the secret`;
}

/**
 * Why the platform stopped a webhook, kept: the first time stoppedBecause finds a reason (any
 * read of the webhook, a delivery, and a sweep before and after every request: SandboxState),
 * it is stored, and the webhook stays stopped though its owner regains the permission, just in
 * time or not, until someone enables it (PATCH status enabled, which takes the permission
 * without an end date and makes them its owner) or disables it on request.
 */
export function keptStop(state: SandboxState, webhook: WebhookRecord): string | null {
  if (webhook.deleted_at !== null) return webhook.stopped;
  webhook.stopped ??= stoppedBecause(state, webhook);
  return webhook.stopped;
}

const sameOwner = (a: WebhookOwner | null, b: WebhookOwner | null) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Who owns a webhook after `chooser` made a choice of where its data goes (routes/webhooks.ts
 * PATCH), and what puts that back. The chooser, except when the choice only puts back the URL
 * that the chooser's own URL change replaced (svc webhooks listen, an edit undone): then the
 * owner before that change, as long as they would keep it (else the chooser). So a change put
 * back leaves no one owning a webhook they did not own.
 */
export function ownerAfter(
  state: SandboxState,
  webhook: WebhookRecord,
  chooser: WebhookOwner,
  change: { url: string | null; addsKinds: boolean; enables: boolean },
): { owner: WebhookOwner; undo: WebhookRecord['undo'] } {
  const undo = webhook.undo;
  const putsBack =
    undo !== null &&
    change.url === undo.url &&
    !change.addsKinds &&
    !change.enables &&
    sameOwner(webhook.owner, chooser) &&
    stoppedBecause(state, { ...webhook, owner: undo.owner }) === null;
  if (putsBack && undo.owner !== null) return { owner: undo.owner, undo: null };
  if (change.url !== null && !sameOwner(webhook.owner, chooser)) {
    return { owner: chooser, undo: { url: webhook.url, owner: webhook.owner } };
  }
  // The same chooser moving the URL again may still put back the first one.
  const keeps = undo !== null && !change.addsKinds && !change.enables && sameOwner(webhook.owner, chooser);
  return { owner: chooser, undo: keeps ? undo : null };
}
