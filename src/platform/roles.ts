import {
  type AssignmentCreateBody,
  type AssignmentListQuery,
  type AssignmentUpdateBody,
  PermissionList,
  Role,
  RoleAssignment,
  RoleAssignmentList,
  type RoleCreateBody,
  RoleList,
  type RoleListQuery,
  type RoleUpdateBody,
  TenantAssignmentList,
  type TenantAssignmentListQuery,
} from '../api/schemas/roles.js';
import { path } from '../http/path.js';
import type { ApiPromise, ResponseMeta } from './api-promise.js';
import {
  type InvalidResponseError,
  lookForUser,
  RoleNotFoundError,
  shownBy,
  UserNotFoundError,
} from './errors.js';
import type { CallOptions, Transport } from './transport.js';

/** POST /v1/users/{id}/roles: a grant, and what its answer must show. */
const assignOperation = (user: string, body: Body<AssignmentCreateBody>) =>
  ({
    method: 'POST',
    path: path`/v1/users/${user}/roles`,
    body,
    schema: RoleAssignment,
    about: { user_id: user, role_id: body.role_id },
    check: shownBy('roles holders', body.role_id),
    tenant: true,
    inForce: true,
  }) as const;

/** An operation's `lookIn` for a user it names (an e-mail-shaped id: how to find the id). */
const lookIn = (user: string) => ({ lookIn: lookForUser(user) });

type Body<T> = Omit<T, 'idempotency_key'>;

/**
 * Roles of the tenant, the permission catalog, and the grants of roles to users (`/v1/roles`,
 * `/v1/permissions`, `/v1/users/{id}/roles`, `/v1/role-assignments`).
 */
export class Roles {
  constructor(private readonly transport: Transport) {}

  /** One page of the tenant's roles: built-in first, then custom ones. */
  list(query: RoleListQuery = {}, options?: CallOptions): ApiPromise<RoleList> {
    return this.transport.page({ method: 'GET', path: '/v1/roles', query, schema: RoleList }, options);
  }

  /** Every role of the tenant, following every page. */
  listAll(query: RoleListQuery = {}, options?: CallOptions): AsyncGenerator<Role> {
    return this.transport.all({ method: 'GET', path: '/v1/roles', query, schema: RoleList }, options);
  }

  /** One role by id (a built-in role's id is its name; a server may take a name too). */
  get(id: string, options?: CallOptions): ApiPromise<Role> {
    const operation = {
      method: 'GET',
      path: path`/v1/roles/${id}`,
      schema: Role,
      notFound: RoleNotFoundError,
      about: { id, name: id },
      aboutEither: true,
    } as const;
    return this.transport.call(operation, options);
  }

  create(body: Body<RoleCreateBody>, options?: CallOptions): ApiPromise<Role> {
    // A role of this name in this tenant, or not this request's answer (`kind` is the reference's
    // "not shown": another server may word it otherwise).
    const operation = {
      method: 'POST',
      path: '/v1/roles',
      body,
      schema: Role,
      about: { name: body.name },
      check: shownBy('roles get', body.name),
      tenant: true,
    } as const;
    return this.transport.call(operation, options);
  }

  update(id: string, body: RoleUpdateBody, options?: CallOptions): ApiPromise<Role> {
    const operation = {
      method: 'PATCH',
      path: path`/v1/roles/${id}`,
      body,
      schema: Role,
      notFound: RoleNotFoundError,
      about: { id },
      check: shownBy('roles get', id),
      // An answer about another tenant than the request's is not its answer (review25b M1).
      tenant: true,
    } as const;
    return this.transport.call(operation, options);
  }

  /** Soft-deletes a custom role; the answer is the role with its `deleted_at`. */
  delete(id: string, options?: CallOptions): ApiPromise<Role> {
    const operation = {
      method: 'DELETE',
      path: path`/v1/roles/${id}`,
      schema: Role,
      notFound: RoleNotFoundError,
      about: { id },
      gone: { ended: ['deleted'] },
      // An answer about another tenant than the request's is not its answer (review25b M1).
      tenant: true,
    } as const;
    return this.transport.call(operation, options);
  }

  /**
   * Grants a role to a user. A role the user already holds is an AssignmentExistsError carrying
   * the assignment in place.
   */
  assign(user: string, body: Body<AssignmentCreateBody>, options?: CallOptions): ApiPromise<RoleAssignment> {
    return this.transport.call(assignOperation(user, body), options);
  }

  /**
   * A grant's 2xx (`response`) whose answer does not show this request made it (`problem`:
   * grantAnswerNotMade's, after reading who the caller is): an unknown outcome in the transport's
   * words, the command that shows whether it was made named.
   */
  assignAnswerRefused(
    user: string,
    body: Body<AssignmentCreateBody>,
    problem: string,
    response: ResponseMeta,
  ): InvalidResponseError {
    return this.transport.refuse(assignOperation(user, body), problem, response);
  }

  /** Revokes a role from a user; no active assignment is an AssignmentNotFoundError. */
  revoke(user: string, roleId: string, options?: CallOptions): ApiPromise<RoleAssignment> {
    const operation = {
      method: 'DELETE',
      path: path`/v1/users/${user}/roles/${roleId}`,
      schema: RoleAssignment,
      about: { user_id: user, role_id: roleId },
      tenant: true,
      gone: { ended: ['revoked'] },
    } as const;
    return this.transport.call(operation, options);
  }

  /**
   * Moves the expiry of the user's active assignment of the role (`expires_at: null`: permanent),
   * with a justification for the audit trail. The answer's `update_audit_trail_id` names the
   * entry written; no active assignment is an AssignmentNotFoundError.
   */
  updateAssignment(
    user: string,
    roleId: string,
    body: AssignmentUpdateBody,
    options?: CallOptions,
  ): ApiPromise<RoleAssignment> {
    const operation = {
      method: 'PATCH',
      path: path`/v1/users/${user}/roles/${roleId}`,
      body,
      schema: RoleAssignment,
      about: { user_id: user, role_id: roleId },
      check: shownBy('roles holders', roleId),
      tenant: true,
      inForce: true,
    } as const;
    return this.transport.call(operation, options);
  }

  /**
   * One page of the tenant's assignments, oldest first: every one, a role's holders
   * (`role_id`) or a user's (`user_id`); active ones unless `include_inactive`. An unknown role
   * is a RoleNotFoundError, an unknown user a UserNotFoundError (the server answers 404 for both;
   * the filter given says which).
   */
  listTenantAssignments(
    query: TenantAssignmentListQuery = {},
    options?: CallOptions,
  ): ApiPromise<TenantAssignmentList> {
    return this.transport.page(this.#tenantAssignments(query), options);
  }

  /** Every assignment matching the query, following every page (`svc export`). */
  listAllTenantAssignments(
    query: Omit<TenantAssignmentListQuery, 'cursor'> = {},
    options?: CallOptions,
  ): AsyncGenerator<RoleAssignment> {
    return this.transport.all(this.#tenantAssignments(query), options);
  }

  #tenantAssignments(query: TenantAssignmentListQuery) {
    return {
      method: 'GET',
      path: '/v1/role-assignments',
      query,
      schema: TenantAssignmentList,
      notFound: query.role_id !== undefined ? RoleNotFoundError : UserNotFoundError,
      ...(query.role_id === undefined && query.user_id !== undefined ? lookIn(query.user_id) : {}),
    } as const;
  }

  /** The permission catalog: each permission, what it allows, and the built-in roles that grant it. */
  permissions(options?: CallOptions): ApiPromise<PermissionList> {
    return this.transport.page({ method: 'GET', path: '/v1/permissions', schema: PermissionList }, options);
  }

  /**
   * A user's assignments in the tenant, every page: a user holds few roles and the sandbox answers
   * them in one, but a server that pages them (ended ones pile up under include_inactive) would
   * otherwise make a role held on its second page read as not held.
   */
  async listAssignments(
    user: string,
    query: AssignmentListQuery = {},
    options?: CallOptions,
  ): Promise<RoleAssignmentList> {
    const operation = {
      method: 'GET',
      path: path`/v1/users/${user}/roles`,
      query,
      schema: RoleAssignmentList,
      notFound: UserNotFoundError,
      ...lookIn(user),
    } as const;
    const items: RoleAssignment[] = [];
    for await (const assignment of this.transport.all<RoleAssignment>(operation, options))
      items.push(assignment);
    return { items, next_cursor: null };
  }
}
