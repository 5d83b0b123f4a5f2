/**
 * The edges of src/config/env-limits.ts and decimal.ts, beyond env-numbers.test.ts's shapes: each
 * range's ends (the last value taken, the first refused), which of --timeout and SVC_TIMEOUT a
 * refusal names, and the hint of SVC_MAX_RESPONSE_BYTES.
 */
import { describe, expect, it } from 'vitest';
import { decimal } from '../../src/config/decimal.js';
import {
  parseCompletionTimeout,
  parseMaxResponseBytes,
  parseMaxRetries,
  parseTimeout,
} from '../../src/config/env-limits.js';
import { EXIT_CODES } from '../../src/errors.js';
import { thrown } from '../helpers/thrown.js';

describe('decimal', () => {
  it.each([
    ['7', 'integer', 7],
    ['-3', 'integer', -3],
    [' 12 ', 'integer', 12],
    ['2.5', 'number', 2.5],
    ['.5', 'number', 0.5],
    ['-.5', 'number', -0.5],
    ['-2', 'number', -2],
    ['10', 'number', 10],
    [42, 'integer', 42],
  ] as const)('%j as %s is %d', (raw, kind, value) => {
    expect(decimal(raw, kind)).toBe(value);
  });

  it.each([
    ['1.5', 'integer'],
    ['.5', 'integer'],
    ['', 'integer'],
    ['-', 'integer'],
    ['', 'number'],
    ['.', 'number'],
    ['-', 'number'],
    ['1.', 'number'],
    ['1.2.3', 'number'],
    ['x1', 'number'],
    ['1x', 'number'],
    ['1 2', 'number'],
  ] as const)('%j as %s is NaN', (raw, kind) => {
    expect(decimal(raw, kind)).toBeNaN();
  });
});

describe('parseTimeout', () => {
  it('takes up to 3600 s, in milliseconds; 30 s when unset', () => {
    expect(parseTimeout({}, { SVC_TIMEOUT: '3600' })).toBe(3_600_000);
    expect(parseTimeout({}, { SVC_TIMEOUT: '0.001' })).toBe(1);
    expect(parseTimeout({}, {})).toBe(30_000);
  });

  it.each(['3600.5', '3601', '0', '-1', 'abc'])(
    'SVC_TIMEOUT=%s is refused (exit 2) with its range',
    (raw) => {
      const error = thrown(() => parseTimeout({}, { SVC_TIMEOUT: raw }));
      expect([EXIT_CODES[error.category], error.message]).toEqual([
        2,
        `SVC_TIMEOUT must be a number of seconds, more than 0 and at most 3600, got "${raw}"`,
      ]);
    },
  );

  it('the flag wins over the variable, and its refusal names the flag', () => {
    expect(parseTimeout({ timeout: '5' }, { SVC_TIMEOUT: '10' })).toBe(5000);
    expect(thrown(() => parseTimeout({ timeout: '0' }, { SVC_TIMEOUT: '10' })).message).toBe(
      '--timeout must be a number of seconds, more than 0 and at most 3600, got "0"',
    );
  });
});

describe('parseMaxRetries', () => {
  it('takes 0 to 20; unset is undefined', () => {
    expect(parseMaxRetries({ SVC_MAX_RETRIES: '0' })).toBe(0);
    expect(parseMaxRetries({ SVC_MAX_RETRIES: '20' })).toBe(20);
    expect(parseMaxRetries({})).toBeUndefined();
  });

  it.each(['21', '-1', '1.5'])('%s is refused (exit 2)', (raw) => {
    const error = thrown(() => parseMaxRetries({ SVC_MAX_RETRIES: raw }));
    expect([EXIT_CODES[error.category], error.message]).toEqual([
      2,
      `SVC_MAX_RETRIES must be an integer from 0 to 20, got "${raw}"`,
    ]);
  });
});

describe('parseMaxResponseBytes', () => {
  it('takes 1024 and up; unset or empty is undefined (the default)', () => {
    expect(parseMaxResponseBytes({ SVC_MAX_RESPONSE_BYTES: '1024' })).toBe(1024);
    expect(parseMaxResponseBytes({ SVC_MAX_RESPONSE_BYTES: '' })).toBeUndefined();
    expect(parseMaxResponseBytes({})).toBeUndefined();
  });

  it('a refusal (exit 2) says how to give it', () => {
    const error = thrown(() => parseMaxResponseBytes({ SVC_MAX_RESPONSE_BYTES: '1k' }));
    expect([EXIT_CODES[error.category], error.hint]).toEqual([
      2,
      'e.g. SVC_MAX_RESPONSE_BYTES=268435456 for 256 MiB (the default is 64 MiB)',
    ]);
  });
});

describe('parseCompletionTimeout', () => {
  it('takes up to 60 s, in milliseconds; 1.5 s when unset or empty', () => {
    expect(parseCompletionTimeout({ SVC_COMPLETION_TIMEOUT: '60' })).toBe(60_000);
    expect(parseCompletionTimeout({ SVC_COMPLETION_TIMEOUT: '0.25' })).toBe(250);
    expect(parseCompletionTimeout({ SVC_COMPLETION_TIMEOUT: '' })).toBe(1500);
    expect(parseCompletionTimeout({})).toBe(1500);
  });

  it.each(['60.5', '61', '0', '-1', 'abc', '1s'])(
    'SVC_COMPLETION_TIMEOUT=%s is refused (exit 2) with its range',
    (raw) => {
      const error = thrown(() => parseCompletionTimeout({ SVC_COMPLETION_TIMEOUT: raw }));
      expect([EXIT_CODES[error.category], error.message]).toEqual([
        2,
        `SVC_COMPLETION_TIMEOUT must be a number of seconds, more than 0 and at most 60, got "${raw}"`,
      ]);
    },
  );
});
