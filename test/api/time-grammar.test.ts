/**
 * One grammar for times and one for durations, each refusal naming what is wrong (attack22 F6,
 * F9): an impossible date, hour 24, a 24 h offset, a space before the zone and a date alone were
 * all "not an ISO 8601 time with a time zone", though the zone was there; `--expires-in` took `8H`
 * and refused `30s`, `--since` took `30s` and refused `1H`, and only one said what `M` was.
 */
import { describe, expect, it } from 'vitest';
import { parseDuration, parseInstant } from '../../src/api/expiry.js';
import { timeSpec } from '../../src/commands/time-flags.js';

const refused = (parsed: { ok: boolean; message?: string }) => (parsed.ok ? 'taken' : parsed.message);

describe('a time svc does not take says what is wrong with it', () => {
  it.each([
    ['2027-02-29T00:00:00Z', 'is not a date: 2027 is not a leap year (February 2027 has 28 days)'],
    ['2026-04-31T10:00:00+02:00', 'is not a date: April has 30 days'],
    ['2026-13-01T10:00:00Z', 'is not a date: month 13 (months are 01 to 12)'],
    [
      '2026-12-01T24:00:00Z',
      'has hour 24, which the platform does not take: for the end of 2026-12-01 write 2026-12-02T00:00:00Z',
    ],
    [
      '2026-12-31T24:00+05:30',
      'has hour 24, which the platform does not take: for the end of 2026-12-31 write 2027-01-01T00:00:00+05:30',
    ],
    ['2026-12-01T24:30:00Z', 'has hour 24: hours are 00 to 23'],
    ['2026-12-01T10:61:00Z', 'has minute 61: minutes are 00 to 59'],
    ['2026-12-01T10:00:61Z', 'has second 61: seconds are 00 to 59'],
    [
      '2026-06-30T23:59:60Z',
      'is a leap second (second 60), which the platform does not take; give 2026-06-30T23:59:59Z or the next second',
    ],
    [
      '2026-12-01T10:00:00+24:00',
      'has the offset +24:00: an offset is less than 24 hours, from -23:59 to +23:59',
    ],
    [
      '2026-12-01T10:00:00-0060',
      'has the offset -0060: an offset is less than 24 hours, from -23:59 to +23:59',
    ],
    ['2026-12-01 10:00:00 +05:30', 'has a space before its time zone: write 2026-12-01T10:00:00+05:30'],
    ['2026-12-01T10:00 Z', 'has a space before its time zone: write 2026-12-01T10:00Z'],
    ['2026-12-01', 'is a date alone: add a time and a time zone, e.g. 2026-12-01T00:00:00Z'],
    // Without a zone that is what is said first (a wrong field of the date still before it).
    ['2026-12-01T24:00:00', 'is not an ISO 8601 time with a time zone (e.g. 2026-01-15T09:30:00Z)'],
    ['2027-02-29T00:00:00', 'is not a date: 2027 is not a leap year (February 2027 has 28 days)'],
    ['tomorrow', 'is not an ISO 8601 time with a time zone (e.g. 2026-01-15T09:30:00Z)'],
  ])('%s', (text, problem) => {
    expect(refused(parseInstant(text))).toBe(`"${text}" ${problem}`);
  });

  it('takes the real times beside them', () => {
    for (const text of ['2028-02-29T00:00:00Z', '2026-12-01T23:59:59+23:59', '2026-12-01 10:00:00+05:30'])
      expect(refused(parseInstant(text))).toBe('taken');
  });

  it('--since says the same of a date alone that the calendar has not', () => {
    expect(() => timeSpec('--since', '2027-02-29')).toThrow(
      '--since "2027-02-29" is not a date: 2027 is not a leap year (February 2027 has 28 days)',
    );
    expect(timeSpec('--since', '2028-02-29')).toEqual({ at: '2028-02-29T00:00:00Z' });
  });
});

describe('one duration grammar, each flag its own units and bounds', () => {
  it('--since and --until read what --expires-in reads: H and D as h and d, a space between', () => {
    expect(timeSpec('--since', '1H')).toEqual({ agoMs: 3_600_000, text: '1h' });
    expect(timeSpec('--since', '7 D')).toEqual({ agoMs: 7 * 86_400_000, text: '7d' });
    expect(timeSpec('--until', '30S')).toEqual({ agoMs: 30_000, text: '30s' });
    expect(parseDuration('8H')).toEqual({ ok: true, value: { kind: 'in', ms: 8 * 3_600_000, text: '8h' } });
  });

  it('M is refused by both, saying minutes or months, with what each flag takes instead', () => {
    expect(() => timeSpec('--since', '1M')).toThrow(
      '--since "1M": M is not a unit; write 1m for minutes (months are not a unit: use days, e.g. 30d, or a date)',
    );
    expect(refused(parseDuration('1M'))).toBe(
      '"1M": M is not a unit; write 1m for minutes (months are not a unit: use days, e.g. 30d, or an end time)',
    );
  });

  // review22b F4: the advice named the grant-expiry bound (1m to 525600m) for --since, which takes
  // 0m and 600000m: what a flag is told is what that flag takes.
  it.each([
    ['600000M', 'write 600000m for minutes'],
    ['0M', 'write 0m for minutes'],
    ['52560000M', 'write 52560000m for minutes'],
    ['52560001M', 'minutes are m, up to 52560000m'],
  ])('--since %s is told the minutes --since takes', (raw, minutes) => {
    expect(() => timeSpec('--since', raw)).toThrow(
      `--since "${raw}": M is not a unit; ${minutes} (months are not a unit: use days, e.g. 30d, or a date)`,
    );
    const suggested = /write (\d+m) for minutes/.exec(minutes)?.[1];
    if (suggested !== undefined) expect(timeSpec('--since', suggested)).toHaveProperty('agoMs');
    else expect(() => timeSpec('--since', raw.replace('M', 'm'))).toThrow('is too far back');
  });

  it('seconds: back from now, yes; a grant’s expiry says why not, in words', () => {
    expect(timeSpec('--since', '30s')).toEqual({ agoMs: 30_000, text: '30s' });
    expect(refused(parseDuration('30s'))).toBe(
      `"30s": a grant's expiry is not counted in seconds; use m, h or d (30m, 8h, 7d), at least 1m`,
    );
    expect(refused(parseDuration('3600S'))).toBe(
      `"3600S": a grant's expiry is not counted in seconds; use m, h or d (30m, 8h, 7d), at least 1m`,
    );
  });

  it('what neither takes is refused by both as before', () => {
    for (const text of ['1w', '1.5h', '2h30m', '-2h']) {
      expect(refused(parseDuration(text))).toBe(
        `"${text}" is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never`,
      );
      expect(() => timeSpec('--since', text)).toThrow(
        `--since takes an ISO 8601 time (2026-01-15T09:30:00Z) or a duration back from now (30m, 2h, 7d), got "${text}"`,
      );
    }
  });
});
