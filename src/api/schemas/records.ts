import { type Static, Type } from '@sinclair/typebox';
import { CursorQuery, IdempotencyKey, NullableTimestamp, Page, Timestamp } from './common.js';

/** A record of a surface, by id (the surface is the path's first segment). */
export const RecordIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const SurfaceRecord = Type.Object(
  {
    id: Type.String(),
    surface: Type.String(),
    tenant_id: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
    created_by: Type.String(),
    soft_delete: Type.Boolean({ description: 'Set by DELETE: hidden from lists, purged at purge_at' }),
    deleted_at: NullableTimestamp,
    purge_at: Type.Union([Timestamp, Type.Null()], { description: '30 days after deleted_at' }),
  },
  {
    $id: 'SurfaceRecord',
    additionalProperties: true,
    description:
      "A record: the client's own fields at the top level, next to the fields the sandbox owns (id, surface, tenant_id, " +
      "created_at, updated_at, created_by, deleted_at). Payloads are not shown in the reference; this is the sandbox's choice.",
  },
);
export type SurfaceRecord = Static<typeof SurfaceRecord>;

/**
 * The answer to an accepted change by a caller who cannot read the record (it lacks the surface's
 * read permission: a finer permission such as exception.assign alone, or write without read): the record's other fields are a read, so they are not in it.
 */
export const RecordUnreadAnswer = Type.Object(
  {
    id: Type.String(),
    surface: Type.String(),
    tenant_id: Type.String(),
    updated_at: Timestamp,
    soft_delete: Type.Optional(Type.Boolean()),
    deleted_at: Type.Optional(NullableTimestamp),
    purge_at: Type.Optional(Type.Union([Timestamp, Type.Null()])),
  },
  {
    $id: 'RecordUnreadAnswer',
    additionalProperties: true,
    description:
      "What an accepted change answers to a caller who cannot read the record (without the surface's read permission, " +
      'e.g. exception.assign alone, or exception.write without exception.read): id, surface, tenant_id and ' +
      'updated_at, and for a PATCH the fields the caller sent, as sent (null: removed), for a DELETE soft_delete, ' +
      'deleted_at and purge_at; no other field of the record (that would be a read). A caller who holds the read ' +
      'permission gets the whole record (SurfaceRecord).',
  },
);
export type RecordUnreadAnswer = Static<typeof RecordUnreadAnswer>;

/** A change's answer: the whole record to a caller who may read it, else only what the change did. */
export const RecordChangeAnswer = Type.Union([Type.Ref('SurfaceRecord'), Type.Ref('RecordUnreadAnswer')], {
  description:
    'The record as it now is (SurfaceRecord) to a caller who may read it; to one who may not, only what the change ' +
    'did (RecordUnreadAnswer)',
});

export const RecordCreateBody = Type.Object(
  { idempotency_key: IdempotencyKey },
  { additionalProperties: true, description: "The record's fields (any JSON), plus idempotency_key" },
);

export const RecordList = Page(
  Type.Ref('SurfaceRecord'),
  'Records in creation order; soft-deleted ones are left out.',
);

export const RecordListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  ...CursorQuery,
  include_deleted: Type.Optional(
    Type.Boolean({ default: false, description: 'Also list soft-deleted records not yet purged' }),
  ),
});

export const RecordPatchBody = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      "A JSON Merge Patch (RFC 7396) of the record's own fields: members merge, null removes. Content-Type " +
      'application/merge-patch+json or application/json.',
  },
);
export type RecordListQuery = Static<typeof RecordListQuery>;
