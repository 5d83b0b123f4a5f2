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
  rate_limited: { status: 429, meaning: 'Too many requests; retry after Retry-After seconds' },
  internal_error: { status: 500, meaning: 'A sandbox fault; report it as an incident' },
  service_unavailable: { status: 503, meaning: 'Temporarily unavailable; retry after Retry-After seconds' },
};

export const badRequest = (message: string, details?: Array<{ field: string; message: string }>) =>
  new ApiProblem(400, 'invalid_request', message, details ? { details } : {});
export const notFound = (what: string) => new ApiProblem(404, 'not_found', `${what} not found`);
export const forbidden = (code: string, message: string) => new ApiProblem(403, code, message);
export const conflict = (message: string, code = 'conflict') => new ApiProblem(409, code, message);
