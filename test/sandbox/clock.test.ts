import { describe, expect, it } from 'vitest';
import { call, sandboxNow, useSandbox } from '../helpers/sandbox.js';

// POST /_sandbox/clock refuses an advance past what the API's timestamps can say (RFC 3339's
// four-digit years) before it moves anything: a huge one answered 500, moved the clock anyway,
// and every Date header after it read "Invalid Date".
const sandbox = useSandbox();
const LIMIT = Date.parse('9999-01-01T00:00:00Z');

describe('POST /_sandbox/clock', () => {
  it.each([1e13, 3e11])(
    'refuses advance_seconds=%d with 400 naming the field and its limit, changing nothing',
    async (seconds) => {
      const before = await call(sandbox(), 'GET', '/_sandbox/clock');
      const r = await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: seconds } });
      expect(r.status, r.text).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      const max =
        /^advance_seconds must be at most (\d+): the sandbox clock stays before 9999-01-01T00:00:00Z$/.exec(
          r.body.error.message,
        );
      expect(max, r.body.error.message).not.toBeNull();
      const now = await sandboxNow(sandbox());
      expect(Math.abs(Number(max![1]) - (LIMIT - now) / 1000)).toBeLessThan(5);
      const after = await call(sandbox(), 'GET', '/_sandbox/clock');
      expect(after.status).toBe(200);
      expect(after.body.offset_seconds).toBe(before.body.offset_seconds);
      expect(after.headers.get('date')).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    },
  );

  it('moves up to the limit, and the Date header still says a date', async () => {
    const r = await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 2e11 } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.now).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(r.headers.get('date')).not.toBe('Invalid Date');
  });
});
