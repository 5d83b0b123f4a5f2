/**
 * The schemas answers are checked against at the boundary: the same TypeBox schemas (plain JSON
 * Schema) that the sandbox validates and serialises with, so the CLI checks the contract the
 * sandbox publishes. Only answers are checked here; request bodies are the sandbox's to refuse.
 */
import { ApiKey } from '../api/schemas/api-keys.js';
import { AuditTrailEntry } from '../api/schemas/audit.js';
import { Me } from '../api/schemas/me.js';
import { OAuthClient, OAuthClientWithSecret } from '../api/schemas/oauth.js';
import { SurfaceRecord } from '../api/schemas/records.js';
import { PermissionEntry, Role, RoleAssignment } from '../api/schemas/roles.js';
import { TenantSummary } from '../api/schemas/tenants.js';
import { User } from '../api/schemas/users.js';
import {
  DlqEntry,
  DlqList,
  Webhook,
  WebhookDelivery,
  WebhookEventPayload,
  WebhookWithSecret,
} from '../api/schemas/webhooks.js';
import type { JsonSchema } from './check.js';

/**
 * What svc requires of an answer is what the reference shows of a resource, and what a command
 * needs to tell the truth — not everything its own sandbox happens to send. The sandbox's schemas
 * require every field it always sends; another server of the API may leave out a field the
 * reference leaves "not shown" (a role's `created_by`, a webhook's `description`), and svc must
 * keep working with it. So each answer is checked against a client view of its schema: the same
 * fields and types (a field that is present must still have its type), with `required` narrowed
 * to the list below.
 */
function requireOnly(schema: JsonSchema, fields: string[]): JsonSchema {
  return { ...schema, required: (schema.required ?? []).filter((name) => fields.includes(name)) };
}

/**
 * An OAuth client: what `oauth` commands act on and store. The reference's other fields (URIs,
 * grant types, scopes, lifetimes) are shown when present and checked for their type.
 */
const OAUTH_CLIENT_FIELDS = ['client_id', 'name'];

/** GET /v1/me: the reference shows no body; `svc me` is about who the caller is. */
export const MeAnswer = requireOnly(Me as JsonSchema, ['id']);

/**
 * The client view of each schema an operation names (by identity; `$ref`s resolve through
 * SCHEMA_REFS below, which holds the same views).
 */
const CLIENT_VIEWS = new Map<unknown, JsonSchema>([
  [Me, MeAnswer],
  // "A role record has at least id and name."
  [Role, requireOnly(Role as JsonSchema, ['id', 'name'])],
  [OAuthClient, requireOnly(OAuthClient as JsonSchema, OAUTH_CLIENT_FIELDS)],
  // The one-time secret is what `oauth create --secret-file` writes: it must be there.
  [
    OAuthClientWithSecret,
    requireOnly(OAuthClientWithSecret as JsonSchema, [...OAUTH_CLIENT_FIELDS, 'client_secret']),
  ],
  // Not shown in the reference: what commands print, act on or store.
  [Webhook, requireOnly(Webhook as JsonSchema, ['id', 'url'])],
  [WebhookWithSecret, requireOnly(WebhookWithSecret as JsonSchema, ['id', 'url', 'secret'])],
  [DlqEntry, requireOnly(DlqEntry as JsonSchema, ['id', 'delivery_id'])],
  // "Query parameters and response body: not shown": a queue's `total` is the sandbox's, and
  // the dead-letter verbs count the entries themselves without it (DeadLetters.count).
  [DlqList, requireOnly(DlqList as JsonSchema, ['items'])],
  [ApiKey, requireOnly(ApiKey as JsonSchema, ['id'])],
  [SurfaceRecord, requireOnly(SurfaceRecord as JsonSchema, ['id'])],
  // The reference's assignment fields; the sandbox's additions (status, revocation and update
  // fields) are checked for their type when present.
  [
    RoleAssignment,
    requireOnly(RoleAssignment as JsonSchema, [
      'user_id',
      'role_id',
      'role_name',
      'assigned_by',
      'assigned_at',
      'expires_at',
      'audit_trail_id',
    ]),
  ],
  // What `svc audit` and `svc roles permissions` print and filter on.
  [AuditTrailEntry, requireOnly(AuditTrailEntry as JsonSchema, ['id', 'action'])],
  [PermissionEntry, requireOnly(PermissionEntry as JsonSchema, ['name'])],
  // What `svc plan` checks a grant's user against.
  [User, requireOnly(User as JsonSchema, ['id'])],
]);

/** The schema an answer is checked against: the client view of `schema` when it has one. */
export function clientView(schema: JsonSchema): JsonSchema {
  return CLIENT_VIEWS.get(schema) ?? schema;
}

/** Schemas that others name with `$ref` (their `$id`). */
export const SCHEMA_REFS: ReadonlyMap<string, JsonSchema> = new Map(
  [
    ApiKey,
    AuditTrailEntry,
    Me,
    OAuthClient,
    PermissionEntry,
    SurfaceRecord,
    Role,
    RoleAssignment,
    TenantSummary,
    User,
    Webhook,
    WebhookDelivery,
    DlqEntry,
    WebhookEventPayload,
  ].map((schema) => [(schema as JsonSchema).$id!, clientView(schema as JsonSchema)]),
);
