/**
 * An API error the sandbox answers with its error body:
 * `{"error":{"code","message","request_id","details"}}`.
 */
export class ApiProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Array<{ field: string; message: string }> | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: Array<{ field: string; message: string }>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

/**
 * The error codes the sandbox uses, with their statuses. Published in the OpenAPI document as
 * `x-error-codes`; the reference leaves both the list and the status of each condition unshown.
 */
export const ERROR_CODES: Record<string, { status: number; meaning: string }> = {
  invalid_request: { status: 400, meaning: 'A parameter or body field is missing or invalid (see details)' },
  idempotency_key_required: { status: 400, meaning: 'A POST without idempotency_key' },
  invalid_cursor: { status: 400, meaning: 'The cursor is malformed or was issued for other filters' },
  tenant_header_required: {
    status: 400,
    meaning: 'The endpoint is tenant-scoped and X-Tenant-Id is missing',
  },
  unauthenticated: { status: 401, meaning: 'No Authorization: Bearer credential' },
  invalid_token: { status: 401, meaning: 'The credential is malformed, has a bad signature, or was revoked' },
  token_expired: { status: 401, meaning: 'The credential has expired' },
  tenant_forbidden: { status: 403, meaning: "X-Tenant-Id is not one of the credential's tenants" },
  org_forbidden: { status: 403, meaning: "X-SVC-Org-Id is not the caller's organisation" },
  insufficient_role: { status: 403, meaning: "The caller's roles in the tenant do not allow the operation" },
  insufficient_scope: { status: 403, meaning: "The OAuth access token's scopes do not cover the operation" },
  no_tenant_membership: { status: 403, meaning: 'The caller belongs to no tenant' },
  tenant_mismatch: { status: 400, meaning: 'X-Tenant-Id and the tenant in the path differ' },
  justification_required: { status: 400, meaning: 'A service_role API key needs a justification' },
  user_required: { status: 403, meaning: 'Only a user (not an API key) may do this' },
  not_found: { status: 404, meaning: 'No such resource (or route) in this tenant' },
  idempotency_key_reused: { status: 409, meaning: 'The idempotency key was used with different parameters' },
  idempotency_request_in_progress: {
    status: 409,
    meaning: 'A request with this idempotency key is still running',
  },
  conflict: { status: 409, meaning: 'The change conflicts with the current state' },
  record_deleted: { status: 409, meaning: 'The record is soft-deleted and cannot be changed' },
  delivery_in_progress: {
    status: 409,
    meaning: 'A webhook delivery still pending or retrying cannot be replayed yet',
  },
  unknown_permission: {
    status: 400,
    meaning: 'A permission is not in the permission catalog (x-permission-catalog)',
  },
  reserved_role_name: {
    status: 400,
    meaning: 'Custom role names cannot start with tenant_ or org_ (kept for built-ins)',
  },
  role_not_assignable: {
    status: 400,
    meaning: 'The role cannot be granted per tenant (org_admin is an organisation role)',
  },
  invalid_expiry: { status: 400, meaning: 'expires_at is not in the future' },
  builtin_role_immutable: { status: 403, meaning: 'Built-in roles cannot be changed or deleted' },
  insufficient_permission: {
    status: 403,
    meaning: 'A caller without tenant_admin may only grant roles whose permissions it holds itself',
  },
  assignment_not_found: {
    status: 404,
    meaning: 'The user holds no active assignment of the role in the tenant',
  },
  role_name_taken: {
    status: 409,
    meaning: 'A live role of the tenant (or a built-in role) already has the name',
  },
  role_deleted: { status: 409, meaning: 'The custom role was deleted; it cannot be changed or granted' },
  assignment_exists: {
    status: 409,
    meaning:
      'The user already holds the role (an active assignment); details[0].assignment is that assignment',
  },
  last_tenant_admin: {
    status: 409,
    meaning: 'Revoking it would leave the tenant without an active tenant_admin',
  },
  rate_limited: { status: 429, meaning: 'Too many requests; retry after Retry-After seconds' },
  internal_error: { status: 500, meaning: 'A sandbox fault; report it as an incident' },
  service_unavailable: { status: 503, meaning: 'Temporarily unavailable; retry after Retry-After seconds' },
};

export const badRequest = (message: string, details?: Array<{ field: string; message: string }>) =>
  new ApiProblem(400, 'invalid_request', message, details ? { details } : {});
export const notFound = (what: string) => new ApiProblem(404, 'not_found', `${what} not found`);
export const forbidden = (code: string, message: string) => new ApiProblem(403, code, message);
export const conflict = (message: string, code = 'conflict') => new ApiProblem(409, code, message);
