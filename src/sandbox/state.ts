import { randomBytes } from 'node:crypto';
import { SandboxClock } from './clock.js';
import { DeliveryEngine, type DeliverySettings } from './delivery/engine.js';
import { AuditLog } from './domain/audit-trail.js';
import { IdentityStore } from './domain/identity.js';
import { OAuthStore } from './domain/oauth.js';
import { RecordStore } from './domain/records.js';
import { RoleStore } from './domain/roles.js';
import { keptStop } from './domain/webhook-owner.js';
import { WebhookStore } from './domain/webhooks.js';

export interface SecurityEvent {
  id: string;
  at: string;
  kind: string;
  actor: string;
  org_id: string | null;
  tenant_ids: string[];
  request_id: string;
  detail: string;
}

const SECURITY_EVENT_CAP = 10_000;

/** All of the sandbox's state, in memory. Each domain keeps its own store. */
export class SandboxState {
  readonly clock: SandboxClock;
  readonly identity: IdentityStore;
  readonly records: RecordStore;
  readonly oauth: OAuthStore;
  readonly webhooks: WebhookStore;
  /** Delivers webhook events (real HTTP POSTs), with retries and the dead-letter queue. */
  readonly delivery: DeliveryEngine;
  readonly roles: RoleStore;
  /** Every administrative change of every tenant (GET /v1/audit_trail). */
  readonly audit: AuditLog;
  readonly securityEvents: SecurityEvent[] = [];
  /** Signs the sandbox's JWTs; random per sandbox unless given. */
  readonly jwtSecret: Buffer;
  #eventSeq = 0;

  constructor(
    options: {
      jwtSecret?: Buffer;
      clock?: SandboxClock;
      webhooks?: Partial<DeliverySettings>;
      /** Signs webhook deliveries (Unix ms; default Date.now). */
      wallClock?: () => number;
    } = {},
  ) {
    this.clock = options.clock ?? new SandboxClock();
    this.jwtSecret = options.jwtSecret ?? randomBytes(32);
    this.identity = new IdentityStore(this.clock);
    this.records = new RecordStore(this.clock);
    this.oauth = new OAuthStore(this.clock);
    this.webhooks = new WebhookStore(this.clock);
    this.delivery = new DeliveryEngine(
      this.webhooks,
      this.clock,
      options.webhooks,
      Math.random,
      options.wallClock,
    );
    this.roles = new RoleStore(this.clock);
    this.audit = new AuditLog(this.clock);
    this.identity.roleIsLive = (tenantId, roleId) => this.roles.isLive(tenantId, roleId);
    this.webhooks.stopReason = (webhook) => keptStop(this, webhook);
  }

  /** Revoked OAuth token families (refresh-token reuse revokes the whole family). */
  readonly revokedTokenFamilies = new Set<string>();

  isTokenRevoked(claims: Record<string, unknown>): boolean {
    return typeof claims.fam === 'string' && this.revokedTokenFamilies.has(claims.fam);
  }

  recordSecurityEvent(event: Omit<SecurityEvent, 'id' | 'at'>): SecurityEvent {
    const record = { id: `sev_${++this.#eventSeq}`, at: this.clock.iso(), ...event };
    this.securityEvents.push(record);
    if (this.securityEvents.length > SECURITY_EVENT_CAP) this.securityEvents.shift();
    return record;
  }
}
