import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_POLICY,
  isRetryableStatus,
  parseRetryAfter,
  retryDelayMs,
} from '../../src/http/retry.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('retry policy', () => {
  it.each([
    ['GET', 408, true],
    ['POST', 429, true],
    ['POST', 502, true],
    ['PATCH', 503, true],
    ['DELETE', 504, true],
    ['GET', 500, true],
    ['HEAD', 500, true],
    ['POST', 500, false],
    ['PATCH', 500, false],
    ['GET', 400, false],
    ['GET', 401, false],
    ['GET', 404, false],
    ['POST', 409, false],
    ['GET', 501, false],
  ])('%s %i retryable: %s', (method, status, expected) => {
    expect(isRetryableStatus(method, status)).toBe(expected);
  });

  it.each([
    ['seconds', '3', 3000],
    ['zero', '0', 0],
    ['HTTP date', 'Thu, 01 Jan 2026 00:00:05 GMT', 5000],
    ['a date in the past', 'Wed, 31 Dec 2025 23:00:00 GMT', 0],
    ['garbage', 'soon', undefined],
    ['negative', '-1', undefined],
    ['absent', undefined, undefined],
  ])('Retry-After %s', (_name, value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it('honours Retry-After within the cap', () => {
    expect(retryDelayMs(1, '2', DEFAULT_RETRY_POLICY, NOW)).toBe(2000);
    expect(retryDelayMs(1, '3600', DEFAULT_RETRY_POLICY, NOW)).toBe(DEFAULT_RETRY_POLICY.retryAfterCapMs);
  });

  it('backs off exponentially with jitter between half and all of the ceiling', () => {
    const p = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelayMs(1, undefined, p, NOW, () => 0)).toBe(50);
    expect(retryDelayMs(1, undefined, p, NOW, () => 1)).toBe(100);
    expect(retryDelayMs(3, undefined, p, NOW, () => 1)).toBe(400);
    expect(retryDelayMs(10, undefined, p, NOW, () => 1)).toBe(1000);
    expect(retryDelayMs(10, undefined, p, NOW, () => 0)).toBe(500);
  });
});
