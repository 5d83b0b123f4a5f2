/**
 * Times svc did not write, read the same in every machine zone (attack19 F2, F5): a server's
 * timestamp without a zone is the reference's UTC (serverTime), and an HTTP-date in any of its
 * three forms is GMT (httpDate), wherever they are read: shown (rfc3339, relativeTime), compared
 * (sameInstant, endMs, clearlyAfter: a rotation since a stored answer), a Retry-After. `Date.parse`
 * read both in the machine's zone, so one answer was another instant in each TZ.
 */
import { describe, expect, it } from 'vitest';
import { parseInstant } from '../../src/api/expiry.js';
import { clearlyAfter, endMs, sameInstant, serverTime } from '../../src/api/time.js';
import { httpDate } from '../../src/http/http-date.js';
import { parseRetryAfter } from '../../src/http/retry.js';
import { relativeTime, rfc3339 } from '../../src/output/format.js';
import { asctime, inTimeZone } from '../helpers/time-zone.js';

/** West of UTC, far east of it (+13:45 in November), and UTC itself. */
const ZONES = ['America/Sao_Paulo', 'Pacific/Chatham', 'Asia/Tokyo', 'UTC'];
const AT = Date.UTC(2026, 10, 25, 21, 51, 20);

describe.each(ZONES)('TZ=%s', (tz) => {
  it('a server time without a zone is UTC: shown, compared and counted as the same instant as with Z', async () => {
    await inTimeZone(tz, () => {
      expect(serverTime('2026-11-25T21:51:20')).toBe(AT);
      expect(serverTime('2026-11-25T21:51:20.250')).toBe(AT + 250);
      expect(rfc3339('2026-11-25T21:51:20')).toBe('2026-11-25T21:51:20Z');
      expect(relativeTime('2026-11-25T21:51:20', AT - 2 * 3_600_000)).toBe('in 2 hours');
      expect(sameInstant('2026-11-25T21:51:20', '2026-11-25T21:51:20Z')).toBe(true);
      expect(endMs('2026-11-25T21:51:20')).toBe(AT);
    });
  });

  it('Z, +00:00, other offsets and a space for the T are read as they say', async () => {
    await inTimeZone(tz, () => {
      for (const text of [
        '2026-11-25T21:51:20Z',
        '2026-11-25t21:51:20z',
        '2026-11-25T21:51:20+00:00',
        '2026-11-25 21:51:20+00:00',
        '2026-11-26T03:21:20+05:30',
        '2026-11-26T03:21:20+0530',
        '2026-11-25T18:51:20-03',
        '2026-11-25T21:51:20.000Z',
      ]) {
        expect(serverTime(text), text).toBe(AT);
      }
    });
  });

  it('text that is no real time is no time: passed through, never another instant', async () => {
    await inTimeZone(tz, () => {
      for (const text of [
        '2026-02-30T00:00:00Z',
        '2026-11-25T24:00:00Z',
        '2026-11-25T21:51:60Z',
        '2026-11-25T21:51:20+24:00',
        '2026-11-25T21:51:20+00:60',
        'Wed Nov 25 2026 21:51:20',
        'soon',
      ]) {
        expect(serverTime(text), text).toBeNaN();
      }
      expect(rfc3339('Wed Nov 25 2026 21:51:20')).toBe('Wed Nov 25 2026 21:51:20');
      expect(sameInstant('soon', 'soon')).toBe(true);
    });
  });

  it('a time the user gives without a zone is still refused (parseInstant), with a zone read the same everywhere', async () => {
    await inTimeZone(tz, () => {
      expect(parseInstant('2026-11-25T21:51:20')).toEqual({
        ok: false,
        message: '"2026-11-25T21:51:20" is not an ISO 8601 time with a time zone (e.g. 2026-01-15T09:30:00Z)',
      });
      expect(parseInstant('2026-11-26T03:21:20+05:30')).toEqual({ ok: true, value: AT });
      expect(parseInstant('2026-11-25 21:51Z')).toEqual({ ok: true, value: AT - 20_000 });
    });
  });

  it('an HTTP-date is GMT in each of its three forms (RFC 9110 §5.6.7), and asctime is what asctime() writes', async () => {
    await inTimeZone(tz, () => {
      expect(asctime(AT)).toBe('Wed Nov 25 21:51:20 2026');
      expect(asctime(Date.UTC(2026, 10, 5, 1, 2, 3))).toBe('Thu Nov  5 01:02:03 2026');
      for (const text of [
        'Wed, 25 Nov 2026 21:51:20 GMT',
        'Wednesday, 25-Nov-26 21:51:20 GMT',
        'Wed Nov 25 21:51:20 2026',
        'wed nov 25 21:51:20 2026',
        'Wed, 25 Nov 2026 22:51:20 +0100',
        'Wed, 25 Nov 2026 21:51:20 UTC',
      ]) {
        expect(httpDate(text, AT), text).toBe(AT);
      }
      expect(httpDate('Thu Nov  5 01:02:03 2026', AT)).toBe(Date.UTC(2026, 10, 5, 1, 2, 3));
      // RFC 850's two-digit year: more than 50 years ahead is the past century's.
      expect(httpDate('Sunday, 06-Nov-94 08:49:37 GMT', AT)).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
      for (const text of [
        'Wed, 30 Feb 2026 21:51:20 GMT',
        'Wed Nov 25 24:00:00 2026',
        '2026-11-25T21:51:20Z',
        'soon',
      ]) {
        expect(httpDate(text, AT), text).toBeNaN();
      }
    });
  });

  it('a Retry-After in asctime form is the wait it names', async () => {
    await inTimeZone(tz, () => {
      expect(parseRetryAfter(asctime(AT + 20_000), AT)).toBe(20_000);
      expect(parseRetryAfter('Wednesday, 25-Nov-26 21:51:40 GMT', AT)).toBe(20_000);
    });
  });

  it('a rotation since a stored answer: a zone-less read of the same instant is none, a later one is', async () => {
    await inTimeZone(tz, () => {
      expect(clearlyAfter('2026-11-25T21:51:20', '2026-11-25T21:51:20Z')).toBe(false);
      expect(clearlyAfter('2026-11-25T21:51:20', '2026-11-25T21:51:20.437Z')).toBe(false);
      expect(clearlyAfter('2026-11-25T21:51:22', '2026-11-25T21:51:20.437Z')).toBe(true);
      expect(clearlyAfter('2026-11-25T21:51:21', '2026-11-25T21:51:20Z')).toBe(true);
      // The precision read by the same grammar as the instant (review19b F4): a space or a lowercase
      // `t` for the T is to the second, not the minute.
      for (const later of [
        '2026-11-25 21:51:24Z',
        '2026-11-25t21:51:24z',
        '2026-11-25 21:51:24',
        '2026-11-25 21:51:24+00',
      ]) {
        expect(clearlyAfter(later, '2026-11-25T21:51:20Z'), later).toBe(true);
        expect(clearlyAfter(later.replace(':24', ':20'), '2026-11-25T21:51:20Z'), later).toBe(false);
      }
    });
  });
});
