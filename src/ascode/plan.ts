import { createHash } from 'node:crypto';
import { canonicalJson } from '../api/canonical-json.js';
import type { Kind, Manage } from './model.js';

/**
 * The plan document: what `svc plan --json` prints and `--out` saves, and what `svc apply
 * PLAN.json` applies. It holds everything apply needs without the file (the values to send), and
 * what the live state was when it was computed (fingerprints), so a plan is applied only to the
 * state it was computed from. The shape is documented in the README ("The plan document").
 */

export const PLAN_FORMAT = 1;

export type Action = 'create' | 'update' | 'delete';
/** How a change reads: roles, webhooks and clients are created, updated, deleted; grants granted, extended, shortened, revoked. */
export type Verb = Action | 'grant' | 'extend' | 'shorten' | 'revoke';

export interface FieldChange {
  field: string;
  /** The live value (absent for a creation). */
  from?: unknown;
  /** The value the change sets (absent for a deletion). */
  to?: unknown;
  /**
   * A role deletion's `grants` (`from`: how many end with it): the users whose grant ends with the
   * role rather than being revoked first. A grant of anyone else when it is deleted keeps the role.
   */
  holders?: string[];
}

export interface GrantTarget {
  user: string;
  role: string;
  /** null when the role is created by the same plan. */
  role_id: string | null;
  expires_at: string | null;
  justification: string | null;
  /**
   * The entry's `expires_in` (`30d`) that `expires_at` was counted from the anchor with; absent for
   * an end time or a permanent grant. A grant held meanwhile that ends within this span of the
   * platform's time is as planned (./held-expiry.ts): another run's, made a few seconds apart.
   */
  expires_in?: string;
}

export interface PlanChange {
  kind: Kind;
  action: Action;
  verb: Verb;
  /** Identity in the tenant: a role's name, `user role`, a webhook's URL, a client's name. */
  name: string;
  /** The live resource's id (role id, webhook id, client_id); null for creations and grants. */
  id: string | null;
  /**
   * A creation's id in the file (`svc plan --create-missing`: an export's entry whose id is not in
   * this tenant): what tells two creations of one URL or name apart, in the change's key too.
   */
  ref?: string;
  /**
   * A webhook's or client's creation: the ids of live ones of its URL or name when it was planned
   * (which it is not). A saved plan's creation drifted, or a resumed run's is made, when another is there.
   */
  existing?: string[];
  /** Where the file declares it; null for removals (the file does not). */
  line: number | null;
  /** A removal: applied only with `svc apply --prune`. */
  prune: boolean;
  fields: FieldChange[];
  /** Fingerprint of the live resource the change was computed from; null when there was none. */
  before: string | null;
  /** Keys of changes of the same tenant that must succeed first (the role a grant is of). */
  needs: string[];
  grant?: GrantTarget;
  /**
   * Why svc apply refuses it: it would take away your own administration of the tenant, change
   * your own grants (self_assignment), leave the tenant without an administrator
   * (last_tenant_admin), stop the API key you are applying with (its issuer would no longer hold
   * what the key's role needs), hand out more than you hold (insufficient_permission,
   * insufficient_role, user_required), or need a permission held without an end date that you
   * hold only until a date (a webhook, an OAuth client). In words: ./lockout.ts REFUSAL_REASONS.
   */
  refused?: string;
  /**
   * It can reduce what the caller holds (their own grant revoked, a role they hold narrowed or
   * deleted): svc apply makes it after every other change of the run (./own-reach.ts).
   */
  last?: true;
  /**
   * The caller's own revocation of a role the run deletes: the key of that deletion, which ends the
   * grant (./own-reach.ts). svc apply sends no revocation: it follows the deletion, which could not
   * be made once the caller no longer held the role's permissions through it.
   */
  ended_by?: string;
}

/** What the plan compared in a tenant: every resource of a managed kind, or those the file names. */
export interface Scope {
  roles: 'all' | string[];
  /** `all`, or the roles whose grants were compared. */
  grants: 'all' | string[];
  /** `all`, or the URLs and ids the file names. */
  webhooks: 'all' | string[];
  /** `all`, or the names and client ids the file names. */
  oauth_clients: 'all' | string[];
}

export interface Unchanged {
  count: number;
  digest: string;
}

export interface PlanTenant {
  id: string;
  slug: string;
  display_name: string;
  scope: Scope;
  /** Fingerprints of the resources in scope that the plan leaves as they are. */
  unchanged: Record<Kind, Unchanged>;
  changes: PlanChange[];
}

export interface PlanSummary {
  tenants: number;
  tenants_changed: number;
  create: number;
  update: number;
  delete: number;
  /** Changes svc apply refuses (see `refused`). */
  refused: number;
}

export interface PlanDocument {
  svc_plan: typeof PLAN_FORMAT;
  /**
   * sha256 of the rest of the document (planDigest): what `svc apply PLAN.json` checks first, so
   * a plan edited by hand or cut short is refused, never applied. A check, not a signature.
   */
  digest: string;
  created_at: string;
  /** Who computed it (GET /v1/me's id): the one whose grants its refusals were judged on. */
  planned_by: string;
  base_url: string;
  file: { path: string; sha256: string };
  manage: Manage;
  /** The time relative expiries (`expires_in`) were counted from. */
  anchor: string;
  summary: PlanSummary;
  tenants: PlanTenant[];
}

/**
 * The digest of a plan document: sha256 over its content but `digest`, as canonical JSON (keys
 * sorted), so a plan saved again with other spacing or key order is the same plan. A tenant and a
 * change at a time: 100,000 changes are never one string.
 */
export function planDigest(doc: Omit<PlanDocument, 'digest'> & { digest?: unknown }): string {
  const { digest: _digest, tenants, ...head } = doc;
  const hash = createHash('sha256').update(canonicalJson(head));
  for (const { changes, ...tenant } of tenants) {
    hash.update(`\n${canonicalJson(tenant)}`);
    for (const change of changes) hash.update(`\n ${canonicalJson(change)}`);
  }
  return hash.digest('hex');
}

/**
 * The bulk operation's key of a change (and so of its idempotency keys): stable across plans of
 * the same state, and one per change — two creations of one URL differ by their `ref`.
 */
export function changeKey(
  tenant: string,
  change: Pick<PlanChange, 'kind' | 'action' | 'id' | 'name' | 'ref'>,
): string {
  const what = change.id ?? (change.ref === undefined ? change.name : `${change.name}#${change.ref}`);
  return `${tenant}/${change.kind}/${change.action}/${what}`;
}

export function summarize(tenants: readonly PlanTenant[]): PlanSummary {
  const summary: PlanSummary = {
    tenants: tenants.length,
    tenants_changed: 0,
    create: 0,
    update: 0,
    delete: 0,
    refused: 0,
  };
  for (const tenant of tenants) {
    if (tenant.changes.length > 0) summary.tenants_changed++;
    for (const change of tenant.changes) {
      summary[change.action]++;
      if (change.refused) summary.refused++;
    }
  }
  return summary;
}

export const countChanges = (summary: PlanSummary): number =>
  summary.create + summary.update + summary.delete;
