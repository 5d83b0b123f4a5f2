import type { AuditAction, AuditTargetType } from '../../api/audit.js';
import type { SandboxClock } from '../clock.js';
import { randomId } from '../tokens.js';
import type { Principal } from '../types.js';
import type { SurfaceRecord } from './records.js';

/**
 * The audit trail: one entry per change an administrator makes in a tenant — role grants,
 * expiry changes and revocations, custom-role changes, API keys issued and revoked, webhooks
 * and OAuth clients created, changed, re-keyed and deleted. Entries are never changed or
 * removed. They are read as the audit_trail record surface (GET /v1/audit_trail, with filters)
 * and by the sandbox control GET /_sandbox/audit-trail.
 */
export interface AuditEntry {
  id: string;
  at: string;
  tenant_id: string;
  action: AuditAction;
  /** Who made the change: a user id or an API key id. */
  actor: string;
  /**
   * The OAuth client whose access token made the change, acting for the user in `actor` (a
   * third-party integration, or svc-cli, the user's own login). Absent: the actor's own JWT or key.
   */
  client_id?: string;
  request_id: string;
  /** What was changed: a user (for role grants), a role, an API key, a webhook or an OAuth client. */
  target_type: AuditTargetType;
  target_id: string;
  /** One line saying what happened, for people (the fields below are for programs). */
  summary: string;
  user_id: string | null;
  role_id: string | null;
  role_name: string | null;
  expires_at: string | null;
  /** role.assignment_updated: the expiry before the change (null: it was permanent). */
  previous_expires_at: string | null;
  justification: string | null;
  /** Updates: the names of the record's fields that changed (permissions, url, …), in record order. */
  changes: string[] | null;
  /**
   * What the change did, field by field (auditValues): an update's changed fields as they were
   * (`before`) and became (`after`); a creation's chosen fields in `after`. Never a secret: a
   * webhook URL has its credentials masked, and secrets are no such field. Null: nothing recorded.
   */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /** Role entries: the permissions the change put into the role (a creation: all) and took out. */
  permissions_added: string[] | null;
  permissions_removed: string[] | null;
  /** role.revoked not asked for as such: why the grant ended (role_deleted). Absent otherwise. */
  reason?: 'role_deleted';
}

export type AuditInput = Pick<
  AuditEntry,
  'tenant_id' | 'action' | 'actor' | 'request_id' | 'target_type' | 'target_id' | 'summary'
> &
  Partial<
    Pick<
      AuditEntry,
      | 'user_id'
      | 'role_id'
      | 'role_name'
      | 'expires_at'
      | 'previous_expires_at'
      | 'justification'
      | 'changes'
      | 'before'
      | 'after'
      | 'permissions_added'
      | 'permissions_removed'
      | 'reason'
      | 'client_id'
    >
  > & {
    /** When it happened, for seeded history; a recorded change is stamped with the clock. */
    at?: string;
  };

/**
 * An update's detail: the fields in `changes` as they were and as they are, from two snapshots of
 * the record's non-secret fields (a URL with its credentials already masked).
 */
export function auditValues(
  changes: readonly string[],
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Pick<AuditEntry, 'before' | 'after'> {
  const pick = (from: Record<string, unknown>) =>
    Object.fromEntries(changes.filter((f) => f in from).map((f) => [f, from[f]]));
  return { before: pick(before), after: pick(after) };
}

/**
 * The entry of a user's approval of a tenant's third-party OAuth client (the largest delegation
 * there is: the client acts with the user's authority as far as the scopes reach), or of a
 * token family of such an approval revoked (RFC 7009, by the client). Written in the client's
 * tenant, with the client as target (not client_id: no token of it made the change); the
 * first-party svc-cli (no tenant: the user's own login) writes none.
 */
export function auditClientGrant(
  log: AuditLog,
  client: { client_id: string; name: string; tenant_id: string | null },
  event:
    | {
        kind: 'authorized';
        userId: string;
        scopes: readonly string[];
        flow: 'authorization_code' | 'device_code';
      }
    | { kind: 'token_revoked'; userId: string; scopes: readonly string[] },
  requestId: string,
): void {
  if (client.tenant_id === null) return;
  const scopes = [...event.scopes];
  const common = {
    tenant_id: client.tenant_id,
    request_id: requestId,
    target_type: 'oauth_client' as const,
    target_id: client.client_id,
    user_id: event.userId,
  };
  if (event.kind === 'authorized') {
    log.record({
      ...common,
      action: 'oauth_client.authorized',
      actor: event.userId,
      summary: `${event.userId} authorized OAuth client ${client.client_id} (${client.name}) for ${scopes.join(' ')} (${event.flow === 'device_code' ? 'device flow' : 'authorization code flow'})`,
      after: { scopes, flow: event.flow },
    });
    return;
  }
  log.record({
    ...common,
    action: 'oauth_client.token_revoked',
    actor: client.client_id,
    summary: `OAuth client ${client.client_id} (${client.name}) revoked the tokens ${event.userId} gave it (${scopes.join(' ')}; RFC 7009)`,
    after: { scopes },
  });
}

/** Who made a change, as its entry names them: the user or key, and the OAuth client it acted through. */
export function actorOf(principal: Principal): Pick<AuditEntry, 'actor' | 'client_id'> {
  return principal.clientId === null
    ? { actor: principal.subject }
    : { actor: principal.subject, client_id: principal.clientId };
}

/** What GET /v1/audit_trail filters on. */
export interface AuditFilter {
  /** An action (role.assigned), or a family (role: every role.… action). */
  action?: string | undefined;
  actor?: string | undefined;
  user_id?: string | undefined;
  role_id?: string | undefined;
  target_type?: string | undefined;
  target_id?: string | undefined;
  sinceMs?: number | undefined;
  untilMs?: number | undefined;
}

export class AuditLog {
  readonly entries: AuditEntry[] = [];
  readonly #byId = new Map<string, number>();
  readonly #clock: SandboxClock;

  constructor(clock: SandboxClock) {
    this.#clock = clock;
  }

  record(input: AuditInput): AuditEntry {
    const { at, ...rest } = input;
    const entry: AuditEntry = {
      id: randomId('aud'),
      at: at ?? this.#clock.iso(),
      user_id: null,
      role_id: null,
      role_name: null,
      expires_at: null,
      previous_expires_at: null,
      justification: null,
      changes: null,
      before: null,
      after: null,
      permissions_added: null,
      permissions_removed: null,
      ...rest,
    };
    this.#byId.set(entry.id, this.entries.length);
    this.entries.push(entry);
    return entry;
  }

  /** The entry with its position (1-based: the cursor key), if it belongs to the tenant. */
  get(tenantId: string, id: string): { seq: number; entry: AuditEntry } | undefined {
    const index = this.#byId.get(id);
    const entry = index === undefined ? undefined : this.entries[index];
    return entry && entry.tenant_id === tenantId ? { seq: index! + 1, entry } : undefined;
  }

  /** The tenant's entries that match, oldest first, with their positions. */
  matching(tenantId: string, filter: AuditFilter = {}): Array<{ seq: number; entry: AuditEntry }> {
    const out: Array<{ seq: number; entry: AuditEntry }> = [];
    this.entries.forEach((entry, index) => {
      if (entry.tenant_id === tenantId && matches(entry, filter)) out.push({ seq: index + 1, entry });
    });
    return out;
  }
}

function matches(e: AuditEntry, f: AuditFilter): boolean {
  const at = Date.parse(e.at);
  return (
    (f.action === undefined ||
      e.action === f.action ||
      (!f.action.includes('.') && e.action.startsWith(`${f.action}.`))) &&
    (f.actor === undefined || e.actor === f.actor) &&
    (f.user_id === undefined || e.user_id === f.user_id) &&
    (f.role_id === undefined || e.role_id === f.role_id) &&
    (f.target_type === undefined || e.target_type === f.target_type) &&
    (f.target_id === undefined || e.target_id === f.target_id) &&
    (f.sinceMs === undefined || at >= f.sinceMs) &&
    (f.untilMs === undefined || at < f.untilMs)
  );
}

/** An entry as a record of the audit_trail surface: the record fields, then the entry's own. */
export function auditRecord(entry: AuditEntry): SurfaceRecord {
  const { id, at, tenant_id, ...fields } = entry;
  return {
    id,
    surface: 'audit_trail',
    tenant_id,
    created_at: at,
    updated_at: at,
    created_by: entry.actor,
    soft_delete: false,
    deleted_at: null,
    purge_at: null,
    ...fields,
  };
}
