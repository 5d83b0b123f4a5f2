import { type Static, Type } from '@sinclair/typebox';
import { API_KEY_LIMITS } from '../constants.js';
import { IdempotencyKey, NullableTimestamp, StringEnum, Timestamp } from './common.js';

export const API_KEY_KINDS = ['publishable', 'service_role'] as const;

export const ApiKeyKind = StringEnum(API_KEY_KINDS, {
  description:
    'publishable: read-only (tenant_viewer) within its tenant; service_role: full access (tenant_admin) within its tenant',
});

export const ApiKeyParams = Type.Object({ id: Type.String({ description: 'Tenant id' }) });
export const ApiKeyItemParams = Type.Object({ id: Type.String(), keyId: Type.String() });

export const ApiKeyCreateBody = Type.Object(
  {
    kind: ApiKeyKind,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: API_KEY_LIMITS.name.max })),
    justification: Type.Optional(
      Type.String({
        minLength: API_KEY_LIMITS.justification.min,
        maxLength: API_KEY_LIMITS.justification.max,
        description: `Why the key is needed. Required for service_role keys (at least ${API_KEY_LIMITS.justification.min} characters); recorded with every use.`,
      }),
    ),
    idempotency_key: IdempotencyKey,
  },
  { additionalProperties: false },
);
export type ApiKeyCreateBody = Static<typeof ApiKeyCreateBody>;

export const ApiKey = Type.Object(
  {
    id: Type.String(),
    tenant_id: Type.String(),
    kind: ApiKeyKind,
    name: Type.String(),
    prefix: Type.String({ description: 'The first characters of the key, to recognise it' }),
    justification: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    created_by: Type.String(),
    revoked_at: NullableTimestamp,
    revoked_by: Type.Optional(
      Type.String({
        description:
          "Who revoked the key (a user id, or the key or client that acted), once revoked: the answer to a second revoke names the first one's revoker, so a caller tells a revocation of its own from one made before. Optional: a server may not show it",
      }),
    ),
    stopped_reason: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          'Why the key does not act although it is not revoked (a call with it gets 401 saying the same), or null: it acts, or it is ' +
          'revoked (revoked_at). A key acts only while the user who issued it (created_by) holds every permission of its role ' +
          '(tenant_viewer for publishable, tenant_admin for service-role keys) without an end date: an issuer who lost one, or ' +
          'holds them only until a time, stops it, and it acts again once they hold them without an end date. Optional: a server may not show it',
      }),
    ),
  },
  { $id: 'ApiKey', additionalProperties: true },
);
export type ApiKey = Static<typeof ApiKey>;

export const ApiKeyCreated = Type.Intersect(
  [
    Type.Ref('ApiKey'),
    Type.Object({
      key: Type.String({ description: 'The bearer key. Returned only in this response.' }),
      warning: Type.String(),
    }),
  ],
  { description: 'The new key, shown once' },
);
export type ApiKeyCreated = ApiKey & { key: string; warning: string };

export const ApiKeyList = Type.Object({
  items: Type.Array(Type.Ref('ApiKey')),
  withheld: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        "How many of the tenant's keys (revoked ones included) the list leaves out because their role grants something the caller lacks",
    }),
  ),
});
