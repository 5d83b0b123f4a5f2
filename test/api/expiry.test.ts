/**
 * A bad expiry is repeated in its error bounded, as every other value svc echoes (quoted(),
 * src/output/format.ts): whole up to 200 characters, else its start, its end and its length. A
 * 10 KB --expires-in was echoed entire: a "one-line" error a pipe could cut short.
 */
import { describe, expect, it } from 'vitest';
import { parseAt, parseDuration } from '../../src/api/expiry.js';
import { runInProcess } from '../helpers/context.js';

const LONG = `${'a'.repeat(5000)}${'b'.repeat(5000)}`;
const SHOWN = `"${'a'.repeat(60)}…${'b'.repeat(40)}" (10000 characters)`;
const message = (parsed: { ok: boolean; message?: string }) => (parsed.ok ? 'ok' : parsed.message);

describe('an expiry that is refused is echoed bounded', () => {
  it.each<[string, () => { ok: boolean; message?: string }, string]>([
    [
      'not a duration',
      () => parseDuration(LONG),
      `${SHOWN} is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never`,
    ],
    [
      'M, not a unit',
      () => parseDuration(`${'0'.repeat(9999)}6M`),
      `"${'0'.repeat(60)}…${'0'.repeat(38)}6M" (10001 characters): M is not a unit; write 6m for minutes (months are not a unit: use days, e.g. 30d, or an end time)`,
    ],
    [
      'longer than 365 days',
      () => parseDuration(`${'0'.repeat(9996)}400d`),
      `"${'0'.repeat(60)}…${'0'.repeat(36)}400d" (10000 characters) is longer than 365 days; give an end time (expires at) instead`,
    ],
    [
      'not a time',
      () => parseAt(LONG),
      `${SHOWN} is not an ISO 8601 time with a time zone (e.g. 2026-01-15T09:30:00Z)`,
    ],
    // Short values as before: whole, as JSON.
    [
      'a short one',
      () => parseDuration('8x'),
      '"8x" is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never',
    ],
  ])('%s', (_what, parse, expected) => {
    expect(message(parse())).toBe(expected);
  });

  it('svc roles assign --expires-in of 10 KB: one bounded line, exit 2', async () => {
    const r = await runInProcess(
      ['roles', 'assign', 'u', 'r', '--expires-in', LONG, '--justification', 'x'],
      {},
    );
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: --expires-in ${SHOWN} is not a duration: use a whole number and m, h or d (30m, 8h, 7d), or never\n`,
    });
  });
});

// review17c C4: the "M is not a unit" hint suggested `0m` and `99999999m`, which svc then refused.
describe('the "M is not a unit" hint suggests only a duration svc takes', () => {
  const MONTHS = '(months are not a unit: use days, e.g. 30d, or an end time)';
  it.each([
    ['6M', `"6M": M is not a unit; write 6m for minutes ${MONTHS}`],
    ['525600M', `"525600M": M is not a unit; write 525600m for minutes ${MONTHS}`],
    ['0M', `"0M": M is not a unit; minutes are m, from 1m to 525600m ${MONTHS}`],
    ['000M', `"000M": M is not a unit; minutes are m, from 1m to 525600m ${MONTHS}`],
    ['525601M', `"525601M": M is not a unit; minutes are m, from 1m to 525600m ${MONTHS}`],
    ['99999999M', `"99999999M": M is not a unit; minutes are m, from 1m to 525600m ${MONTHS}`],
  ])('%s', (raw, expected) => {
    expect(message(parseDuration(raw))).toBe(expected);
    // What it suggests, svc takes.
    const suggested = /write (\d+m) for minutes/.exec(expected)?.[1];
    if (suggested !== undefined) expect(parseDuration(suggested).ok).toBe(true);
  });
});
