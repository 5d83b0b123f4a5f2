import { bodyText } from '../api/json-as-written.js';
import { RecordList, type RecordListQuery, SurfaceRecord } from '../api/schemas/records.js';
import { path } from '../http/path.js';
import type { ApiPromise } from './api-promise.js';
import { RecordNotFoundError, shownBy } from './errors.js';
import type { CallOptions, Transport } from './transport.js';

/** A record: the platform's fields next to the caller's own. */
export type PlatformRecord = SurfaceRecord & Record<string, unknown>;

/** The generic record surface (`/v1/{surface}`): reconciliations, exceptions, evidence packs, … */
export class Records {
  constructor(private readonly transport: Transport) {}

  list(
    surface: string,
    query: RecordListQuery = {},
    options?: CallOptions,
  ): ApiPromise<{ items: PlatformRecord[]; next_cursor: string | null }> {
    return this.transport.page(
      { method: 'GET', path: path`/v1/${surface}`, query, schema: RecordList },
      options,
    );
  }

  listAll(
    surface: string,
    query: RecordListQuery = {},
    options?: CallOptions,
  ): AsyncGenerator<PlatformRecord> {
    return this.transport.all(
      { method: 'GET', path: path`/v1/${surface}`, query, schema: RecordList },
      options,
    );
  }

  get(surface: string, id: string, options?: CallOptions): ApiPromise<PlatformRecord> {
    const operation = {
      method: 'GET',
      path: path`/v1/${surface}/${id}`,
      schema: SurfaceRecord,
      notFound: RecordNotFoundError,
      // Another record, or one of another tenant, is not the one asked for (attack26b F7).
      about: { id, surface },
      tenant: true,
    } as const;
    return this.transport.call(operation, options);
  }

  create(
    surface: string,
    fields: Record<string, unknown>,
    options?: CallOptions,
  ): ApiPromise<PlatformRecord> {
    return this.transport.call(
      {
        method: 'POST',
        path: path`/v1/${surface}`,
        body: fields,
        schema: SurfaceRecord,
        check: shownBy('records ls', surface),
        // An answer about another tenant than the request's is not its answer (review25b M1).
        tenant: true,
      },
      options,
    );
  }

  /** A JSON Merge Patch (RFC 7396): members merge, null removes. */
  update(
    surface: string,
    id: string,
    patch: Record<string, unknown>,
    options?: CallOptions,
  ): ApiPromise<PlatformRecord> {
    const operation = {
      method: 'PATCH',
      path: path`/v1/${surface}/${id}`,
      raw: { data: bodyText(patch), contentType: 'application/merge-patch+json' },
      schema: SurfaceRecord,
      notFound: RecordNotFoundError,
      about: { id, surface },
      check: shownBy('records get', surface, id),
      // An answer about another tenant than the request's is not its answer (review25b M1).
      tenant: true,
    } as const;
    return this.transport.call(operation, options);
  }

  /** Soft delete: hidden from lists now, purged at `purge_at`. */
  delete(surface: string, id: string, options?: CallOptions): ApiPromise<PlatformRecord> {
    const operation = {
      method: 'DELETE',
      path: path`/v1/${surface}/${id}`,
      schema: SurfaceRecord,
      notFound: RecordNotFoundError,
      // The client's own fields sit beside these (a reconciliation's `status`): they are its data.
      gone: { only: ['soft_delete', 'deleted_at'] },
      // An answer about another tenant than the request's is not its answer (review25b M1).
      tenant: true,
    } as const;
    return this.transport.call(operation, options);
  }
}
