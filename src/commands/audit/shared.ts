import type { AuditTrailEntry } from '../../api/schemas/audit.js';
import { redactUrlsInText } from '../../api/secret-names.js';
import type { Column, Field } from '../../output/output.js';
import { sym } from '../../output/symbols.js';

/**
 * What an entry says a change did, from its fields (not its summary): a role's permissions put
 * in (+) and taken out (-), and each other changed field as it was and became (`url "…" → "…"`;
 * a creation: as created). Values are JSON, so a text cannot pass for another value. A URL in
 * them (a webhook's, a redirect URI) has its secrets masked (redactUrlsInText), as in every other
 * label svc prints, whatever the platform recorded: the trail is read by roles that may not read
 * the client or webhook (attack21b F8). Undefined for an entry without them (a grant, a deletion,
 * or a platform that records no values).
 */
export function changeText(e: AuditTrailEntry): string | undefined {
  const json = (value: unknown) => redactUrlsInText(JSON.stringify(value));
  const before = e.before ?? {};
  const after = e.after ?? {};
  const parts: string[] = [];
  for (const field of e.changes ?? Object.keys(after)) {
    if (field === 'permissions' && (e.permissions_added || e.permissions_removed)) {
      const moved = [
        ...(e.permissions_added ?? []).map((p) => `+${p}`),
        ...(e.permissions_removed ?? []).map((p) => `-${p}`),
      ];
      parts.push(`permissions ${moved.join(' ')}`);
    } else if (field in before && field in after) {
      parts.push(`${field} ${json(before[field])} ${sym.arrow} ${json(after[field])}`);
    } else if (field in after) {
      parts.push(`${field} ${json(after[field])}`);
    }
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * The last column, change, is what the change did (changeText). A cell holds one value, so a pipe's actor column stays what scripts filter on: the OAuth client
 * a change was made through (`client_id`) has a column of its own, last, so that every column
 * before it stays where it was. Empty for a change made with a JWT or an API key.
 */
export const AUDIT_COLUMNS: Array<Column<AuditTrailEntry>> = [
  { header: 'id', value: (e) => e.id, kind: 'id' },
  { header: 'at', value: (e) => e.created_at, kind: 'time' },
  { header: 'action', value: (e) => e.action, kind: 'name' },
  { header: 'actor', value: (e) => e.actor, kind: 'name' },
  { header: 'summary', value: (e) => summaryText(e) },
  { header: 'justification', value: (e) => e.justification, optional: true },
  { header: 'request', value: (e) => e.request_id, kind: 'id', optional: true },
  { header: 'client', value: (e) => e.client_id, optional: 2 },
  // After the client column, so every column before stays where it was for scripts.
  { header: 'change', value: changeText },
];

/** The entry's summary, any URL in it with its secrets masked (as changeText's). */
const summaryText = (e: AuditTrailEntry) => redactUrlsInText(e.summary);

export const auditFields = (e: AuditTrailEntry): Field[] => [
  ['id', e.id],
  ['at', e.created_at, 'time'],
  ['action', e.action],
  ['actor', e.actor],
  ['via OAuth client', e.client_id],
  ['summary', summaryText(e)],
  ['target', e.target_type && e.target_id ? `${e.target_type} ${e.target_id}` : undefined],
  ['user', e.user_id],
  [
    'role',
    e.role_name && e.role_id && e.role_name !== e.role_id ? `${e.role_name} (${e.role_id})` : e.role_id,
  ],
  ['expires', e.expires_at, 'time'],
  ['previous expiry', e.previous_expires_at, 'time'],
  ['justification', e.justification],
  ['changed fields', e.changes?.join(', ')],
  ['change', changeText(e)],
  // Only a revocation no request made has one (role_deleted): a line on those, not an empty one on all.
  ...(e.reason === undefined ? [] : [['reason', e.reason] as Field]),
  ['request', e.request_id],
];
