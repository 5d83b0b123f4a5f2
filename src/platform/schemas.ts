/**
 * The schemas answers are checked against at the boundary: the same TypeBox schemas (plain JSON
 * Schema) that the sandbox validates and serialises with, so the CLI checks the contract the
 * sandbox publishes. Only answers are checked here; request bodies are the sandbox's to refuse.
 */
import { ApiKey } from '../api/schemas/api-keys.js';
import { Me } from '../api/schemas/me.js';
import { OAuthClient } from '../api/schemas/oauth.js';
import { SurfaceRecord } from '../api/schemas/records.js';
import { Role, RoleAssignment } from '../api/schemas/roles.js';
import { TenantSummary } from '../api/schemas/tenants.js';
import { DlqEntry, Webhook, WebhookDelivery, WebhookEventPayload } from '../api/schemas/webhooks.js';
import type { JsonSchema } from './check.js';

/**
 * A schema whose `fields` may be absent: fields the reference leaves "not shown" that the
 * sandbox always sends but no command depends on, so another server of the API may leave them out.
 */
function loosen(schema: JsonSchema, fields: string[]): JsonSchema {
  return { ...schema, required: (schema.required ?? []).filter((name) => !fields.includes(name)) };
}

/**
 * GET /v1/me: the reference shows no body. `credential` (what kind of credential, its expiry and
 * scopes) is the sandbox's addition; `svc me` and `svc auth status` show it when it is there.
 */
export const MeAnswer = loosen(Me as JsonSchema, ['credential']);

/** Schemas that others name with `$ref` (their `$id`). */
export const SCHEMA_REFS: ReadonlyMap<string, JsonSchema> = new Map(
  [
    ApiKey,
    MeAnswer,
    OAuthClient,
    SurfaceRecord,
    Role,
    RoleAssignment,
    TenantSummary,
    Webhook,
    WebhookDelivery,
    DlqEntry,
    WebhookEventPayload,
  ].map((schema) => [(schema as JsonSchema).$id!, schema as JsonSchema]),
);
