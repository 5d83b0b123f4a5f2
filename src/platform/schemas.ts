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

/** Schemas that others name with `$ref` (their `$id`). */
export const SCHEMA_REFS: ReadonlyMap<string, JsonSchema> = new Map(
  [
    ApiKey,
    Me,
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
