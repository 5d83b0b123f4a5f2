/**
 * The caller's authority in one tenant, as svc predicts the rule of who may hand out what
 * (holds.ts and its parts) and the platform enforces it: the refusals of a change, in the
 * platform's order, and what a credential is (a person, an API key, a third-party client's token).
 */

import { choiceRefusal, REPLAY_READ, readRefusal, type WebhookChoice } from './channel-holds.js';
import { type ClientArming, clientArmingRefusal } from './client-reach.js';
import {
  HANDING_OUT,
  type HeldGrant,
  heldUntil,
  lackRefusal,
  outlivesRefusal,
  type RoleHolder,
  roleChange,
  widenOutlivesRefusal,
} from './holds.js';
import { keyMinterRefusal, makesKeyMinter, mintsKeys } from './key-minting.js';
import { callersRefusal } from './operation-words.js';
import { OPERATIONS } from './operations.js';
import { grantsPermission } from './roles.js';

export interface Refusal {
  code: string;
  message: string;
}

/** A role as the rule sees it: its name and permissions. */
export interface RoleHeld {
  name: string;
  permissions: readonly string[];
}

/**
 * The caller's authority in one tenant, as svc predicts it: a user's live grants, or an API key's
 * role, which nothing ends — a key acts only while its issuer holds that role's permissions
 * without an end date (the condition of minting it); else every call with it, the reads a
 * prediction starts from included, is 401 invalid_token, so a key that answers holds its role
 * for as long as anything it hands out. Each method gives the platform's refusal of a change, in
 * the order the platform checks (the operation's own permission, then what the change hands out,
 * then keys minting keys, then for how long), or undefined. A prediction only: the real run
 * reports the platform's own answer, and self_assignment and last_tenant_admin are predicted
 * elsewhere.
 */
export class CallerAuthority {
  readonly held: readonly string[];

  constructor(
    readonly tenant: string,
    readonly grants: readonly HeldGrant[],
    /** false for an API key. */
    readonly person: boolean,
    /** The third-party OAuth client a person's token acts through (thirdPartyClientOf), or null. */
    readonly client: string | null = null,
  ) {
    this.held = grants.flatMap((g) => g.permissions);
  }

  #operation(permission: string, what: string): Refusal | undefined {
    if (grantsPermission(this.held, permission)) return undefined;
    return {
      code: 'insufficient_role',
      message: `${what} needs permission ${permission} in ${this.tenant}, which your live roles there do not grant; ask an administrator of ${this.tenant}`,
    };
  }

  #lack(what: string, needed: Iterable<string>, fix: string): Refusal | undefined {
    const message = lackRefusal(what, this.held, needed);
    return message === undefined
      ? undefined
      : { code: 'insufficient_permission', message: `${message}; ${fix}` };
  }

  /** A grant of `role` until `expiry`; with `current`, the move of a held grant's expiry from there. */
  grant(role: RoleHeld, expiry: string | null, current?: string | null): Refusal | undefined {
    const refused =
      this.#operation('role.assign', 'granting a role') ??
      this.#lack(HANDING_OUT.grant, role.permissions, `have someone who holds them grant ${role.name}`);
    if (refused) return refused;
    if (!this.person && mintsKeys(role.permissions)) {
      return {
        code: 'user_required',
        message: keyMinterRefusal(role.name, current === undefined ? 'grant' : 'expiry'),
      };
    }
    const message = outlivesRefusal(role.name, heldUntil(this.grants, role.permissions), expiry, current);
    return message === undefined ? undefined : { code: 'insufficient_permission', message };
  }

  /** A revocation of `role`. */
  revoke(role: RoleHeld): Refusal | undefined {
    return (
      this.#operation('role.assign', 'revoking a role') ??
      this.#lack(HANDING_OUT.grant, role.permissions, `have someone who holds them revoke ${role.name}`)
    );
  }

  /**
   * A custom role created (`before` null), changed, or deleted (`after` null); `holders`: its live
   * holders now (a widen must not outlast the caller's hold on what it adds for any of them).
   */
  role(
    name: string,
    before: readonly string[] | null,
    after: readonly string[] | null,
    holders: readonly RoleHolder[] = [],
  ): Refusal | undefined {
    const refused = this.#operation('role.manage', 'changing custom roles');
    if (refused) return refused;
    const fix = `have someone who holds them change ${name}`;
    if (after === null) return this.#lack(HANDING_OUT.delete, before ?? [], fix);
    const { added } = roleChange(before ?? [], after);
    const lacking =
      this.#lack(HANDING_OUT.change, before ?? [], fix) ?? this.#lack(HANDING_OUT.widen, added, fix);
    if (lacking) return lacking;
    if (!this.person && makesKeyMinter(before ?? [], after)) {
      return { code: 'user_required', message: keyMinterRefusal(name, before === null ? 'create' : 'widen') };
    }
    const message = widenOutlivesRefusal(name, this.grants, added, holders);
    return message === undefined ? undefined : { code: 'insufficient_permission', message };
  }

  /**
   * An operation for users themselves only (src/api/operations.ts `callers`: one that mints or
   * re-points a standing credential, an OAuth client's creation or change among them), refused to
   * an API key and to a third-party OAuth client's token first of all, as the platform checks it
   * (src/sandbox/domain/authorization.ts authorizeOperation): 403 user_required.
   */
  users(operationId: string): Refusal | undefined {
    return usersOnlyRefusal(operationId, this.person, this.client);
  }

  /**
   * A replay of a delivery whose webhook and event carry `kinds`: webhook.manage, then the read
   * permission of their data held now (readRefusal: a replay chooses no URL). The sandbox's
   * replay route checks the same (src/sandbox/domain/webhook-owner.ts requireRead).
   */
  replay(kinds: readonly string[]): Refusal | undefined {
    const refused = this.#operation('webhook.manage', 'replaying deliveries');
    if (refused) return refused;
    const message = readRefusal(REPLAY_READ, this.grants, kinds);
    return message === undefined ? undefined : { code: 'insufficient_permission', message };
  }

  /** A discard of a dead-letter entry: webhook.manage only (it sends no data). */
  discard(): Refusal | undefined {
    return this.#operation('webhook.manage', 'discarding dead-letter entries');
  }

  /**
   * A change of a webhook or an OAuth client, which takes webhook.manage or oauth_client.manage;
   * with `channel`, a webhook change that chooses where its kinds' data goes (a creation, a new
   * URL, added kinds, enabling), which also takes their read permissions without an end date (a
   * creation, which hands out the signing secret, webhook.manage so held too: choiceRefusal); with
   * `reach`, an OAuth client change that arms it with its scopes (a creation, added scopes, a new
   * redirect URI, a rotated secret), which also takes every permission those scopes reach (and a
   * creation, a new redirect URI or a rotation oauth_client.manage held without an end date:
   * clientArmingRefusal).
   */
  integration(
    kind: 'webhook' | 'oauth_client',
    channel?: WebhookChoice,
    reach: readonly ClientArming[] = [],
  ): Refusal | undefined {
    const refused =
      kind === 'webhook'
        ? this.#operation('webhook.manage', 'changing webhooks')
        : this.#operation('oauth_client.manage', 'changing OAuth clients');
    if (refused) return refused;
    const message =
      (channel && choiceRefusal(this.grants, channel)) ?? clientArmingRefusal(this.grants, reach);
    return message === undefined ? undefined : { code: 'insufficient_permission', message };
  }
}

/**
 * The caller's authority from what a client can read: `person` (GET /v1/me type user), the roles
 * it holds live in the tenant with their ends (a user's own assignments; an API key's one role,
 * which nothing ends while the key acts), and the roles' permissions. Undefined when a role's permissions are not
 * known: then nothing is predicted.
 */
export function authorityFrom(
  tenant: string,
  person: boolean,
  held: Iterable<{ role: string; expiresAt: string | null }>,
  permissionsOf: (role: string) => readonly string[] | undefined,
  /** The third-party OAuth client the person's token acts through (thirdPartyClientOf), or null. */
  client: string | null = null,
): CallerAuthority | undefined {
  const grants: HeldGrant[] = [];
  for (const { role, expiresAt } of held) {
    const permissions = permissionsOf(role);
    if (!Array.isArray(permissions)) return undefined;
    grants.push({ permissions, expiresAt });
  }
  return new CallerAuthority(tenant, grants, person, client);
}

/**
 * The 403 user_required refusal of an operation for users themselves only (src/api/operations.ts
 * `callers`), as the platform checks it before anything else: to an API key (`person` false), or
 * to a person's token through the third-party OAuth client `client`; undefined when allowed.
 */
export function usersOnlyRefusal(
  operationId: string,
  person: boolean,
  client: string | null,
): Refusal | undefined {
  const rule = OPERATIONS[operationId];
  if (rule?.callers !== 'users' || (person && client === null)) return undefined;
  return { code: 'user_required', message: callersRefusal(operationId, rule, person ? client : null) };
}

/** What GET /v1/me says of the credential, as far as the rules of callers go. */
export interface CredentialSaid {
  type: string;
  credential?: { client_id?: unknown; third_party?: unknown };
}

/**
 * The third-party OAuth client (one created in a tenant, not the first-party svc-cli) whose token
 * the caller acts through, as GET /v1/me says it: credential.third_party true, and
 * credential.client_id. Null for a user's own login, an API key, and a server that does not say
 * both (then nothing is predicted of it, and the platform's own answer is reported).
 */
export function thirdPartyClientOf(me: CredentialSaid): string | null {
  const credential = me.credential;
  if (me.type !== 'user' || credential?.third_party !== true) return null;
  return typeof credential.client_id === 'string' && credential.client_id !== ''
    ? credential.client_id
    : null;
}
