import { type Static, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';

/** A string enum as plain JSON Schema (`{type: string, enum: [...]}`), which reads better in OpenAPI than anyOf. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const Timestamp = Type.String({
  format: 'date-time',
  description: 'ISO 8601 UTC, second precision (YYYY-MM-DDThh:mm:ssZ)',
  examples: ['2026-01-15T09:30:00Z'],
});

export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const ErrorBody = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ description: 'Stable machine-readable error code (see x-error-codes)' }),
        message: Type.String({ description: 'Human-readable explanation' }),
        request_id: Type.String({ description: 'Same value as the X-Request-Id response header' }),
        details: Type.Optional(
          Type.Array(
            Type.Object({ field: Type.String(), message: Type.String() }, { additionalProperties: true }),
            { description: 'Field-level problems, for validation errors' },
          ),
        ),
      },
      { additionalProperties: true },
    ),
  },
  {
    $id: 'ErrorBody',
    title: 'Error',
    description:
      'Every 4xx and 5xx response of /v1 has this body (the reference says "not shown"; this is the sandbox\'s choice). ' +
      'The OAuth token endpoint answers RFC 6749 §5.2 errors instead.',
  },
);
export type ErrorBody = Static<typeof ErrorBody>;

/**
 * The cursor of the next page; null on the last page. Null comes first and is the example, so a
 * client generated from the document, or a mock serving it (Prism samples the first branch of a
 * union), reaches the end of a list instead of paging forever.
 */
export const NextCursor = Type.Union([Type.Null(), Type.String()], {
  description: 'Opaque cursor for the next page; null on the last page',
  examples: [null],
});

export function Page<T extends TSchema>(item: T, description: string) {
  return Type.Object({ items: Type.Array(item), next_cursor: NextCursor }, { description });
}

export const CursorQuery = {
  cursor: Type.Optional(
    Type.String({
      description:
        'Opaque cursor from next_cursor of the previous page. A cursor is bound to the filters it was issued with.',
      maxLength: 2048,
    }),
  ),
};

/** Every POST body carries one (the reference requires it). */
export const IdempotencyKey = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    'Required on every POST (an Idempotency-Key header, when also sent, must match). The same key with the same body returns the stored response (header Idempotent-Replayed: true); ' +
    'with a different body, 409 idempotency_key_reused; while the first request is still running, 409 idempotency_request_in_progress. ' +
    'Keys are scoped to the caller and tenant and kept 24 hours.',
});
