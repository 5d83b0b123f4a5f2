import type { SandboxClock } from '../clock.js';
import { randomId } from '../tokens.js';

/** A record of the generic surface: the caller's fields plus the fields the sandbox owns. */
export interface SurfaceRecord {
  id: string;
  surface: string;
  tenant_id: string;
  created_at: string;
  updated_at: string;
  created_by: string;
  deleted_at: string | null;
  [field: string]: unknown;
}

/** Fields a client cannot set on a record. */
export const RESERVED_RECORD_FIELDS = new Set([
  'id',
  'surface',
  'tenant_id',
  'created_at',
  'updated_at',
  'created_by',
  'deleted_at',
  'idempotency_key',
]);

/** A stored record with its position in creation order (the cursor key, never sent to clients). */
export interface StoredRecord {
  seq: number;
  record: SurfaceRecord;
}

/** Records of every surface, per tenant, in creation order. */
export class RecordStore {
  readonly #byKey = new Map<string, StoredRecord[]>();
  #seq = 0;
  readonly #byId = new Map<string, SurfaceRecord>();
  readonly #clock: SandboxClock;

  constructor(clock: SandboxClock) {
    this.#clock = clock;
  }

  create(tenantId: string, surface: string, fields: Record<string, unknown>, actor: string): SurfaceRecord {
    const now = this.#clock.iso();
    const record: SurfaceRecord = {
      ...fields,
      id: randomId('rec'),
      surface,
      tenant_id: tenantId,
      created_at: now,
      updated_at: now,
      created_by: actor,
      deleted_at: null,
    };
    const key = `${tenantId}|${surface}`;
    const entry = { seq: ++this.#seq, record };
    const list = this.#byKey.get(key);
    if (list) list.push(entry);
    else this.#byKey.set(key, [entry]);
    this.#byId.set(record.id, record);
    return record;
  }

  get(tenantId: string, surface: string, id: string): SurfaceRecord | undefined {
    const record = this.#byId.get(id);
    return record && record.tenant_id === tenantId && record.surface === surface ? record : undefined;
  }

  list(tenantId: string, surface: string): StoredRecord[] {
    return this.#byKey.get(`${tenantId}|${surface}`) ?? [];
  }

  /** How many records a surface holds, deleted ones included (tests count side effects with it). */
  count(tenantId: string, surface: string): number {
    return this.list(tenantId, surface).length;
  }
}
