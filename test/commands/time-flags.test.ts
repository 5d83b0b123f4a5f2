import { describe, expect, it } from 'vitest';
import { timeAt, timeSpec } from '../../src/commands/kit.js';

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
