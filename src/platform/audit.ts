import { AuditTrailEntry, AuditTrailList, type AuditTrailListQuery } from '../api/schemas/audit.js';
import { path } from '../http/path.js';
import type { ApiPromise } from './api-promise.js';
import { AuditEntryNotFoundError } from './errors.js';
import type { CallOptions, Transport } from './transport.js';

/**
 * The tenant's audit trail (`/v1/audit_trail`, the read-only record surface, with filters):
 * every grant, expiry change, revocation, role, API key, webhook and OAuth client change.
 */
export class AuditTrail {
  constructor(private readonly transport: Transport) {}

  /** One page: oldest first, or newest first with `order: 'desc'`. */
  list(query: AuditTrailListQuery = {}, options?: CallOptions): ApiPromise<AuditTrailList> {
    return this.transport.page(this.#list(query), options);
  }

  /** Every entry matching the query, page after page. */
  listAll(
    query: Omit<AuditTrailListQuery, 'cursor'> = {},
    options?: CallOptions,
  ): AsyncGenerator<AuditTrailEntry> {
    return this.transport.all(this.#list(query), options);
  }

  /** One entry by id (the `audit_trail_id` a grant or revocation names). */
  get(id: string, options?: CallOptions): ApiPromise<AuditTrailEntry> {
    const operation = {
      method: 'GET',
      path: path`/v1/audit_trail/${id}`,
      schema: AuditTrailEntry,
      notFound: AuditEntryNotFoundError,
      about: { id },
      tenant: true,
    } as const;
    return this.transport.call(operation, options);
  }

  #list(query: AuditTrailListQuery) {
    return { method: 'GET', path: '/v1/audit_trail', query, schema: AuditTrailList } as const;
  }
}
