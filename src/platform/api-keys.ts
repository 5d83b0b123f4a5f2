import { ApiKey, type ApiKeyCreateBody, ApiKeyCreated, ApiKeyList } from '../api/schemas/api-keys.js';
import { path } from '../http/path.js';
import type { ApiPromise } from './api-promise.js';
import { ApiKeyNotFoundError, keysOf, shownBy, TenantNotFoundError } from './errors.js';
import type { CallOptions, Page, Transport } from './transport.js';

/**
 * A tenant's bearer API keys (`/v1/tenants/{id}/api-keys`). The tenant is in the path; the
 * X-Tenant-Id header, when sent, must name the same one, so each call sends the path's tenant
 * whatever the profile's is.
 */
export class ApiKeys {
  constructor(private readonly transport: Transport) {}

  /** Issues a key; the answer is the only place the key itself is ever shown. */
  create(
    tenant: string,
    body: Omit<ApiKeyCreateBody, 'idempotency_key'>,
    options?: CallOptions,
  ): ApiPromise<ApiKey & { key: string; warning: string }> {
    const operation = {
      method: 'POST',
      path: path`/v1/tenants/${tenant}/api-keys`,
      body,
      schema: ApiKeyCreated,
      notFound: TenantNotFoundError,
      check: shownBy('tenants api-keys ls', tenant),
      // A key of another tenant than the path's is not this one's.
      tenant: true,
    } as const;
    return this.transport.call(operation, { tenant, ...options });
  }

  /**
   * One page of the tenant's keys (never the keys themselves): the sandbox gives them whole, in
   * one answer; a server that pages them is followed by its cursor (review27a F2).
   */
  list(
    tenant: string,
    cursor?: string,
    options?: CallOptions,
  ): ApiPromise<Page<ApiKey> & { withheld?: number }> {
    const operation = { ...listOperation(tenant), ...(cursor === undefined ? {} : { query: { cursor } }) };
    return this.transport.page(operation, { tenant, ...options });
  }

  /**
   * Every key of the tenant, following every page (the platform has no GET of one key, so one is
   * read from here), with `withheld` as the first page gives it.
   */
  async listEvery(tenant: string, options?: CallOptions): Promise<{ items: ApiKey[]; withheld?: number }> {
    const operation = listOperation(tenant);
    let withheld: number | undefined;
    const items: ApiKey[] = [];
    const pages = this.transport.all<ApiKey, Page<ApiKey> & { withheld?: number }>(
      operation,
      { tenant, ...options },
      (page) => {
        withheld ??= page.withheld;
      },
    );
    for await (const key of pages) items.push(key);
    return withheld === undefined ? { items } : { items, withheld };
  }

  revoke(tenant: string, keyId: string, options?: CallOptions): ApiPromise<ApiKey> {
    const operation = {
      method: 'DELETE',
      path: path`/v1/tenants/${tenant}/api-keys/${keyId}`,
      schema: ApiKey,
      notFound: ApiKeyNotFoundError,
      lookIn: keysOf(tenant),
      gone: { ended: ['revoked'] },
      tenant: true,
    } as const;
    return this.transport.call(operation, { tenant, ...options });
  }
}

/** GET of a tenant's key list: one page (list) or all of them (listEvery). */
function listOperation(tenant: string) {
  return {
    method: 'GET',
    path: path`/v1/tenants/${tenant}/api-keys`,
    schema: ApiKeyList,
    notFound: TenantNotFoundError,
  } as const;
}
