import type { FastifyInstance } from 'fastify';
import { AUDIT_ACTION_FAMILIES, AUDIT_ACTIONS } from '../../api/audit.js';
import { AuditTrailEntry, AuditTrailList, AuditTrailListQuery } from '../../api/schemas/audit.js';
import { RecordIdParams } from '../../api/schemas/records.js';
import { didYouMean } from '../../api/suggest.js';
import { auditRecord } from '../domain/audit-trail.js';
import { badRequest, notFound } from '../domain/errors.js';
import { queryTimeMs } from '../domain/request-times.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.js';
import { errorResponses, type RouteContext } from './context.js';

const tags = ['records'];
const KNOWN_ACTIONS: readonly string[] = [...AUDIT_ACTIONS, ...AUDIT_ACTION_FAMILIES];

/**
 * The audit_trail record surface (read-only; its writes answer 405 in records.ts): the record
 * pattern's two reads, with filters on the list, since an audit trail is read by question
 * ("who granted what to whom last week").
 */
export default function auditTrailRoutes(app: FastifyInstance, { state }: RouteContext): void {
  app.get<{ Querystring: AuditTrailListQuery }>(
    '/v1/audit_trail',
    {
      config: { operation: 'audit_trail_list' },
      schema: {
        tags,
        summary: 'List the audit trail',
        description:
          "The tenant's audit entries: every role grant, expiry change and revocation, custom-role change, API key issued " +
          'or revoked, webhook and OAuth client created, changed, re-keyed or deleted, a webhook test event sent, and a user ' +
          "authorizing a tenant's third-party OAuth client (authorization code or device flow) and its tokens revoked " +
          '(oauth_client.authorized, oauth_client.token_revoked; sandbox choice: the reference requires only that assignments are audited). Oldest first (order=desc: newest ' +
          'first), cursor-paged. Filters: action (an action, or a family such as role or webhook), actor, user_id, role_id, ' +
          'target_type, target_id, since and until (on the entry time). An unknown action is 400 with a suggestion.',
        querystring: AuditTrailListQuery,
        response: { 200: AuditTrailList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.action !== undefined && !KNOWN_ACTIONS.includes(q.action)) {
        throw badRequest(`unknown action ${q.action}${didYouMean(q.action, KNOWN_ACTIONS)}`, [
          { field: 'action', message: `is not one of ${KNOWN_ACTIONS.join(', ')}` },
        ]);
      }
      const sinceMs = queryTimeMs('since', q.since);
      const untilMs = queryTimeMs('until', q.until);
      const order = q.order ?? 'asc';
      const limit = q.limit ?? 50;
      const filter = {
        action: q.action,
        actor: q.actor,
        user_id: q.user_id,
        role_id: q.role_id,
        target_type: q.target_type,
        target_id: q.target_id,
        sinceMs,
        untilMs,
      };
      const fingerprint = filterFingerprint({ what: 'audit', order, ...filter });
      const scope = { list: '/v1/audit_trail', tenant: request.tenant!.id };
      const after = q.cursor ? decodeCursor(q.cursor, fingerprint, scope).k : undefined;
      const all = state.audit.matching(request.tenant!.id, filter);
      if (order === 'desc') all.reverse();
      const rest =
        after === undefined ? all : all.filter((e) => (order === 'asc' ? e.seq > after : e.seq < after));
      const page = rest.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map((e) => auditRecord(e.entry)),
        next_cursor:
          rest.length > limit && last
            ? encodeCursor({ k: last.seq, i: last.entry.id }, fingerprint, scope)
            : null,
      };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/audit_trail/:id',
    {
      config: { operation: 'audit_trail_get' },
      schema: {
        tags,
        summary: 'Fetch one audit-trail entry',
        description: 'By its id (aud_…), as every grant, revocation and change names it (audit_trail_id).',
        params: RecordIdParams,
        response: { 200: AuditTrailEntry, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const found = state.audit.get(request.tenant!.id, request.params.id);
      if (!found) throw notFound(`audit_trail record ${request.params.id}`);
      return auditRecord(found.entry);
    },
  );
}
