/**
 * env12 #4: every numeric SVC_* variable and flag is read by one decimal rule. SVC_MAX_RETRIES=" "
 * meant 0 retries (Number(" ") is 0), and 0x2, 0b1, 1e3 were taken as numbers.
 */
import { describe, expect, it } from 'vitest';
import { intFlag } from '../../src/commands/kit.js';
import { parseMaxResponseBytes, parseMaxRetries, parseTimeout } from '../../src/config/env-limits.js';
import { runInProcess, useTempDirs } from '../helpers/context.js';

const NOT_DECIMAL = [' ', '  ', '\t', '0x2', '0b1', '0o7', '1e1', '+2', '2.', '.5e1', 'Infinity', '1_0', '٣'];

describe('numeric SVC_* variables and flags: plain decimal only', () => {
  it.each(NOT_DECIMAL)('SVC_MAX_RETRIES=%j is refused, naming the variable', (raw) => {
    expect(() => parseMaxRetries({ SVC_MAX_RETRIES: raw })).toThrow(
      `SVC_MAX_RETRIES must be an integer from 0 to 20, got ${JSON.stringify(raw)}`,
    );
  });

  it.each(NOT_DECIMAL)('SVC_TIMEOUT=%j is refused, naming the variable', (raw) => {
    expect(() => parseTimeout({}, { SVC_TIMEOUT: raw })).toThrow(/^SVC_TIMEOUT must be a number of seconds/);
  });

  it.each(NOT_DECIMAL)('--timeout %j is refused, naming the flag', (raw) => {
    expect(() => parseTimeout({ timeout: raw }, {})).toThrow(/^--timeout must be a number of seconds/);
  });

  it.each(NOT_DECIMAL)('SVC_MAX_RESPONSE_BYTES=%j is refused, naming the variable', (raw) => {
    expect(() => parseMaxResponseBytes({ SVC_MAX_RESPONSE_BYTES: raw })).toThrow(
      /^SVC_MAX_RESPONSE_BYTES must be a whole number of bytes/,
    );
  });

  // review-d 8: a whole number above 2^53 - 1 was refused as if it were none.
  it.each(['9007199254740992', '1023', '0'])(
    'SVC_MAX_RESPONSE_BYTES=%s is refused with its true range',
    (raw) => {
      expect(() => parseMaxResponseBytes({ SVC_MAX_RESPONSE_BYTES: raw })).toThrow(
        `SVC_MAX_RESPONSE_BYTES must be a whole number of bytes from 1024 to 9007199254740991, got "${raw}"`,
      );
    },
  );

  it('SVC_MAX_RESPONSE_BYTES takes the largest safe integer', () => {
    expect(parseMaxResponseBytes({ SVC_MAX_RESPONSE_BYTES: '9007199254740991' })).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });

  it.each(NOT_DECIMAL)('an integer flag %j is refused, naming the flag', (raw) => {
    expect(() => intFlag('--limit', raw, 1, 100)).toThrow(/^--limit must be an integer from 1 to 100/);
  });

  it('takes decimal values, padded or not; empty variables mean unset', () => {
    expect(parseMaxRetries({ SVC_MAX_RETRIES: '2' })).toBe(2);
    expect(parseMaxRetries({ SVC_MAX_RETRIES: ' 0 ' })).toBe(0);
    expect(parseMaxRetries({ SVC_MAX_RETRIES: '' })).toBeUndefined();
    expect(parseTimeout({}, { SVC_TIMEOUT: '2.5' })).toBe(2500);
    expect(parseTimeout({}, { SVC_TIMEOUT: '0.5' })).toBe(500);
    expect(parseTimeout({}, { SVC_TIMEOUT: '' })).toBe(30_000);
    expect(parseTimeout({ timeout: ' 10 ' }, {})).toBe(10_000);
    expect(parseMaxResponseBytes({ SVC_MAX_RESPONSE_BYTES: '2048' })).toBe(2048);
    expect(intFlag('--limit', '07', 1, 100)).toBe(7);
    expect(intFlag('--offset', '-3', -10, 10)).toBe(-3);
  });
});

describe('svc with SVC_MAX_RETRIES=" "', () => {
  const dirs = useTempDirs();
  it('exits 2 with one line naming the variable, before any request', async () => {
    const r = await runInProcess(['tenants', 'ls'], {
      ...dirs(),
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_TOKEN: 'abcdefghijkl',
      SVC_MAX_RETRIES: ' ',
    });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: SVC_MAX_RETRIES must be an integer from 0 to 20, got " "\n',
    });
  });
});
