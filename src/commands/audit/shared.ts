import type { AuditTrailEntry } from '../../api/schemas/audit.js';
import type { Column, Field } from '../../output/output.js';

export const AUDIT_COLUMNS: Array<Column<AuditTrailEntry>> = [
  { header: 'id', value: (e) => e.id, kind: 'id' },
  { header: 'at', value: (e) => e.created_at, kind: 'time' },
  { header: 'action', value: (e) => e.action },
  { header: 'actor', value: (e) => e.actor },
  { header: 'summary', value: (e) => e.summary },
  { header: 'justification', value: (e) => e.justification, optional: true },
  { header: 'request', value: (e) => e.request_id, kind: 'id', optional: true },
];

export const auditFields = (e: AuditTrailEntry): Field[] => [
  ['id', e.id],
  ['at', e.created_at, 'time'],
  ['action', e.action],
  ['actor', e.actor],
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
