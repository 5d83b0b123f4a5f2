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

/**
 * `list`, where one route serves several lists (a record surface's path, `/v1/rules`), is kept in
 * the cursor so a cursor of another list is refused by its name, not as "different filters".
 */
export function encodeCursor(position: CursorPosition, fingerprint: string, list?: string): string {
  return Buffer.from(
    JSON.stringify({ v: 1, ...position, f: fingerprint, ...(list === undefined ? {} : { l: list }) }),
  ).toString('base64url');
}

export function decodeCursor(cursor: string, fingerprint: string, list?: string): CursorPosition {
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
  const issued = (p as { l?: unknown }).l;
  if (list !== undefined && typeof issued === 'string' && issued !== list) {
    throw new DomainError(
      'invalid_cursor',
      `the cursor was issued for ${issued}, not ${list}; use it with GET ${issued}, or list ${list} without a cursor`,
      [{ field: 'cursor', message: `belongs to ${issued}` }],
    );
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
