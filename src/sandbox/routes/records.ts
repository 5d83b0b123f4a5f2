import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RECORD_SURFACES } from '../../api/operations.js';
import { blindNeed, recordActs } from '../../api/record-acts.js';
import {
  RecordChangeAnswer,
  RecordCreateBody,
  RecordIdParams,
  RecordList,
  RecordListQuery,
  RecordPatchBody,
  SurfaceRecord,
} from '../../api/schemas/records.js';
import { blindRefusal, readsSurface, requireRecordActs } from '../domain/authorization.js';
import { notFound } from '../domain/errors.js';
import {
  ownFields,
  type RecordCheck,
  type SurfaceRecord as StoredRecord,
  unreadAnswer,
} from '../domain/records.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.js';
import { errorResponses, type RouteContext } from './context.js';

/** Surfaces whose reads have a route module of their own (audit-trail.ts: filters, its own schema). */
const OWN_READS = new Set(['audit_trail']);

/**
 * The record surfaces (src/api/operations.ts: RECORD_SURFACES), each a route of its own so the
 * document names every operation and any other name under /v1 is a 404. Read-only surfaces
 * answer writes with 405 and Allow (hidden routes: they are not operations).
 */
export default function recordRoutes(app: FastifyInstance, { state }: RouteContext): void {
  for (const [surface, rules] of Object.entries(RECORD_SURFACES)) {
    const tags = ['records'];
    const find = (tenantId: string, id: string) => {
      const record = state.records.get(tenantId, surface, id);
      if (!record) throw notFound(`${surface} record ${id}`);
      return record;
    };
    const reads = (request: FastifyRequest) =>
      readsSurface(state, request.principal!, request.tenant!, rules.read);
    /**
     * A record the caller will change: to one who cannot read it, an id that is missing or deleted
     * is refused as a change of a record they cannot read, as any refused change is (blind): a 404
     * or 409 would tell them what a GET does not.
     */
    const target = (
      request: FastifyRequest,
      id: string,
      act: 'change' | 'delete' = 'change',
    ): StoredRecord => {
      if (!reads(request)) {
        const record = state.records.get(request.tenant!.id, surface, id);
        if (!record || record.soft_delete) {
          throw blindRefusal(
            state,
            request.principal!,
            request.tenant!,
            blindNeed(surface, rules.read, act),
            rules.read,
            act,
          );
        }
      }
      return find(request.tenant!.id, id);
    };
    /**
     * What the record says is done takes the catalog's finer permissions (src/api/record-acts.ts);
     * `sent`: the patch of a caller who cannot read the record (a no-op judged as a change).
     */
    const acts =
      (request: FastifyRequest, sent?: Record<string, unknown>): RecordCheck =>
      (before, after) =>
        requireRecordActs(
          state,
          request.principal!,
          request.tenant!,
          recordActs(surface, before, after, rules.read, sent),
          rules.read,
        );

    if (!OWN_READS.has(surface)) {
      app.get<{ Querystring: RecordListQuery }>(
        `/v1/${surface}`,
        {
          config: { operation: `${surface}_list` },
          schema: {
            tags,
            summary: `List ${rules.description.toLowerCase()}`,
            description: `${rules.description}: records in creation order, cursor-paged; soft-deleted ones only with include_deleted=true.`,
            querystring: RecordListQuery,
            response: { 200: RecordList, ...errorResponses(400, 401, 403) },
          },
        },
        async (request) => {
          const includeDeleted = request.query.include_deleted === true;
          const limit = request.query.limit ?? 50;
          const fingerprint = filterFingerprint({ surface, deleted: includeDeleted });
          const scope = { list: `/v1/${surface}`, tenant: request.tenant!.id };
          const after = request.query.cursor
            ? decodeCursor(request.query.cursor, fingerprint, scope)
            : undefined;
          const live = state.records
            .list(request.tenant!.id, surface)
            .filter((e) => includeDeleted || !e.record.soft_delete);
          let from = after ? live.findIndex((e) => e.seq > after.k) : 0;
          if (from === -1) from = live.length;
          const page = live.slice(from, from + limit);
          const last = page[page.length - 1];
          const more = from + limit < live.length;
          return {
            items: page.map((e) => e.record),
            next_cursor:
              more && last ? encodeCursor({ k: last.seq, i: last.record.id }, fingerprint, scope) : null,
          };
        },
      );

      app.get<{ Params: { id: string } }>(
        `/v1/${surface}/:id`,
        {
          config: { operation: `${surface}_get` },
          schema: {
            tags,
            summary: `Fetch one record of ${surface}`,
            description: 'Soft-deleted records stay readable by id until they are purged.',
            params: RecordIdParams,
            response: { 200: SurfaceRecord, ...errorResponses(401, 403, 404) },
          },
        },
        async (request) => find(request.tenant!.id, request.params.id),
      );
    }

    // A read-only surface (the audit trail) has no write routes: writes answer 405 with Allow.
    if (rules.write === null) continue;

    app.post<{ Body: Record<string, unknown> }>(
      `/v1/${surface}`,
      {
        config: { operation: `${surface}_create` },
        schema: {
          tags,
          summary: `Create a record of ${surface}`,
          description: 'Idempotency key required. Fields the sandbox owns (id, created_at, …) cannot be set.',
          body: RecordCreateBody,
          response: { 201: SurfaceRecord, ...errorResponses(400, 401, 403, 409) },
        },
      },
      async (request, reply) => {
        const record = state.records.create(
          request.tenant!.id,
          surface,
          request.body,
          request.principal!.subject,
          acts(request),
        );
        return reply.code(201).send(record);
      },
    );

    app.patch<{ Params: { id: string }; Body: Record<string, unknown> }>(
      `/v1/${surface}/:id`,
      {
        config: { operation: `${surface}_update` },
        schema: {
          tags,
          summary: `Update a record of ${surface} (JSON Merge Patch)`,
          description:
            'A partial update as a JSON Merge Patch (RFC 7396): members merge, null removes a member. Fields the sandbox ' +
            'owns cannot be set; an idempotency_key member is ignored (never stored). A patch that changes nothing answers the record ' +
            "as it was, updated_at too, and so is a read: it takes the surface's read permission (403 insufficient_role). A soft-deleted record cannot be changed (409 record_deleted). " +
            "A caller without the surface's read permission (a finer permission alone: exception.assign, exception.resolve.fx_difference, " +
            'rule.write.fx; or write without read) reads nothing through it: an accepted change answers only what was sent, with id, ' +
            'surface, tenant_id and updated_at (RecordUnreadAnswer); a patch of theirs is judged on what it sends alone, never on what the ' +
            "record holds: each member sent as a change of it, and what turns on the record's kind, status or assignment at its strictest " +
            '(status, resolution or kind sent: resolving every kind, so exception.resolve, or exception.write with each per-kind resolve ' +
            'permission; a status other than resolved exception.write too; assigned_to: exception.assign, null: exception.assign or ' +
            'exception.override; a rule: rule.write), so a per-kind permission alone changes no record it cannot read; accepted, it sets ' +
            'updated_at as any change does (so neither the status nor the answer tells what the record held, whether the patch changes ' +
            'nothing or another member beside it; a patch naming no field takes the read permission); and any refusal, a missing or deleted id included, is one ' +
            '403 insufficient_role that says the same whatever the record holds and whether it exists.',
          params: RecordIdParams,
          body: RecordPatchBody,
          response: { 200: RecordChangeAnswer, ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request) => {
        const stored = target(request, request.params.id);
        if (reads(request)) return state.records.update(stored, request.body, acts(request));
        const sent = ownFields(request.body);
        const record = state.records.update(stored, request.body, acts(request, sent), true);
        return unreadAnswer(record, request.body);
      },
    );

    app.delete<{ Params: { id: string } }>(
      `/v1/${surface}/:id`,
      {
        config: { operation: `${surface}_delete` },
        schema: {
          tags,
          summary: `Soft-delete a record of ${surface}`,
          description:
            'Sets the soft_delete flag and deleted_at: the record disappears from lists (unless include_deleted=true), ' +
            'stays readable by id, and is purged 30 days later on the sandbox clock (purge_at), after which it is gone. ' +
            "Deleting again returns the same record. To a caller without the surface's read permission it answers only " +
            'id, surface, tenant_id, updated_at, soft_delete, deleted_at and purge_at (RecordUnreadAnswer), and a missing or ' +
            'already deleted id is refused as PATCH refuses it (one 403 insufficient_role, whatever the record holds and whether ' +
            'it exists), so a retry of their own delete learns it happened only by its Idempotency-Key (the stored answer).',
          params: RecordIdParams,
          response: { 200: RecordChangeAnswer, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        const record = state.records.softDelete(target(request, request.params.id, 'delete'));
        return reads(request) ? record : unreadAnswer(record, 'delete');
      },
    );
  }
}
