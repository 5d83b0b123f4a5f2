/**
 * Text helpers shared by every renderer: times and cell values.
 */

import { isoSeconds } from '../api/time.js';
import { escapeForTerminal } from './sanitize.js';

/** One table or TSV cell: one line, control characters made visible (sanitize.ts). */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text: string;
  if (Array.isArray(value)) text = value.map((v) => cellText(v)).join(',');
  else if (typeof value === 'object') text = JSON.stringify(value);
  else text = String(value);
  return escapeForTerminal(text.replace(/[\t\r\n]+/g, ' '));
}

/** RFC 3339 in UTC with second precision, e.g. 2026-01-02T03:04:05Z; input that is not a time passes through. */
export function rfc3339(value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number') return cellText(value);
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return cellText(value);
  return isoSeconds(date.getTime());
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

let relativeFormat: Intl.RelativeTimeFormat | undefined;

/**
 * "3 hours ago", "in 2 days", "now"; input that is not a time passes through. Values are rounded,
 * not truncated: a grant of 8 hours made a moment ago expires "in 8 hours" (7 h 59 min 59.9 s),
 * and a unit is used once the time is within half a smaller unit of it (59 min 45 s is "in 1 hour").
 */
export function relativeTime(value: unknown, nowMs: number): string {
  if (typeof value !== 'string' && typeof value !== 'number') return cellText(value);
  const then = new Date(value).getTime();
  if (Number.isNaN(then)) return cellText(value);
  const seconds = Math.round((then - nowMs) / 1000);
  relativeFormat ??= new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (let u = 0; u < UNITS.length; u++) {
    const [unit, size] = UNITS[u]!;
    const smaller = UNITS[u + 1]?.[1] ?? 1;
    if (Math.abs(seconds) >= size - smaller / 2)
      return relativeFormat.format(Math.round(seconds / size), unit);
  }
  return Math.abs(seconds) < 10 ? 'now' : relativeFormat.format(seconds, 'second');
}

/** Masks a credential for display: a short known prefix and the last four characters. */
export function maskSecret(secret: string): string {
  if (secret.length <= 12) return '****';
  const prefix = /^(svc_[a-z]+_|eyJ|Bearer )/.exec(secret)?.[0] ?? '';
  return `${prefix}****${secret.slice(-4)}`;
}
