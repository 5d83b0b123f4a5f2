import type { FastifyInstance } from 'fastify';
import { BUILTIN_TENANT_ROLES } from '../../api/constants.js';
import {
  RecordCreateBody,
  RecordList,
  RecordListQuery,
  RecordParams,
  SurfaceParams,
  SurfaceRecord,
} from '../../api/schemas/records.js';
import { RESERVED_RECORD_FIELDS } from '../domain/records.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.js';
import { badRequest, notFound } from '../problem.js';
import { errorResponses, type RouteContext } from './context.js';

/** Path segments under /v1 that belong to other resources, never to the generic surface. */
export const RESERVED_SURFACES = new Set([
  'me',
  'tenants',
  'roles',
  'users',
  'webhooks',
  'oauth',
  'api_keys',
]);

/** Roles that may write records: every built-in role but the read-only viewer and auditor. */
const WRITERS = BUILTIN_TENANT_ROLES.filter((r) => r !== 'tenant_viewer' && r !== 'tenant_auditor');

function checkSurface(surface: string): void {
  if (RESERVED_SURFACES.has(surface)) throw notFound(`surface ${surface}`);
}

export default function recordRoutes(app: FastifyInstance, { state }: RouteContext): void {
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
      const fingerprint = filterFingerprint({ surface });
      const after = request.query.cursor ? decodeCursor(request.query.cursor, fingerprint) : undefined;
      const live = state.records
        .list(request.tenant!.id, surface)
        .filter((e) => e.record.deleted_at === null);
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
      const reserved = Object.keys(fields).filter((k) => RESERVED_RECORD_FIELDS.has(k));
      if (reserved.length > 0) {
        throw badRequest(
          `fields owned by the sandbox cannot be set: ${reserved.join(', ')}`,
          reserved.map((field) => ({ field, message: 'is read-only' })),
        );
      }
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
      const { surface, id } = request.params;
      checkSurface(surface);
      const record = state.records.get(request.tenant!.id, surface, id);
      if (!record || record.deleted_at !== null) throw notFound(`${surface} record ${id}`);
      return record;
    },
  );
}
