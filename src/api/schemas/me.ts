import { type Static, Type } from '@sinclair/typebox';
import { NullableTimestamp } from './common.js';

export const MeTenant = Type.Object({
  id: Type.String({ format: 'uuid' }),
  slug: Type.String(),
  display_name: Type.String(),
  role: Type.String({ description: "The caller's highest active role in the tenant" }),
});

export const Me = Type.Object(
  {
    id: Type.String({ description: 'User id, or API key id for an API key' }),
    type: Type.Union([Type.Literal('user'), Type.Literal('api_key')]),
    name: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    tenant_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The tenant of this call: X-Tenant-Id when sent, else the first tenant of the credential',
    }),
    permissions: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "The permissions the caller's live roles grant in tenant_id now (an API key: its role's), sorted, each once; " +
          'just-in-time grants included, none when tenant_id is null. Read with no permission, so a client predicts what the ' +
          "platform will refuse (svc webhooks replay --dry-run: the read permission of the data) without role.read. (Not shown in the reference; the sandbox's addition.) " +
          'Optional: a server may not show it',
      }),
    ),
    tenants: Type.Array(MeTenant, {
      description: 'The tenants the credential may act in (its tenants claim)',
    }),
    org: Type.Union(
      [
        Type.Object({
          id: Type.String(),
          name: Type.String(),
          role: Type.Union([Type.String(), Type.Null()], { description: 'org_admin, or null' }),
        }),
        Type.Null(),
      ],
      { description: 'The organisation the caller belongs to' },
    ),
    credential: Type.Object(
      {
        kind: Type.String({ description: 'jwt, oauth_access_token, publishable_key or service_role_key' }),
        expires_at: NullableTimestamp,
        scopes: Type.Union([Type.Array(Type.String()), Type.Null()], {
          description: 'OAuth scopes; null when the credential is not scope-limited',
        }),
        client_id: Type.Optional(
          Type.Union([Type.String(), Type.Null()], {
            description: 'An OAuth access token only: the client it was issued to',
          }),
        ),
        third_party: Type.Optional(
          Type.Union([Type.Boolean(), Type.Null()], {
            description:
              "An OAuth access token only: whether its client is a third party's (one created in a tenant), whose tokens " +
              'are refused what only users themselves may do (403 user_required: minting or re-pointing a standing credential); ' +
              "false for the first-party svc-cli, the user's own login. Optional (null too): a server may not say, and then a client " +
              "predicts nothing of it. (Not shown in the reference; the sandbox's choice.)",
          }),
        ),
        issued_by: Type.Optional(
          Type.Union([Type.String(), Type.Null()], {
            description:
              'An API key only: the user who issued it (null for a key minted by the sandbox test controls). ' +
              'The key acts only while they hold its role’s permissions without an end date, and grants them no role (403 self_assignment), ' +
              "so a client can tell ahead which grants the key would be refused. (Not shown in the reference; the sandbox's choice.)",
          }),
        ),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'Me', additionalProperties: true },
);
export type Me = Static<typeof Me>;
