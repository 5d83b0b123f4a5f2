/**
 * A Retry-After value as RFC 9110 §10.2.3 writes it: delay-seconds (digits) or an IMF-fixdate.
 * The one rule for the control route's schema and `svc sandbox start --retry-after` (V8's lenient
 * Date.parse takes "-1" or "1.5" as dates, and the sandbox then sent `retry-after: -1`).
 */
export const RETRY_AFTER_PATTERN =
  '^(\\d{1,9}|(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d{2}:\\d{2}:\\d{2} GMT)$';

export function isRetryAfter(value: string): boolean {
  return (
    new RegExp(RETRY_AFTER_PATTERN).test(value) && (/^\d+$/.test(value) || !Number.isNaN(Date.parse(value)))
  );
}
