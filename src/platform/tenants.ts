import { TenantList, type TenantListQuery, type TenantSummary } from '../api/schemas/tenants.js';
import { ApiKeys } from './api-keys.js';
import type { ApiPromise } from './api-promise.js';
import type { CallOptions, Transport } from './transport.js';

/** The tenants visible to the caller (`/v1/tenants`), and their API keys. */
export class Tenants {
  readonly apiKeys: ApiKeys;

  constructor(private readonly transport: Transport) {
    this.apiKeys = new ApiKeys(transport);
  }

  list(query: TenantListQuery = {}, options?: CallOptions): ApiPromise<TenantList> {
    return this.transport.page({ method: 'GET', path: '/v1/tenants', query, schema: TenantList }, options);
  }

  /** Every tenant, page after page as they arrive (constant memory over 100,000 tenants). */
  listAll(query: TenantListQuery = {}, options?: CallOptions): AsyncGenerator<TenantSummary> {
    return this.transport.all({ method: 'GET', path: '/v1/tenants', query, schema: TenantList }, options);
  }
}
