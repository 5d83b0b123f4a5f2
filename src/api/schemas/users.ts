import { type Static, Type } from '@sinclair/typebox';
import { CursorQuery, Page } from './common.js';

/** The most ids one GET /v1/users may name (`?id=a&id=b…`): the query string stays under 4 KB. */
export const USER_LOOKUP_MAX = 100;

export const User = Type.Object(
  {
    id: Type.String({ description: 'User id (usr_…)' }),
    name: Type.String(),
    email: Type.String(),
  },
  {
    $id: 'User',
    additionalProperties: true,
    description:
      "A user who may hold roles in the tenant: a member of the tenant's organisation (the reference does not show users; these fields are the sandbox's).",
  },
);
export type User = Static<typeof User>;

export const UserList = Page(Type.Ref('User'), 'Users ordered by id');
export type UserList = { items: User[]; next_cursor: string | null };

export const UserListQuery = Type.Object({
  id: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      maxItems: USER_LOOKUP_MAX,
      description: `Only these users (repeat the parameter, at most ${USER_LOOKUP_MAX}): the ones that exist are listed, so one request checks many ids`,
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  ...CursorQuery,
});
export type UserListQuery = Static<typeof UserListQuery>;
