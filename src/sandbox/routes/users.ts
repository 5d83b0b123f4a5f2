import type { FastifyInstance } from 'fastify';
import { UserList, UserListQuery } from '../../api/schemas/users.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.js';
import { errorResponses, type RouteContext } from './context.js';

/**
 * GET /v1/users: who may hold roles in the tenant (the members of its organisation), paged by
 * id, or looked up many at a time with `id=` — so a client checks the users of a large grants
 * file in a few requests instead of one per user.
 */
export default function userRoutes(app: FastifyInstance, { state }: RouteContext): void {
  app.get<{ Querystring: UserListQuery }>(
    '/v1/users',
    {
      config: { operation: 'users_list' },
      schema: {
        tags: ['role assignments'],
        summary: 'List the users who may hold roles in the tenant',
        description:
          "Not in the reference: the members of the tenant's organisation (users of other organisations do not exist here), " +
          'ordered by id and cursor-paged (limit 1 to 1000, default 100). With id (repeated, at most 100) only those users are ' +
          'listed, and an id that is not a user is simply absent: one request checks up to 100 ids. Needs role.read.',
        querystring: UserListQuery,
        response: { 200: UserList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const q = request.query;
      const orgId = request.tenant!.org_id;
      const limit = q.limit ?? 100;
      const ids = q.id === undefined ? undefined : [...new Set(q.id)].sort();
      const fingerprint = filterFingerprint({ what: 'users', ids: ids?.join(',') });
      const after = q.cursor
        ? decodeCursor(q.cursor, fingerprint, { tenant: request.tenant!.id }).i
        : undefined;
      const source = ids
        ? ids.flatMap((id) => {
            const user = state.identity.users.get(id);
            return user && user.org_id === orgId ? [user] : [];
          })
        : state.identity.usersOf(orgId);
      let from = 0;
      if (after !== undefined) {
        let hi = source.length;
        while (from < hi) {
          const mid = (from + hi) >>> 1;
          if (source[mid]!.id <= after) from = mid + 1;
          else hi = mid;
        }
      }
      const page = source.slice(from, from + limit);
      const last = page[page.length - 1];
      return {
        items: page.map((u) => ({ id: u.id, name: u.name, email: u.email })),
        next_cursor:
          from + limit < source.length && last
            ? encodeCursor({ k: 0, i: last.id }, fingerprint, { tenant: request.tenant!.id })
            : null,
      };
    },
  );
}
