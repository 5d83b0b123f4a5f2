import { USER_LOOKUP_MAX, type User, UserList, type UserListQuery } from '../api/schemas/users.js';
import type { ApiPromise } from './api-promise.js';
import type { CallOptions, Transport } from './transport.js';

/** The users who may hold roles in the tenant (`/v1/users`). */
export class Users {
  constructor(private readonly transport: Transport) {}

  /** One page of the tenant's users, by id; `id` names at most 100 to look up at once. */
  list(query: UserListQuery = {}, options?: CallOptions): ApiPromise<UserList> {
    return this.transport.page({ method: 'GET', path: '/v1/users', query, schema: UserList }, options);
  }

  /** Every user matching the query, following every page. */
  listAll(query: Omit<UserListQuery, 'cursor'> = {}, options?: CallOptions): AsyncGenerator<User> {
    return this.transport.all({ method: 'GET', path: '/v1/users', query, schema: UserList }, options);
  }

  /** Which of `ids` are users of the tenant: one request per 100 ids. */
  async existing(ids: Iterable<string>, options?: CallOptions): Promise<Set<string>> {
    const all = [...new Set(ids)];
    const found = new Set<string>();
    for (let i = 0; i < all.length; i += USER_LOOKUP_MAX) {
      const id = all.slice(i, i + USER_LOOKUP_MAX);
      for await (const user of this.listAll({ id, limit: USER_LOOKUP_MAX }, options)) found.add(user.id);
    }
    return found;
  }
}
