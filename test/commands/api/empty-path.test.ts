/**
 * `svc api ""` (attack24c F8): an empty or blank PATH was sent as GET / and answered "no route
 * GET /", exit 5, a request for a path the user never gave. Refused before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();

describe('svc api: an empty PATH (attack24c F8)', () => {
  it.each([[['']], [[' ']], [['GET', '']], [['POST', ' ']]])('%j: exit 2, nothing sent', async (argv) => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['api', ...argv]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: PATH must not be empty; e.g. svc api /v1/me\n',
    ]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });
});
