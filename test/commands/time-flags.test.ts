import { describe, expect, it } from 'vitest';
import { timeAt, timeSpec } from '../../src/commands/time-flags.js';

describe('--since/--until (timeSpec, timeAt)', () => {
  const NOW_MS = Date.parse('2026-06-15T12:00:00Z');
  it.each([
    ['2026-06-01', '2026-06-01T00:00:00Z'],
    ['2026-06-01T09:30:00+02:00', '2026-06-01T07:30:00Z'],
    ['2026-06-01T09:30:00Z', '2026-06-01T09:30:00Z'],
    ['2h', '2026-06-15T10:00:00Z'],
  ])('%s is %s', (raw, iso) => {
    expect(timeAt(timeSpec('--since', raw)!, NOW_MS)).toBe(iso);
  });
  it.each(['2026-06-01T09:30:00', '2026-06-01 09:30', '2026-06-31'])('%s is refused', (raw) => {
    expect(() => timeSpec('--since', raw)).toThrow(/^--since "/);
  });
});

// everyday13 F3: --until 04:34:20.9Z was sent as 04:34:20Z, leaving out an entry of 04:34:20.5 the
// platform itself returns (and --since .9 let in one before it): the instant goes out as given.
describe('a time flag with a fraction of a second', () => {
  it('is sent to the millisecond, and a whole second as before', () => {
    expect(timeSpec('--until', '2026-11-25T04:34:20.9Z')).toEqual({ at: '2026-11-25T04:34:20.900Z' });
    expect(timeSpec('--since', '2026-11-25T05:34:20.123+01:00')).toEqual({ at: '2026-11-25T04:34:20.123Z' });
    expect(timeSpec('--since', '2026-11-25T04:34:20Z')).toEqual({ at: '2026-11-25T04:34:20Z' });
    expect(timeSpec('--since', '2026-11-25T04:34:20.000Z')).toEqual({ at: '2026-11-25T04:34:20Z' });
  });
});
