import { createHash, randomBytes } from 'node:crypto';
import { BUILTIN_TENANT_ROLES, ORG_ADMIN, type SubscriptionTier } from '../../api/constants.js';
import type { SandboxClock } from '../clock.js';
import { randomId } from '../tokens.js';

export interface Org {
  id: string;
  name: string;
}

export interface Tenant {
  id: string;
  slug: string;
  display_name: string;
  default_currency: string;
  time_zone: string;
  created_at: string;
  subscription_tier: SubscriptionTier;
  org_id: string;
  /** created_at in ms, the primary sort key of tenant lists. */
  createdMs: number;
}

export interface User {
  id: string;
  name: string;
  email: string;
  org_id: string;
  /** org_admin, or null. */
  org_role: string | null;
}

/** A role held by a user in a tenant. Seeded memberships are assignments without expiry. */
export interface Assignment {
  user_id: string;
  tenant_id: string;
  role_id: string;
  role_name: string;
  assigned_by: string;
  assigned_at: string;
  expires_at: string | null;
  audit_trail_id: string;
  revoked_at: string | null;
  /** Why the role was granted (request-only in the reference; kept for the audit trail). */
  justification?: string | null;
  revoked_by?: string | null;
  revocation_audit_trail_id?: string | null;
  /** The last change of the expiry (PATCH /v1/users/{id}/roles/{roleId}). */
  updated_at?: string | null;
  updated_by?: string | null;
  update_audit_trail_id?: string | null;
  /** Position in the tenant's assignments (1-based, creation order): the cursor key of lists. */
  seq?: number;
}

export type ApiKeyKind = 'publishable' | 'service_role';

export interface ApiKey {
  id: string;
  tenant_id: string;
  kind: ApiKeyKind;
  name: string;
  justification: string | null;
  created_by: string;
  created_at: string;
  /** sha256 of the key; the key itself is shown once. */
  hash: string;
  prefix: string;
  revoked_at: string | null;
  /** Who revoked it (the audit trail's actor), once revoked. */
  revoked_by?: string;
}

const ROLE_RANK = new Map<string, number>(BUILTIN_TENANT_ROLES.map((role, i) => [role, i]));

/** The role shown as "the caller's role within the tenant": the highest-ranked active one. */
export function primaryRole(roles: string[]): string | undefined {
  return [...roles].sort((a, b) => (ROLE_RANK.get(a) ?? 100) - (ROLE_RANK.get(b) ?? 100))[0];
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A stable UUID (version 5 layout) derived from a name, so seeded ids do not change between runs. */
export function stableUuid(name: string): string {
  const hex = createHash('sha1').update(`svc-sandbox:${name}`).digest('hex').slice(0, 32).split('');
  hex[12] = '5';
  hex[16] = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Organisations, tenants, users, their role assignments and API keys. Authorization reads roles
 * from here on every call, so a revoked or expired assignment stops granting access at once.
 */
export class IdentityStore {
  readonly orgs = new Map<string, Org>();
  readonly users = new Map<string, User>();
  readonly tenantsById = new Map<string, Tenant>();
  /** Every tenant, sorted by (created_at, id): the stable order of GET /v1/tenants. */
  readonly tenants: Tenant[] = [];
  readonly assignments: Assignment[] = [];
  readonly #byUserTenant = new Map<string, Assignment[]>();
  readonly #byTenant = new Map<string, Assignment[]>();
  readonly #tenantsOfUser = new Map<string, Set<string>>();
  readonly apiKeys = new Map<string, ApiKey>();
  /** Each organisation's users sorted by id, made on first use after a change (GET /v1/users). */
  readonly #usersByOrg = new Map<string, User[]>();
  readonly #clock: SandboxClock;
  /** Whether a role still grants anything (set by SandboxState: a soft-deleted custom role does not). */
  roleIsLive: (tenantId: string, roleId: string) => boolean = () => true;

  constructor(clock: SandboxClock) {
    this.#clock = clock;
  }

  addOrg(org: Org): Org {
    this.orgs.set(org.id, org);
    return org;
  }

  addUser(user: User): User {
    this.users.set(user.id, user);
    this.#usersByOrg.delete(user.org_id);
    return user;
  }

  /** The organisation's users, sorted by id. */
  usersOf(orgId: string): readonly User[] {
    let sorted = this.#usersByOrg.get(orgId);
    if (!sorted) {
      sorted = [...this.users.values()]
        .filter((u) => u.org_id === orgId)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      this.#usersByOrg.set(orgId, sorted);
    }
    return sorted;
  }

  addTenant(tenant: Omit<Tenant, 'createdMs'>): Tenant {
    const record: Tenant = { ...tenant, createdMs: Date.parse(tenant.created_at) };
    const last = this.tenants[this.tenants.length - 1];
    this.tenants.push(record);
    if (last && compareTenants(last, record) > 0) this.tenants.sort(compareTenants);
    this.tenantsById.set(record.id, record);
    return record;
  }

  /** Index of the first tenant strictly after the (createdMs, id) position. */
  tenantIndexAfter(createdMs: number, id: string): number {
    let lo = 0;
    let hi = this.tenants.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.tenants[mid]!;
      if (t.createdMs < createdMs || (t.createdMs === createdMs && t.id <= id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  addAssignment(
    assignment: Omit<Assignment, 'audit_trail_id' | 'revoked_at'> & { audit_trail_id?: string },
  ): Assignment {
    const record: Assignment = { audit_trail_id: randomId('aud'), revoked_at: null, ...assignment };
    this.assignments.push(record);
    const ofTenant = this.#byTenant.get(record.tenant_id);
    record.seq = (ofTenant?.length ?? 0) + 1;
    if (ofTenant) ofTenant.push(record);
    else this.#byTenant.set(record.tenant_id, [record]);
    const key = `${record.user_id}|${record.tenant_id}`;
    const list = this.#byUserTenant.get(key);
    if (list) list.push(record);
    else this.#byUserTenant.set(key, [record]);
    const tenants = this.#tenantsOfUser.get(record.user_id);
    if (tenants) tenants.add(record.tenant_id);
    else this.#tenantsOfUser.set(record.user_id, new Set([record.tenant_id]));
    return record;
  }

  isActive(assignment: Assignment, nowMs = this.#clock.now()): boolean {
    return (
      assignment.revoked_at === null &&
      (assignment.expires_at === null || Date.parse(assignment.expires_at) > nowMs) &&
      this.roleIsLive(assignment.tenant_id, assignment.role_id)
    );
  }

  /** Ends an assignment now; it stays in the history with who revoked it and the audit entry. */
  revokeAssignment(assignment: Assignment, revokedBy: string, auditTrailId: string): Assignment {
    assignment.revoked_at = this.#clock.iso();
    assignment.revoked_by = revokedBy;
    assignment.revocation_audit_trail_id = auditTrailId;
    return assignment;
  }

  /** Every assignment ever made in the tenant, in creation order (`seq`). */
  assignmentsIn(tenantId: string): Assignment[] {
    return this.#byTenant.get(tenantId) ?? [];
  }

  assignmentsOf(userId: string, tenantId: string): Assignment[] {
    return this.#byUserTenant.get(`${userId}|${tenantId}`) ?? [];
  }

  /** The user's active role names in the tenant. */
  rolesOf(userId: string, tenantId: string): string[] {
    const now = this.#clock.now();
    return this.assignmentsOf(userId, tenantId)
      .filter((a) => this.isActive(a, now))
      .map((a) => a.role_name);
  }

  /** Tenants where the user holds an active role, in list order. */
  memberTenants(userId: string): Tenant[] {
    const ids = [...(this.#tenantsOfUser.get(userId) ?? [])].filter(
      (id) => this.rolesOf(userId, id).length > 0,
    );
    return ids
      .map((id) => this.tenantsById.get(id))
      .filter((t): t is Tenant => t !== undefined)
      .sort(compareTenants);
  }

  isOrgAdmin(userId: string, orgId: string): boolean {
    const user = this.users.get(userId);
    return user?.org_id === orgId && user.org_role === ORG_ADMIN;
  }

  /** Issues an API key: the key is returned once, only its hash is kept. */
  createApiKey(input: {
    tenant_id: string;
    kind: ApiKeyKind;
    name: string;
    created_by: string;
    justification?: string | null;
  }): {
    record: ApiKey;
    key: string;
  } {
    const kindPrefix = input.kind === 'publishable' ? 'pk' : 'sk';
    const key = `svc_${kindPrefix}_${randomBytes(24).toString('base64url')}`;
    const record: ApiKey = {
      id: randomId('key'),
      ...input,
      justification: input.justification ?? null,
      created_at: this.#clock.iso(),
      hash: hashKey(key),
      prefix: key.slice(0, 10),
      revoked_at: null,
    };
    this.apiKeys.set(record.hash, record);
    return { record, key };
  }

  /** A tenant's keys, newest first (revoked ones included). */
  apiKeysOf(tenantId: string): ApiKey[] {
    return [...this.apiKeys.values()].filter((k) => k.tenant_id === tenantId).reverse();
  }

  apiKeyById(tenantId: string, id: string): ApiKey | undefined {
    return this.apiKeysOf(tenantId).find((k) => k.id === id);
  }

  findApiKey(key: string): ApiKey | undefined {
    const record = this.apiKeys.get(hashKey(key));
    return record && record.revoked_at === null ? record : undefined;
  }
}

function compareTenants(a: Tenant, b: Tenant): number {
  return a.createdMs - b.createdMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
