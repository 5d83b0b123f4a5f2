/**
 * Time zones and the time shapes other servers write (attack19 F2, F5): a test runs svc in-process
 * under a machine zone of its choosing (Node reads a TZ set at run time from then on), and a
 * reshaping proxy (./reshaping-proxy.ts) writes the sandbox's times without their Z, or its Date
 * header in asctime form.
 */
import type { Reshaped } from './reshaping-proxy.js';

/**
 * Runs `work` with the machine's zone `tz`, then puts back the zone it found: test files share a
 * worker's process (vitest.config.ts: isolate false), so none may leave TZ changed.
 */
export async function inTimeZone<T>(tz: string, work: () => Promise<T> | T): Promise<T> {
  const before = process.env.TZ;
  process.env.TZ = tz;
  try {
    return await work();
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
}

const UTC_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

/** Every `…T…Z` time of a JSON value rewritten by `form`, in place. */
function everyUtcTime(value: unknown, form: (time: string) => string): unknown {
  if (typeof value === 'string') return UTC_TIME.test(value) ? form(value) : value;
  if (Array.isArray(value)) return value.map((item) => everyUtcTime(item, form));
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value))
      (value as Record<string, unknown>)[key] = everyUtcTime(item, form);
  }
  return value;
}

/** Every `…T…Z` time of a JSON value without its Z (`2026-11-25T21:51:20`, Python's isoformat()), in place. */
export const withoutZone = (value: unknown): unknown => everyUtcTime(value, (time) => time.slice(0, -1));

/** A proxy's reshape that strips the Z of every time of a JSON answer (withoutZone). */
export const zoneless = (answer: Reshaped): void => {
  answer.body = withoutZone(answer.body);
};

/** A proxy's reshape that writes every time of a JSON answer with `+00:00` for its Z (the same instant). */
export const offsetZero = (answer: Reshaped): void => {
  answer.body = everyUtcTime(answer.body, (time) => `${time.slice(0, -1)}+00:00`);
};

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An instant in the asctime form of an HTTP-date (RFC 9110 §5.6.7), `Wed Nov  5 19:55:39 2026`: GMT, no zone written. */
export function asctime(ms: number): string {
  const d = new Date(ms);
  const time = d.toISOString().slice(11, 19);
  const day = String(d.getUTCDate()).padStart(2, ' ');
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${day} ${time} ${d.getUTCFullYear()}`;
}

/** A proxy's reshape that sends every answer's Date header in asctime form (the same instant). */
export const asctimeDate = (answer: Reshaped): void => {
  const date = answer.headers.date;
  if (date !== undefined) answer.headers.date = asctime(Date.parse(date));
};
