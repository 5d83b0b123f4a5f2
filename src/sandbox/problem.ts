import { SELF_CHANGES_SAID } from '../api/self-assignment.js';
import type { DomainError, ErrorDetail } from './domain/errors.js';

/**
 * An HTTP answer in the sandbox's error body, `{"error":{"code","message","request_id","details"}}`:
 * what the plugins throw for protocol-level problems (credentials, headers, rate limits), and
 * what the error plugin makes of every DomainError.
 */
export class ApiProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: ErrorDetail[] | undefined; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  /** The HTTP answer to a rule that said no: the status comes from ERROR_CODES, nowhere else. */
  static of(error: DomainError): ApiProblem {
    return new ApiProblem(ERROR_CODES[error.code].status, error.code, error.message, {
      details: error.details,
    });
  }
}

/**
 * The error codes the sandbox uses, with their statuses. Published in the OpenAPI document as
 * `x-error-codes`; the reference leaves both the list and the status of each condition unshown.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, meaning: 'A parameter or body field is missing or invalid (see details)' },
  body_too_deep: { status: 400, meaning: 'The JSON body nests deeper than 64 levels' },
  idempotency_key_required: { status: 400, meaning: 'A POST without idempotency_key' },
  invalid_cursor: {
    status: 400,
    meaning: 'The cursor is malformed, or was issued for other filters, another list or another tenant',
  },
  tenant_header_required: {
    status: 400,
    meaning: 'The endpoint is tenant-scoped and X-Tenant-Id is missing',
  },
  tenant_mismatch: { status: 400, meaning: 'X-Tenant-Id and the tenant in the path differ' },
  justification_required: {
    status: 400,
    meaning:
      'A justification is missing or too short: a service_role API key needs at least 10 characters besides surrounding spaces; changing an expiry needs one that is not blank',
  },
  unknown_permission: {
    status: 400,
    meaning: 'A permission is not in the permission catalog (x-permission-catalog)',
  },
  reserved_role_name: {
    status: 400,
    meaning:
      'Custom role names cannot start with tenant_ or org_ (kept for built-ins) or role_ (the shape of role ids)',
  },
  role_not_assignable: {
    status: 400,
    meaning: 'The role cannot be granted per tenant (org_admin is an organisation role)',
  },
  invalid_expiry: { status: 400, meaning: 'expires_at is not in the future' },
  unauthenticated: { status: 401, meaning: 'No Authorization: Bearer credential' },
  invalid_token: { status: 401, meaning: 'The credential is malformed, has a bad signature, or was revoked' },
  token_expired: { status: 401, meaning: 'The credential has expired' },
  tenant_forbidden: { status: 403, meaning: "The tenant named is not one of the credential's tenants" },
  org_forbidden: { status: 403, meaning: "X-SVC-Org-Id is not the caller's organisation" },
  insufficient_role: {
    status: 403,
    meaning:
      "The caller's live roles in the tenant do not grant the operation's permission (x-svc-authorization)",
  },
  insufficient_scope: { status: 403, meaning: "The OAuth access token's scopes do not cover the operation" },
  insufficient_permission: {
    status: 403,
    meaning:
      'A role, a grant or an API key would carry a permission the caller does not hold itself, a grant would outlast the caller’s own hold on it, or a role change or deletion would take away a permission the caller does not hold (no one hands out, or takes away, more than they have); or a webhook would be pointed at event data, or a delivery replayed or its payload read, by a caller who does not hold the permission that reads that data (for a choice of where it goes: held without an end date); or an OAuth client would be armed (created, given scopes or a redirect URI, its secret rotated) with scopes reaching permissions the caller does not hold without an end date',
  },
  self_assignment: {
    status: 403,
    meaning:
      `Nobody ${SELF_CHANGES_SAID} (a grant to themselves of what it adds), tenant_admin included, nor through an API key they issued; ` +
      'another administrator must (revoking one’s own role, or taking permissions out of it, is allowed)',
  },
  no_tenant_membership: { status: 403, meaning: 'The caller holds no live role in any tenant' },
  user_required: {
    status: 403,
    meaning:
      "Only a user may do this, with their own login (not with an API key, nor a third-party OAuth client's token): managing API keys, and minting or re-pointing any other standing credential (creating or changing an OAuth client, rotating its secret or a webhook's signing secret); and granting or re-timing a role that carries api_key.manage (not with an API key)",
  },
  cross_origin_forbidden: {
    status: 403,
    meaning:
      "A browser's state-changing request from another origin than the sandbox's own (a page elsewhere driving its consent page or test controls)",
  },
  builtin_role_immutable: { status: 403, meaning: 'Built-in roles cannot be changed or deleted' },
  oauth_client_first_party: {
    status: 403,
    meaning:
      "The platform's first-party OAuth client (svc-cli): every tenant can read it and log in with it, but it is no tenant's to change, rotate or delete",
  },
  not_found: { status: 404, meaning: 'No such resource in this tenant, or no such route' },
  oauth_client_not_found: {
    status: 404,
    meaning:
      'No OAuth client with this id in the tenant (a client of another tenant included): the platform’s own answer, told apart from a path it does not have (not_found)',
  },
  assignment_not_found: {
    status: 404,
    meaning: 'The user holds no active assignment of the role in the tenant',
  },
  method_not_allowed: {
    status: 405,
    meaning: 'The path exists but not with this method (see the Allow header)',
  },
  misdirected_request: {
    status: 421,
    meaning:
      'The Host header names a host the sandbox does not serve (not an IP address, localhost or its own host: a web page that rebound its name to it)',
  },
  request_timeout: { status: 408, meaning: 'The request did not arrive completely in time' },
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
  dlq_entry_not_queued: {
    status: 409,
    meaning:
      'The dead-letter entry left the queue already (replayed, discarded or recovered): it is not replayed or discarded again; details[0].entry is the entry',
  },
  webhook_disabled: {
    status: 409,
    meaning:
      'A disabled webhook receives no events, test events included: enable it first (one the platform disabled, disabled_reason, by someone who holds its kinds’ read permissions without an end date)',
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
    meaning:
      "Revoking the tenant_admin assignment, or moving its expiry sooner, would make the tenant's administration end sooner: it ends later than every other live tenant_admin assignment",
  },
  payload_too_large: { status: 413, meaning: 'The body is larger than 1 MiB' },
  unsupported_media_type: {
    status: 415,
    meaning: 'The body is not JSON (application/json or application/merge-patch+json)',
  },
  headers_too_large: { status: 431, meaning: 'The request headers are larger than 16 KiB' },
  rate_limited: { status: 429, meaning: 'Too many requests; retry after Retry-After seconds' },
  internal_error: {
    status: 500,
    meaning:
      'A sandbox fault; report it as an incident (a failure injected with PUT /_sandbox/faults answers it with its fail_status when that is not 503)',
  },
  service_unavailable: {
    status: 503,
    meaning:
      'Temporarily unavailable; retry after Retry-After seconds (when the header is sent); also a failure injected with PUT /_sandbox/faults with fail_status 503',
  },
} satisfies Record<string, { status: number; meaning: string }>;
