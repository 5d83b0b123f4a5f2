/**
 * Typed errors for the API's known error codes (the sandbox publishes them as `x-error-codes` in
 * docs/openapi.json). Commands test `instanceof`, never `error.code === '…'`. Each class extends
 * the status class the HTTP layer would have chosen, so `category`, and with it the exit code,
 * is unchanged. Over 300 lines on purpose: the codes, their classes and the fix half each one
 * gets are one catalog, read together.
 */
import type { RoleAssignment } from '../api/schemas/roles.js';
import type { DlqEntry } from '../api/schemas/webhooks.js';
import { emailLookupHint } from '../api/user-id.js';
import { otherProfile } from '../auth/login-hint.js';
import { bareCommandLine, type CommandLine } from '../config/settings.js';
import { SvcError, type SvcErrorOptions } from '../errors.js';
import {
  ApiError,
  type ApiErrorInit,
  BadRequestError,
  ConflictError,
  IN_PROGRESS_CODES,
  NotFoundError,
  PermissionDeniedError,
} from '../http/errors.js';
import { shellWord } from '../system/shell-words.js';

export type ApiErrorClass<E extends ApiError = ApiError> = new (
  init: ApiErrorInit,
  options?: SvcErrorOptions,
) => E;

/** The object an error's first detail carries under `field` (the resource as it is), when sent. */
function firstDetail<T>(details: unknown, field: string): T | undefined {
  const first = Array.isArray(details) ? (details[0] as Record<string, unknown> | undefined) : undefined;
  const value = first?.[field];
  return value !== null && typeof value === 'object' ? (value as T) : undefined;
}

/** 409 assignment_exists: the user already holds the role; `assignment` is the one in place. */
export class AssignmentExistsError extends ConflictError {
  /** The active assignment the server reported (details[0].assignment), when it sent one. */
  get assignment(): RoleAssignment | undefined {
    return firstDetail<RoleAssignment>(this.details, 'assignment');
  }
}
/** 404 assignment_not_found: the user holds no active assignment of the role. */
export class AssignmentNotFoundError extends NotFoundError {}
/** 409 idempotency_request_in_progress: a request with this key is still running on the server. */
export class IdempotencyInProgressError extends ConflictError {}
/** 409 idempotency_key_reused: the key was used before with other parameters. */
export class IdempotencyKeyReusedError extends ConflictError {}
/** 409 role_deleted: the custom role was deleted; it can be neither changed nor granted. */
export class RoleDeletedError extends ConflictError {}
/** 409 role_name_taken. */
export class RoleNameTakenError extends ConflictError {}
/** 409 last_tenant_admin: the revocation would leave the tenant without an admin. */
export class LastTenantAdminError extends ConflictError {}
/** 409 record_deleted: a soft-deleted record cannot be changed. */
export class RecordDeletedError extends ConflictError {}
/** 409 delivery_in_progress: a pending or retrying delivery cannot be replayed yet. */
export class DeliveryInProgressError extends ConflictError {}
/**
 * 409 dlq_entry_not_queued: the dead-letter entry left the queue (replayed, discarded or
 * recovered) before this replay or discard of it; `entry` is the entry as it is, when sent.
 */
export class DlqEntryNotQueuedError extends ConflictError {
  get entry(): DlqEntry | undefined {
    return firstDetail<DlqEntry>(this.details, 'entry');
  }
}
/** 409 webhook_disabled: a disabled webhook receives no events, test events included. */
export class WebhookDisabledError extends ConflictError {}
/** 403 builtin_role_immutable. */
export class BuiltinRoleImmutableError extends PermissionDeniedError {}
/** 403 oauth_client_first_party: the platform's own login client, readable by every tenant, changed by none. */
export class FirstPartyClientError extends PermissionDeniedError {}
/**
 * 403 insufficient_role / insufficient_permission / insufficient_scope / self_assignment: the
 * caller may not do this.
 */
export class InsufficientAccessError extends PermissionDeniedError {}
/**
 * 403 self_assignment: nobody grants themselves a role or moves their own grant's expiry (an API
 * key is seen through to its issuer). A grant is refused for it before the platform looks at
 * whether the role is held, so `roles assign --extend` asks again as an expiry change.
 */
export class SelfAssignmentError extends InsufficientAccessError {}
/** 403 tenant_forbidden / org_forbidden: the tenant or organisation is not the credential's. */
export class TenantForbiddenError extends PermissionDeniedError {}
/** 400 unknown_permission: a permission is not in the platform's catalog. */
export class UnknownPermissionError extends BadRequestError {}
/** 400 invalid_expiry: expires_at is not in the future. */
export class InvalidExpiryError extends BadRequestError {}
/** 400 role_not_assignable: e.g. org_admin, which is not granted per tenant. */
export class RoleNotAssignableError extends BadRequestError {}
/** 400 invalid_cursor: the cursor is malformed or belongs to other filters. */
export class InvalidCursorError extends BadRequestError {}

/** 404 on a role operation. */
export class RoleNotFoundError extends NotFoundError {}
/** 404 on a user's role assignments (unknown user). */
export class UserNotFoundError extends NotFoundError {}
export class WebhookNotFoundError extends NotFoundError {}
export class DeliveryNotFoundError extends NotFoundError {}
export class DlqEntryNotFoundError extends NotFoundError {}
export class RecordNotFoundError extends NotFoundError {}
export class OAuthClientNotFoundError extends NotFoundError {}
export class ApiKeyNotFoundError extends NotFoundError {}
export class TenantNotFoundError extends NotFoundError {}
export class AuditEntryNotFoundError extends NotFoundError {}
/**
 * A generic 404 for a route every server of the API has (GET /v1/me, which a tenant slug's
 * look-up sends before the request it is for): the base URL is likely wrong, not an id. Kept as
 * it is by the operation that needed the look-up (never "webhook not found").
 */
export class MissingRouteError extends NotFoundError {}

/** The fix half of a MissingRouteError: `route` is on every server of this API. */
export const baseUrlHint =
  (route: string): LineHint =>
  () =>
    `the base URL may be wrong (every server of this API answers ${route}): check --base-url, SVC_BASE_URL or the profile's base_url`;

/** The code, its status and its class; a code with another status keeps its generic class. */
export const TYPED_ERROR_CODES: Readonly<Record<string, { status: number; type: ApiErrorClass }>> = {
  assignment_exists: { status: 409, type: AssignmentExistsError },
  assignment_not_found: { status: 404, type: AssignmentNotFoundError },
  oauth_client_not_found: { status: 404, type: OAuthClientNotFoundError },
  idempotency_request_in_progress: { status: 409, type: IdempotencyInProgressError },
  idempotency_key_reused: { status: 409, type: IdempotencyKeyReusedError },
  role_deleted: { status: 409, type: RoleDeletedError },
  role_name_taken: { status: 409, type: RoleNameTakenError },
  last_tenant_admin: { status: 409, type: LastTenantAdminError },
  record_deleted: { status: 409, type: RecordDeletedError },
  delivery_in_progress: { status: 409, type: DeliveryInProgressError },
  webhook_disabled: { status: 409, type: WebhookDisabledError },
  dlq_entry_not_queued: { status: 409, type: DlqEntryNotQueuedError },
  builtin_role_immutable: { status: 403, type: BuiltinRoleImmutableError },
  oauth_client_first_party: { status: 403, type: FirstPartyClientError },
  insufficient_role: { status: 403, type: InsufficientAccessError },
  insufficient_permission: { status: 403, type: InsufficientAccessError },
  insufficient_scope: { status: 403, type: InsufficientAccessError },
  self_assignment: { status: 403, type: SelfAssignmentError },
  tenant_forbidden: { status: 403, type: TenantForbiddenError },
  org_forbidden: { status: 403, type: TenantForbiddenError },
  unknown_permission: { status: 400, type: UnknownPermissionError },
  invalid_expiry: { status: 400, type: InvalidExpiryError },
  role_not_assignable: { status: 400, type: RoleNotAssignableError },
  invalid_cursor: { status: 400, type: InvalidCursorError },
};

/**
 * Every code svc types: the platform's (TYPED_ERROR_CODES, each in its x-error-codes), and another
 * server's word for one of them — Stripe's `idempotency_key_in_use` for
 * idempotency_request_in_progress (IN_PROGRESS_CODES, which the HTTP client waits for alike).
 */
const TYPED_CODES: Readonly<Record<string, { status: number; type: ApiErrorClass }>> = {
  ...Object.fromEntries(
    [...IN_PROGRESS_CODES].map((code) => [code, { status: 409, type: IdempotencyInProgressError }]),
  ),
  ...TYPED_ERROR_CODES,
};

/**
 * A hint that names a command to run, as a function of the run's command lines (`svc` with the
 * -p/--base-url/--tenant the run was given: config/settings.ts `commandLine`), so that pasted it
 * acts where the run did. The transport completes it with the platform client's command lines.
 */
export type LineHint = (svc: CommandLine) => string;

/** Where to look for the ids a "not found" could have meant: the fix half of its one line. */
const NOT_FOUND_HINTS = new Map<NotFoundClass, LineHint>([
  [RoleNotFoundError, (svc) => `see \`${svc('roles ls')}\` for the roles of the tenant`],
  [
    UserNotFoundError,
    (svc) =>
      `see \`${svc('users ls')}\` for the users of the tenant (\`${svc('users ls --id ID')}\` checks an id)`,
  ],
  [WebhookNotFoundError, (svc) => `see \`${svc('webhooks ls')}\` for the webhooks of the tenant`],
  [DeliveryNotFoundError, (svc) => `see \`${svc('webhooks deliveries ls WEBHOOK')}\` for its deliveries`],
  [DlqEntryNotFoundError, (svc) => `see \`${svc('webhooks dlq ls WEBHOOK')}\` for its dead-letter queue`],
  [RecordNotFoundError, (svc) => `see \`${svc('records ls SURFACE')}\` for its records`],
  [OAuthClientNotFoundError, (svc) => `see \`${svc('oauth ls')}\` for the OAuth clients of the tenant`],
  [ApiKeyNotFoundError, (svc) => `see \`${svc('tenants api-keys ls TENANT')}\` for its keys`],
  [TenantNotFoundError, (svc) => `see \`${svc('tenants ls')}\` for your tenants`],
  [AuditEntryNotFoundError, (svc) => `see \`${svc('audit ls')}\` for the audit trail`],
]);

/**
 * Where to look for a user the server does not know by `user`: an id shaped as an e-mail address
 * may be the user's e-mail (src/api/user-id.ts), said with how to find the id; else the usual.
 * The one hint of every verb that takes a user id (a "not found", `audit ls --user`'s note,
 * `users ls --id`'s warning), each keeping the run's -p/--tenant through `svc` (fix-list21 2).
 */
export const lookForUser =
  (user: string): LineHint =>
  (svc) =>
    emailLookupHint(user, svc) ?? NOT_FOUND_HINTS.get(UserNotFoundError)!(svc);

/** Where a webhook's deliveries and dead-letter entries are listed, by the webhook's id. */
export const deliveriesOf =
  (webhook: string): LineHint =>
  (svc) =>
    `see \`${svc(`webhooks deliveries ls ${shellWord(webhook)}`)}\` for its deliveries`;
export const deadLettersOf =
  (webhook: string): LineHint =>
  (svc) =>
    `see \`${svc(`webhooks dlq ls ${shellWord(webhook)}`)}\` for its dead-letter queue`;
/** Where a tenant's API keys are listed, the tenant as the user named it. */
export const keysOf =
  (tenant: string): LineHint =>
  (svc) =>
    `see \`${svc(`tenants api-keys ls ${shellWord(tenant)}`)}\` for its keys`;

/**
 * The command that shows whether a change an operation may have made was made (`svc webhooks ls`,
 * `svc roles holders role_1`): its words, each argument one shell word. An unknown outcome's hint
 * names it (Transport's `check`; review20d).
 */
export const shownBy =
  (verb: string, ...args: string[]): LineHint =>
  (svc) =>
    svc([verb, ...args.map(shellWord)].join(' '));

/** Where to look for the ids of a kind (`see \`svc users ls\` …`), as a "not found" of it says. */
export const whereToLook = (type: NotFoundClass): LineHint | undefined => NOT_FOUND_HINTS.get(type);

/**
 * The command that enables a disabled webhook, as a hint in the run's command lines (a bare one
 * pasted acted in the active profile's default tenant: attack25a F3).
 */
export const enableHint =
  (webhook: string): LineHint =>
  (svc) =>
    `enable it with: ${svc(`webhooks update ${shellWord(webhook)} --enable`)}`;

/** A refusal to send events to a disabled webhook, with the command that enables it (`svc`: Platform.svc). */
export function withEnableHint(error: unknown, webhook: string, svc: CommandLine): unknown {
  return error instanceof WebhookDisabledError
    ? retyped(error, WebhookDisabledError, enableHint(webhook)(svc))
    : error;
}

/**
 * Where the run's tenant and organisation came from, for the 403 that refuses one (FOREIGN_HINTS):
 * how to go without it, named after where it came from — `run without this --tenant or
 * SVC_TENANT` (the default, for a flag or the environment), the profile's setting, or nothing
 * when the command itself chose it (a saved plan's, a file's: attack23 F4) — and `svc WORDS` with
 * neither, for the `svc me` that lists what the credential has.
 */
export interface ForeignSources {
  tenant?: string | null;
  org?: string | null;
  svcAnyTarget?: CommandLine;
}

const foreignHint = (what: string, has: string, way: string | null | undefined, fallback: string) =>
  `use ${what} your credential has (${has}${way === null ? '' : `, ${way ?? fallback}`}), or a credential that has this ${what === 'a tenant' ? 'tenant' : 'organisation'}`;

/** The fix half of a 403 for a tenant or organisation the credential does not have. */
const FOREIGN_HINTS: Readonly<Record<string, (svc: CommandLine, from: ForeignSources) => string>> = {
  tenant_forbidden: (svc, from) =>
    foreignHint(
      'a tenant',
      `\`${svc('me')}\` lists them`,
      from.tenant,
      'run without this --tenant or SVC_TENANT',
    ),
  org_forbidden: (svc, from) =>
    foreignHint(
      'an organisation',
      `\`${(from.svcAnyTarget ?? svc)('me')}\` shows it`,
      from.org,
      'run without this --org or SVC_ORG',
    ),
};

/** The fix half of a change refused for the platform's first-party client. */
const firstPartyHint: LineHint = (svc) =>
  `it needs no change to log in with; for a client of your own, create one with \`${svc('oauth create')}\``;

/** What each operation's 404 names, as a code spells it (`role_not_found`, `ROLE_NOT_FOUND`, `roleNotFound`). */
const NOT_FOUND_OF = new Map<NotFoundClass, readonly string[]>([
  [RoleNotFoundError, ['role']],
  [UserNotFoundError, ['user']],
  [WebhookNotFoundError, ['webhook']],
  [DeliveryNotFoundError, ['delivery', 'webhookdelivery']],
  [DlqEntryNotFoundError, ['dlqentry', 'dlq', 'deadletter', 'deadletterentry']],
  [RecordNotFoundError, ['record']],
  [OAuthClientNotFoundError, ['oauthclient', 'client']],
  [ApiKeyNotFoundError, ['apikey', 'key']],
  [TenantNotFoundError, ['tenant']],
  [AuditEntryNotFoundError, ['auditentry', 'audittrailentry', 'entry']],
]);

/**
 * Whether a 404 is the operation's own "not found" (attack27a F4): a 404 is a 404, its code only
 * refines it. Any code but one naming another resource's "not found" (`tenant_not_found`,
 * `route_not_found` on a role's) is: none, a word svc does not know (`x`), a generic one in any
 * spelling (`not_found`, `NOT_FOUND`, `notFound`, `Not Found`, `resource_not_found`), or the
 * operation's resource's (`role_not_found`, `RoleNotFound` for a role's).
 */
function ownNotFound(code: string | undefined, notFound: NotFoundClass): boolean {
  const spelled = typeof code === 'string' ? code.toLowerCase().replace(/[^a-z0-9]/g, '') : '';
  if (!spelled.endsWith('notfound')) return true;
  const what = spelled.slice(0, -'notfound'.length);
  return what === '' || what === 'resource' || (NOT_FOUND_OF.get(notFound) ?? []).includes(what);
}

export type NotFoundClass = ApiErrorClass<NotFoundError>;

/**
 * The typed error for an API error: by its code (when the status matches the catalog), else a
 * generic 404 named after the operation's resource. Anything else is returned as it is. The
 * commands a hint names are the run's (`svc`), so that pasted they act where it did.
 */
export function typedError(
  error: unknown,
  notFound?: NotFoundClass,
  otherCredential?: string,
  lookIn?: LineHint,
  svc: CommandLine = bareCommandLine,
  svcAnyTenant: CommandLine = svc,
  from: ForeignSources = {},
): unknown {
  if (!(error instanceof ApiError)) return error;
  // A look-up this request needed first (the tenant's) found no route: not this operation's 404.
  if (error instanceof MissingRouteError) return error;
  const known = error.code === undefined ? undefined : TYPED_CODES[error.code];
  let type: ApiErrorClass | undefined;
  if (known && known.status === error.status) type = known.type;
  else if (notFound && error.status === 404 && ownNotFound(error.code, notFound)) {
    return error instanceof notFound
      ? error
      : retyped(error, notFound, (lookIn ?? NOT_FOUND_HINTS.get(notFound))?.(svc));
  }
  // A kind's own "not found" code gets where to look, as the operation's generic 404 does.
  const hint =
    error.code === 'insufficient_role'
      ? missingRoleHint(error, otherCredential)
      : type === TenantForbiddenError && !error.hint
        ? FOREIGN_HINTS[error.code ?? '']?.(svcAnyTenant, from)
        : type === FirstPartyClientError && !error.hint
          ? firstPartyHint(svc)
          : type && type === notFound
            ? (lookIn ?? NOT_FOUND_HINTS.get(type))?.(svc)
            : undefined;
  if (!type || error instanceof type) return error;
  return retyped(error, type, hint);
}

/**
 * A 400 tenant_header_required sent without a tenant because the profile has none: the fix in
 * svc's terms (`missingTenantHint`: which profile, and how to give it a tenant). Any other error,
 * or one whose server said the fix already, is returned as it is.
 */
export function withMissingTenantHint(error: unknown, missingTenantHint: string | undefined): unknown {
  if (
    missingTenantHint === undefined ||
    !(error instanceof ApiError) ||
    error.status !== 400 ||
    error.code !== 'tenant_header_required' ||
    error.hint
  )
    return error;
  return retyped(error, error.constructor as ApiErrorClass, missingTenantHint);
}

/**
 * A 403 user_required (an operation for users themselves only) with svc's fix for the profile's
 * login (`hint`: a `svc login --client-id` login is not the user's own, review18 R18-2). Any other
 * error, or one whose server said the fix already, is returned as it is.
 */
export function withUserRequiredHint(error: unknown, hint: (() => string | undefined) | undefined): unknown {
  if (hint === undefined || !(error instanceof ApiError) || error.status !== 403) return error;
  if (error.code !== 'user_required' || error.hint) return error;
  const fix = hint();
  return fix === undefined ? error : retyped(error, error.constructor as ApiErrorClass, fix);
}

/**
 * The fix half of a 403 insufficient_role (the operation itself needs a permission the caller's
 * roles lack): another credential, and, unless the platform's message says the fix already (whom
 * to ask, what to use), a tenant administrator. Any server's message is kept as it is.
 */
function missingRoleHint(error: ApiError, otherCredential = otherProfile()): string | undefined {
  if (error.hint) return undefined;
  return /\b(ask|use)\b/i.test(error.message)
    ? `another credential that holds it works too: ${otherCredential}`
    : `ask a tenant administrator for a role that grants it, or ${otherCredential}`;
}

/** The same API error as another class (status, code, message, request id, hint and cause kept). */
export function retyped<E extends ApiError>(error: ApiError, type: ApiErrorClass<E>, hint?: string): E {
  const init: ApiErrorInit = {
    status: error.status,
    code: error.code,
    message: error.message,
    requestId: error.requestId,
    details: error.details,
    headers: error.headers,
    body: error.body,
    text: error.text,
    serverCode: error.serverCode,
  };
  const cause = error.cause;
  const typed = new type(init, {
    ...((hint ?? error.hint) ? { hint: hint ?? error.hint } : {}),
    ...(cause === undefined ? {} : { cause }),
  });
  typed.lostAnswer = error.lostAnswer;
  typed.lostStatus = error.lostStatus;
  return typed;
}

/**
 * A DELETE whose retry found nothing to delete (404) after the answer to an earlier attempt was
 * lost (a 5xx, a dropped connection): most likely that attempt made the change, and the platform
 * ignored the Idempotency-Key that would have let it say so. Deliberately not a NotFoundError,
 * so no verb reports it as "not held" or "not found": a verb says what is known (`explain`), and
 * the bulk operation counts the item as done (reason gone_after_lost_answer). Exit 1 elsewhere.
 */
export class GoneAfterLostAnswerError extends SvcError {
  /** What became of the earlier attempt's answer, e.g. "HTTP 503". */
  readonly lostAnswer: string;
  /** The retry's answer, e.g. "HTTP 404 assignment_not_found". */
  readonly found: string;
  readonly requestId: string | undefined;

  constructor(notFound: NotFoundError & { lostAnswer: string }, svc: CommandLine = bareCommandLine) {
    const found = `HTTP ${notFound.status}${notFound.code ? ` ${notFound.code}` : ''}`;
    super(
      'failure',
      `the platform's answer to DELETE was lost (${notFound.lostAnswer}) and its retry found nothing to delete (${found}); most likely the lost attempt made the change`,
      {
        code: 'gone_after_lost_answer',
        hint: `check the audit trail (${svc('audit ls')}) before running the command again`,
        cause: notFound,
      },
    );
    this.lostAnswer = notFound.lostAnswer;
    this.found = found;
    this.requestId = notFound.requestId;
  }

  /** "the platform's answer to the revoke was lost (HTTP 503) and its retry found the grant gone (HTTP 404 …); most likely this command revoked it" */
  explain(act: string, thing: string, done: string): string {
    return `the platform's answer to the ${act} was lost (${this.lostAnswer}) and its retry found ${thing} gone (${this.found}); most likely this command ${done} it`;
  }
}

/**
 * A 2xx answer that does not fit the operation's schema: a required field missing or of the
 * wrong type. Exit 1; the command has printed and stored nothing.
 */
export class InvalidResponseError extends SvcError {
  constructor(message: string, options: SvcErrorOptions = {}) {
    super('failure', message, { code: 'invalid_response', ...options });
  }
}

/**
 * A 2xx answer to a change that svc cannot read (InvalidResponseError's words and exit code for a
 * single verb): the server accepted the change, so it is never a failure of it. `done`: a DELETE
 * answered 200 or 204 with no body, or with one that positively says it was done (`{}`,
 * `{"deleted":true}`, the record asked for saying it is gone; src/platform/delete-answer.ts): the reference
 * shows no body for a DELETE, so its success alone says the thing is gone; `bodyless`: it had no
 * body at all. Any other (an error-shaped body, one about another object, a 202, which says only
 * that it was taken; a creation or replay whose answer lacks what svc needs to know what was made)
 * leaves the outcome unknown. The bulk operation counts the first done and the second with an
 * unknown outcome (src/bulk/judge.ts).
 */
export class AcceptedUnreadError extends InvalidResponseError {
  constructor(
    message: string,
    options: SvcErrorOptions,
    /** The answer's status (2xx). */
    readonly status: number,
    readonly done: boolean,
    readonly bodyless = false,
    /** What a DELETE's answer says against the change (`says "deleted": false`; delete-answer.ts). */
    readonly against?: string,
    /**
     * The hint's account of the answer (`svc saved and printed nothing, but the server answered 201
     * … and may have made the change`, with the command that shows whether it was), which withHint
     * keeps before a verb's own way to settle it.
     */
    readonly answered?: string,
  ) {
    super(message, options);
  }

  /** Unknown unless `done`: the server took the change, so it may have been made (--json says it). */
  override get outcome(): 'unknown' | undefined {
    return this.done ? undefined : 'unknown';
  }

  /**
   * The same error, settled as the verb knows how (a keyed creation: re-run with its key; review21
   * F4), after what the answer was: one rule for an unknown outcome however it became one.
   */
  withHint(settle: string): AcceptedUnreadError {
    const hint = this.answered === undefined ? settle : `${this.answered}: ${settle}`;
    return new AcceptedUnreadError(
      this.message,
      { hint },
      this.status,
      this.done,
      this.bodyless,
      this.against,
      this.answered,
    );
  }
}

/**
 * A change done though svc could not read its answer: a DELETE answered 200 or 204 with no body,
 * or with one that positively says it was done (`{}`, `{"deleted": true}`, the record asked for
 * saying it is gone: the reference shows no body for a DELETE; Transport decides
 * AcceptedUnreadError's `done` by platform/delete-answer.ts; an error object, another status word
 * or the record unchanged answered 200 is not done). The one rule of a bulk
 * row (`answered_without_body` / `answered_without_record`) and of a single verb (kit's `deleted`).
 */
export function doneUnread(error: unknown): error is AcceptedUnreadError {
  return error instanceof AcceptedUnreadError && error.done;
}
