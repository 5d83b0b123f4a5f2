import { createHash } from 'node:crypto';
import { DomainError } from './domain/errors.js';

/**
 * Opaque cursors: base64url of the position after the last item, bound to the filters of the
 * request that produced it (a cursor used with other filters is refused with invalid_cursor),
 * and to its scope: the list it pages, and the tenant it was issued in (a cursor of another tenant
 * would page this tenant from that one's position, an untrue "no more items").
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
 * What a cursor is bound to besides its filters: `list`, where one route serves several lists (a
 * record surface's path, `/v1/rules`), so a cursor of another list is refused by its name; `tenant`,
 * the X-Tenant-Id of a tenant-scoped list, kept only as a digest so a cursor never carries a
 * tenant's id and a refusal names no other tenant.
 */
export interface CursorScope {
  list?: string;
  tenant?: string;
}

const tenantDigest = (tenant: string): string =>
  createHash('sha256').update(`tenant:${tenant}`).digest('base64url').slice(0, 12);

export function encodeCursor(position: CursorPosition, fingerprint: string, scope: CursorScope = {}): string {
  return Buffer.from(
    JSON.stringify({
      v: 1,
      ...position,
      f: fingerprint,
      ...(scope.list === undefined ? {} : { l: scope.list }),
      ...(scope.tenant === undefined ? {} : { t: tenantDigest(scope.tenant) }),
    }),
  ).toString('base64url');
}

export function decodeCursor(cursor: string, fingerprint: string, scope: CursorScope = {}): CursorPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const p = parsed as
    | { v?: unknown; k?: unknown; i?: unknown; f?: unknown; l?: unknown; t?: unknown }
    | undefined;
  if (p?.v !== 1 || typeof p.k !== 'number' || typeof p.i !== 'string' || typeof p.f !== 'string') {
    throw malformed();
  }
  const { list, tenant } = scope;
  if (list !== undefined && typeof p.l === 'string' && p.l !== list) {
    throw new DomainError(
      'invalid_cursor',
      `the cursor was issued for ${p.l}, not ${list}; use it with GET ${p.l}, or list ${list} without a cursor`,
      [{ field: 'cursor', message: `belongs to ${p.l}` }],
    );
  }
  if (tenant !== undefined) {
    // A tenant-scoped list issues no cursor without its tenant: one without is not this API's.
    if (typeof p.t !== 'string') throw malformed();
    if (p.t !== tenantDigest(tenant)) {
      throw new DomainError(
        'invalid_cursor',
        'the cursor was issued for another tenant; list this tenant without a cursor, or use the cursor with the tenant it came from',
        [{ field: 'cursor', message: 'belongs to another tenant' }],
      );
    }
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

const malformed = () =>
  new DomainError('invalid_cursor', 'the cursor is not one this API issued', [
    { field: 'cursor', message: 'is malformed' },
  ]);
