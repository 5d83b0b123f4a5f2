import type { AuditTrailEntry } from '../../api/schemas/audit.js';
import type { Column, Field } from '../../output/output.js';

/**
 * A cell holds one value, so a pipe's actor column stays what scripts filter on: the OAuth client
 * a change was made through (`client_id`) has a column of its own, last, so that every column
 * before it stays where it was. Empty for a change made with a JWT or an API key.
 */
export const AUDIT_COLUMNS: Array<Column<AuditTrailEntry>> = [
  { header: 'id', value: (e) => e.id, kind: 'id' },
  { header: 'at', value: (e) => e.created_at, kind: 'time' },
  { header: 'action', value: (e) => e.action },
  { header: 'actor', value: (e) => e.actor },
  { header: 'summary', value: (e) => e.summary },
  { header: 'justification', value: (e) => e.justification, optional: true },
  { header: 'request', value: (e) => e.request_id, kind: 'id', optional: true },
  { header: 'client', value: (e) => e.client_id, optional: 2 },
];

export const auditFields = (e: AuditTrailEntry): Field[] => [
  ['id', e.id],
  ['at', e.created_at, 'time'],
  ['action', e.action],
  ['actor', e.actor],
  ['via OAuth client', e.client_id],
  ['summary', e.summary],
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
  ['request', e.request_id],
];
