import { RECORD_OWNED_FIELDS } from '../../api/constants.js';
import { mergePatch, mergePatchChanges } from '../../api/merge-patch.js';
import type { SandboxClock } from '../clock.js';
import { randomId } from '../tokens.js';
import { badRequest, conflict } from './errors.js';

/** A record of the generic surface: the caller's fields plus the fields the sandbox owns. */
export interface SurfaceRecord {
  id: string;
  surface: string;
  tenant_id: string;
  created_at: string;
  updated_at: string;
  created_by: string;
  /** Set by DELETE: the record is hidden from lists and purged at `purge_at`. */
  soft_delete: boolean;
  deleted_at: string | null;
  purge_at: string | null;
  [field: string]: unknown;
}

/** Fields a client cannot set on a record. */
export const RESERVED_RECORD_FIELDS = new Set<string>([...RECORD_OWNED_FIELDS, 'idempotency_key']);

/**
 * The caller's own fields of a create or patch body: `idempotency_key` is the request's, never
 * record data (a PATCH may carry one; it is dropped), and the fields the sandbox owns are refused.
 */
export function ownFields(body: Record<string, unknown>): Record<string, unknown> {
  const { idempotency_key: _key, ...fields } = body;
  const owned = Object.keys(fields).filter((k) => RESERVED_RECORD_FIELDS.has(k));
  if (owned.length > 0) {
    throw badRequest(
      `fields owned by the sandbox cannot be set: ${owned.join(', ')}`,
      owned.map((field) => ({ field, message: 'is read-only' })),
    );
  }
  return fields;
}

/** How long a soft-deleted record is kept before it is purged (the reference's 30 days). */
export const PURGE_DELAY_MS = 30 * 24 * 3600 * 1000;

/** A stored record with its position in creation order (the cursor key, never sent to clients). */
export interface StoredRecord {
  seq: number;
  record: SurfaceRecord;
}

/**
 * Refuses (throws) a change from `before` (undefined: a creation) to `after`, the record's own
 * fields; a patch that changes nothing is checked too, with `after` the very `before`.
 */
export type RecordCheck = (
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
) => void;

/**
 * What an accepted change answers to a caller who cannot read the record (api/schemas/records.ts
 * RecordUnreadAnswer): id, surface, tenant_id, updated_at and what the change did, for a patch
 * the fields sent as sent (a member merged into an object would show its other members), for a
 * delete its own fields; no other field of the record, which would be a read.
 */
export function unreadAnswer(
  record: SurfaceRecord,
  sent: Record<string, unknown> | 'delete',
): Record<string, unknown> {
  const { id, surface, tenant_id, updated_at } = record;
  const did =
    sent === 'delete'
      ? { soft_delete: record.soft_delete, deleted_at: record.deleted_at, purge_at: record.purge_at }
      : ownFields(sent);
  return { ...did, id, surface, tenant_id, updated_at };
}

/** Records of every surface, per tenant, in creation order. Purged records are gone for good. */
export class RecordStore {
  readonly #byKey = new Map<string, StoredRecord[]>();
  readonly #byId = new Map<string, SurfaceRecord>();
  readonly #clock: SandboxClock;
  #seq = 0;

  constructor(clock: SandboxClock) {
    this.#clock = clock;
  }

  /** `check`: refuses (throws) a change the caller may not make, before anything is stored (record acts). */
  create(
    tenantId: string,
    surface: string,
    body: Record<string, unknown>,
    actor: string,
    check: RecordCheck = () => {},
  ): SurfaceRecord {
    const now = this.#clock.iso();
    const fields = ownFields(body);
    check(undefined, fields);
    const record: SurfaceRecord = {
      ...fields,
      id: randomId('rec'),
      surface,
      tenant_id: tenantId,
      created_at: now,
      updated_at: now,
      created_by: actor,
      soft_delete: false,
      deleted_at: null,
      purge_at: null,
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
    this.purge(tenantId, surface);
    const record = this.#byId.get(id);
    return record && record.tenant_id === tenantId && record.surface === surface ? record : undefined;
  }

  list(tenantId: string, surface: string): StoredRecord[] {
    this.purge(tenantId, surface);
    return this.#byKey.get(`${tenantId}|${surface}`) ?? [];
  }

  /**
   * Applies a merge patch to the caller's fields; a soft-deleted record cannot change. A patch
   * that changes nothing (`{}`, fields as they are) leaves the record as it was, updated_at too —
   * but for a caller who cannot read it (`blind`), whose accepted patch is written as any change
   * is (updated_at set): an answer with the old updated_at would tell them the record already held
   * what they sent (review16d D2).
   */
  update(
    record: SurfaceRecord,
    body: Record<string, unknown>,
    check: RecordCheck = () => {},
    blind = false,
  ): SurfaceRecord {
    const patch = ownFields(body);
    if (record.soft_delete) {
      throw conflict(`${record.surface} record ${record.id} is deleted`, 'record_deleted');
    }
    const owned = Object.fromEntries(
      [...RESERVED_RECORD_FIELDS].filter((k) => k in record).map((k) => [k, record[k]]),
    );
    const own = Object.fromEntries(Object.entries(record).filter(([k]) => !RESERVED_RECORD_FIELDS.has(k)));
    if (mergePatchChanges(own, patch).length === 0) {
      check(own, own); // answered as it is: a read, judged by the check too (blind: as a change)
      if (blind) record.updated_at = this.#clock.iso();
      return record;
    }
    const merged = mergePatch(own, patch) as Record<string, unknown>;
    check(own, merged);
    for (const key of Object.keys(record)) delete record[key];
    Object.assign(record, merged, owned, { updated_at: this.#clock.iso() });
    return record;
  }

  /** Soft delete: flagged, hidden from lists, purged PURGE_DELAY_MS later. Deleting again changes nothing. */
  softDelete(record: SurfaceRecord): SurfaceRecord {
    if (record.soft_delete) return record;
    const now = this.#clock.now();
    Object.assign(record, {
      soft_delete: true,
      deleted_at: this.#clock.iso(now),
      purge_at: this.#clock.iso(now + PURGE_DELAY_MS),
      updated_at: this.#clock.iso(now),
    });
    return record;
  }

  /** Removes soft-deleted records whose purge time has come (on the sandbox clock). */
  purge(tenantId: string, surface: string): void {
    const key = `${tenantId}|${surface}`;
    const list = this.#byKey.get(key);
    if (!list) return;
    const now = this.#clock.now();
    const kept = list.filter((e) => e.record.purge_at === null || Date.parse(e.record.purge_at) > now);
    if (kept.length === list.length) return;
    for (const e of list) if (!kept.includes(e)) this.#byId.delete(e.record.id);
    this.#byKey.set(key, kept);
  }

  /** How many records a surface holds, soft-deleted ones included (tests count side effects with it). */
  count(tenantId: string, surface: string): number {
    return this.list(tenantId, surface).length;
  }
}
