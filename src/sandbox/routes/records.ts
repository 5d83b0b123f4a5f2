import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BUILTIN_TENANT_ROLES, RESERVED_SURFACES } from '../../api/constants.js';
import {
  RecordCreateBody,
  RecordList,
  RecordListQuery,
  RecordParams,
  RecordPatchBody,
  SurfaceParams,
  SurfaceRecord,
} from '../../api/schemas/records.js';
import { RESERVED_RECORD_FIELDS } from '../domain/records.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.js';
import { badRequest, conflict, notFound } from '../problem.js';
import { errorResponses, type RouteContext } from './context.js';

const RESERVED = new Set<string>(RESERVED_SURFACES);

/** Roles that may write records: every built-in role but the read-only viewer and auditor. */
const WRITERS = BUILTIN_TENANT_ROLES.filter((r) => r !== 'tenant_viewer' && r !== 'tenant_auditor');

function checkSurface(surface: string): void {
  if (RESERVED.has(surface)) throw notFound(`surface ${surface}`);
}

function refuseOwnedFields(fields: Record<string, unknown>): void {
  const reserved = Object.keys(fields).filter(
    (k) => RESERVED_RECORD_FIELDS.has(k) && k !== 'idempotency_key',
  );
  if (reserved.length > 0) {
    throw badRequest(
      `fields owned by the sandbox cannot be set: ${reserved.join(', ')}`,
      reserved.map((field) => ({ field, message: 'is read-only' })),
    );
  }
}

export default function recordRoutes(app: FastifyInstance, { state }: RouteContext): void {
  /** The record named by the path in the caller's tenant (soft-deleted ones included), or 404. */
  const findRecord = (request: FastifyRequest<{ Params: { surface: string; id: string } }>) => {
    const { surface, id } = request.params;
    checkSurface(surface);
    const record = state.records.get(request.tenant!.id, surface, id);
    if (!record) throw notFound(`${surface} record ${id}`);
    return record;
  };

  app.get<{ Params: { surface: string }; Querystring: RecordListQuery }>(
    '/v1/:surface',
    {
      config: { scopes: ['read:{surface}'] },
      schema: {
        tags: ['records'],
        summary: 'List records of a surface',
        params: SurfaceParams,
        querystring: RecordListQuery,
        response: { 200: RecordList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { surface } = request.params;
      checkSurface(surface);
      const limit = request.query.limit ?? 50;
      const fingerprint = filterFingerprint({ surface, deleted: request.query.include_deleted === true });
      const after = request.query.cursor ? decodeCursor(request.query.cursor, fingerprint) : undefined;
      const live = state.records
        .list(request.tenant!.id, surface)
        .filter((e) => request.query.include_deleted === true || !e.record.soft_delete);
      let from = after ? live.findIndex((e) => e.seq > after.k) : 0;
      if (from === -1) from = live.length;
      const page = live.slice(from, from + limit);
      const last = page[page.length - 1];
      const more = from + limit < live.length;
      return {
        items: page.map((e) => e.record),
        next_cursor: more && last ? encodeCursor({ k: last.seq, i: last.record.id }, fingerprint) : null,
      };
    },
  );

  app.post<{ Params: { surface: string }; Body: Record<string, unknown> }>(
    '/v1/:surface',
    {
      config: { roles: WRITERS },
      schema: {
        tags: ['records'],
        summary: 'Create a record',
        description: 'Idempotency key required. Fields the sandbox owns (id, created_at, …) cannot be set.',
        params: SurfaceParams,
        body: RecordCreateBody,
        response: { 201: SurfaceRecord, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { surface } = request.params;
      checkSurface(surface);
      const fields = { ...request.body };
      delete fields.idempotency_key;
      refuseOwnedFields(fields);
      const record = state.records.create(request.tenant!.id, surface, fields, request.principal!.subject);
      return reply.code(201).send(record);
    },
  );

  app.get<{ Params: { surface: string; id: string } }>(
    '/v1/:surface/:id',
    {
      config: { scopes: ['read:{surface}'] },
      schema: {
        tags: ['records'],
        summary: 'Fetch one record',
        params: RecordParams,
        response: { 200: SurfaceRecord, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const record = findRecord(request);
      return record;
    },
  );

  app.patch<{ Params: { surface: string; id: string }; Body: Record<string, unknown> }>(
    '/v1/:surface/:id',
    {
      config: { roles: WRITERS },
      schema: {
        tags: ['records'],
        summary: 'Update a record (JSON Merge Patch)',
        description:
          'A partial update as a JSON Merge Patch (RFC 7396): members merge, null removes a member. Fields the sandbox ' +
          'owns cannot be set. A soft-deleted record cannot be changed (409 record_deleted).',
        params: RecordParams,
        body: RecordPatchBody,
        response: { 200: SurfaceRecord, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      refuseOwnedFields(request.body);
      const record = findRecord(request);
      const { surface, id } = request.params;
      if (record.soft_delete) throw conflict(`${surface} record ${id} is deleted`, 'record_deleted');
      return state.records.update(record, request.body);
    },
  );

  app.delete<{ Params: { surface: string; id: string } }>(
    '/v1/:surface/:id',
    {
      config: { roles: WRITERS },
      schema: {
        tags: ['records'],
        summary: 'Soft-delete a record',
        description:
          'Sets the soft_delete flag and deleted_at: the record disappears from lists (unless include_deleted=true), ' +
          'stays readable by id, and is purged 30 days later on the sandbox clock (purge_at), after which it is gone. ' +
          'Deleting again returns the same record.',
        params: RecordParams,
        response: { 200: SurfaceRecord, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const record = findRecord(request);
      return state.records.softDelete(record);
    },
  );
}
