import { randomBytes } from 'node:crypto';
import { SandboxClock } from './clock.js';
import { IdentityStore } from './domain/identity.js';
import { RecordStore } from './domain/records.js';
import { RoleStore } from './domain/roles.js';

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
  readonly roles: RoleStore;
  readonly securityEvents: SecurityEvent[] = [];
  /** Signs the sandbox's JWTs; random per sandbox unless given. */
  readonly jwtSecret: Buffer;
  #eventSeq = 0;

  constructor(options: { jwtSecret?: Buffer; clock?: SandboxClock } = {}) {
    this.clock = options.clock ?? new SandboxClock();
    this.jwtSecret = options.jwtSecret ?? randomBytes(32);
    this.identity = new IdentityStore(this.clock);
    this.records = new RecordStore(this.clock);
    this.roles = new RoleStore(this.clock);
    this.identity.roleIsLive = (tenantId, roleId) => this.roles.isLive(tenantId, roleId);
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
