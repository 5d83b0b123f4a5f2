import { createHash } from 'node:crypto';
import { DomainError } from './domain/errors.js';

/**
 * Opaque cursors: base64url of the position after the last item, bound to the filters of the
 * request that produced it (a cursor used with other filters is refused with invalid_cursor).
 */
export interface CursorPosition {
  /** Sort key of the last item returned (e.g. created_at in ms). */
  k: number;
  /** Id of the last item returned (the tie-breaker). */
  i: string;
}

export function filterFingerprint(filters: Record<string, unknown>): string {
  const text = JSON.stringify(
    Object.entries(filters)
      .filter(([, v]) => v !== undefined && v !== null)
      .sort(),
  );
  return createHash('sha256').update(text).digest('base64url').slice(0, 12);
}

export function encodeCursor(position: CursorPosition, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ v: 1, ...position, f: fingerprint })).toString('base64url');
}

export function decodeCursor(cursor: string, fingerprint: string): CursorPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const p = parsed as { v?: unknown; k?: unknown; i?: unknown; f?: unknown } | undefined;
  if (p?.v !== 1 || typeof p.k !== 'number' || typeof p.i !== 'string' || typeof p.f !== 'string') {
    throw new DomainError('invalid_cursor', 'the cursor is not one this API issued', [
      { field: 'cursor', message: 'is malformed' },
    ]);
  }
  if (p.f !== fingerprint) {
    throw new DomainError(
      'invalid_cursor',
      'the cursor was issued for different filters; repeat the same filters',
      [{ field: 'cursor', message: 'belongs to another filter set' }],
    );
  }
  return { k: p.k, i: p.i };
}
