import { type Static, Type } from '@sinclair/typebox';
import { AUDIT_ACTIONS, AUDIT_PAGE, AUDIT_TARGET_TYPES } from '../audit.js';
import { CursorQuery, NullableTimestamp, Page, StringEnum, Timestamp } from './common.js';
import { SurfaceRecord } from './records.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const AuditTrailEntry = Type.Object(
  {
    ...SurfaceRecord.properties,
    action: StringEnum(AUDIT_ACTIONS, { description: 'What happened (family.verb)' }),
    actor: Type.String({ description: 'Who did it: a user id or an API key id' }),
    client_id: Type.Optional(
      Type.String({
        description:
          "The OAuth client whose access token made the change, acting for the user in actor (a third-party integration, or svc-cli, the user's own login); absent for a JWT or an API key",
      }),
    ),
    request_id: Type.String({ description: 'The request that made the change (its X-Request-Id)' }),
    target_type: StringEnum(AUDIT_TARGET_TYPES, {
      description: 'What was changed: a user (role grants), a role, an API key, a webhook or an OAuth client',
    }),
    target_id: Type.String(),
    summary: Type.String({ description: 'One line for people' }),
    user_id: NullableString,
    role_id: NullableString,
    role_name: NullableString,
    expires_at: NullableTimestamp,
    previous_expires_at: Type.Union([Timestamp, Type.Null()], {
      description: 'role.assignment_updated: the expiry before the change (null: permanent)',
    }),
    justification: NullableString,
    changes: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description:
        "Updates: the names of the record's fields whose values changed (permissions, url, redirect_uris, …; never a request's operator such as add_permissions); null otherwise",
    }),
    before: Type.Optional(
      Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
        description:
          'Updates (role.updated, webhook.updated, oauth_client.updated): each field in changes as it was. Never a secret: a webhook URL and an OAuth client’s redirect URIs have the credentials they carry masked ([redacted]), as svc --debug masks them. Null otherwise',
      }),
    ),
    after: Type.Optional(
      Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
        description:
          'Updates: each field in changes as it became. Creations: role.created the role (name, description, permissions), webhook.created its url and event_types, oauth_client.created its redirect_uris, scopes and grant_types. Other entries (sandbox choice): oauth_client.authorized the approval by a user (user_id, the actor) of a third-party client of the tenant with its scopes and flow (authorization_code or device_code); oauth_client.token_revoked a token family of such an approval revoked by the client (RFC 7009; the actor is the client) with its scopes; webhook.test_sent a test event sent (event_id, event_type, delivery_id). Same masking as before. Null otherwise',
      }),
    ),
    permissions_added: Type.Optional(
      Type.Union([Type.Array(Type.String()), Type.Null()], {
        description:
          'role.created: every permission the role starts with; role.updated: the permissions the change put into the role (sorted); null for other actions',
      }),
    ),
    permissions_removed: Type.Optional(
      Type.Union([Type.Array(Type.String()), Type.Null()], {
        description:
          'role.updated: the permissions the change took out of the role (sorted; role.created: empty); null for other actions',
      }),
    ),
    reason: Type.Optional(
      Type.String({
        description:
          'role.revoked that no revocation request made: why the grant ended (role_deleted: its role was deleted, one entry per grant it ended)',
      }),
    ),
  },
  {
    $id: 'AuditTrailEntry',
    additionalProperties: true,
    description:
      "An audit-trail entry, as a record of the read-only audit_trail surface (the record fields, then the entry's own). " +
      'Entries are written by every administrative change and never changed.',
  },
);
export type AuditTrailEntry = Static<typeof AuditTrailEntry>;

export const AuditTrailList = Page(Type.Ref('AuditTrailEntry'), 'Audit-trail entries in the order asked for');
export type AuditTrailList = { items: AuditTrailEntry[]; next_cursor: string | null };

export const AuditTrailListQuery = Type.Object({
  action: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'An action (role.assigned), or a family without a dot (role, webhook, api_key, oauth_client)',
    }),
  ),
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  role_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  target_type: Type.Optional(StringEnum(AUDIT_TARGET_TYPES)),
  target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  since: Type.Optional({ ...Timestamp, description: 'Entries at or after this time' }),
  until: Type.Optional({ ...Timestamp, description: 'Entries before this time' }),
  order: Type.Optional(
    StringEnum(['asc', 'desc'] as const, { description: 'asc (default): oldest first; desc: newest first' }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: AUDIT_PAGE.min, maximum: AUDIT_PAGE.max, default: AUDIT_PAGE.default }),
  ),
  ...CursorQuery,
  include_deleted: Type.Optional(
    Type.Boolean({ description: 'Accepted as on every record surface; audit entries are never deleted' }),
  ),
});
export type AuditTrailListQuery = Static<typeof AuditTrailListQuery>;
