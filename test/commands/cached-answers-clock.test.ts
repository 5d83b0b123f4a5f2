/**
 * review22c F4: svc learns the platform's clock from answers' Date headers, and counts
 * `--expires-in`, measures a terminal's relative times and judges `auth token` from it. A shared
 * cache in front of the API answers with the origin's Date from when the answer was made and says
 * its age in `Age` (RFC 9111 §4.2.3); a gateway's own error page carries the gateway's Date. Taken
 * as the platform's clock, an answer cached two hours set it back two hours: `--expires-in 1h`
 * was counted from two hours ago. Played by a proxy in front of the sandbox; the sandbox's clock and
 * this machine's agree.
 */
import { describe, expect, it } from 'vitest';
import { serverTime } from '../../src/api/time.js';
import { httpDate } from '../../src/http/http-date.js';
import { bulkUser } from '../helpers/bulk.js';
import { type Reshaped, useReshapingProxy } from '../helpers/reshaping-proxy.js';
import { sandboxNow, useSandboxContext } from '../helpers/sandbox.js';

const svc = useSandboxContext({ users: 4 });
const proxy = useReshapingProxy(svc.sandbox);
const HOUR = 3_600_000;
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';

/** Every GET answered from a cache: the origin's Date two hours old, Age saying so. */
function cachedTwoHours(answer: Reshaped): void {
  if (answer.method !== 'GET') return;
  expect(answer.headers.date).toBeDefined();
  answer.headers.date = new Date(httpDate(answer.headers.date) - 2 * HOUR).toUTCString();
  answer.headers.age = '7200';
}

const viaProxy = (argv: string[], options: { now: number; tty?: boolean; env?: Record<string, string> }) =>
  svc.run(argv, {
    env: { SVC_BASE_URL: proxy().url, ...options.env },
    now: options.now,
    ...(options.tty ? { tty: { stdout: true }, columns: 200 } : {}),
  });

describe('answers a cache held are not the platform’s clock', () => {
  it('roles assign --expires-in 1h behind a cache: one hour from now, no word of a clock off; listed "in 60 minutes"', async () => {
    proxy().set({ reshape: cachedTwoHours });
    const now = await sandboxNow(svc.sandbox());
    const user = bulkUser(1);
    const r = await viaProxy(
      ['roles', 'assign', user, 'tenant_viewer', '--expires-in', '1h', '--justification', 'f4', '--json'],
      { now },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const made = JSON.parse(r.stdout) as { assigned_at: string; expires_at: string };
    // Whole seconds on two clocks (svc's anchor, the platform's assigned_at): 1 h within a minute.
    expect(Math.abs(serverTime(made.expires_at) - serverTime(made.assigned_at) - HOUR)).toBeLessThan(60_000);

    const listed = await viaProxy(['roles', 'assignments', user], { now, tty: true });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^tenant_viewer {2}active {2}in 60 minutes {2}/m);
  });

  it('a cached answer carrying Age: 0 (fresh from the origin) still tells the clock', async () => {
    proxy().set({
      reshape: (answer) => {
        answer.headers.date = new Date(httpDate(answer.headers.date) + 3 * HOUR).toUTCString();
        answer.headers.age = '0';
      },
    });
    const now = await sandboxNow(svc.sandbox());
    const r = await viaProxy(
      ['roles', 'assign', bulkUser(2), 'tenant_viewer', '--expires-in', '1h', '--justification', 'f4'],
      { now },
    );
    // The platform 3 h ahead by its Date: counted from there (the sandbox refuses nothing in the future).
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `^warning: the platform's clock is 3 h ahead of this machine's; --expires-in was counted from the platform's time\n✓ granted tenant_viewer to ${bulkUser(2)} in Acme Treasury \\(acme-treasury\\) until ${TIME} `,
      ),
    );
  });

  it('auth token: a gateway’s own 502 with its clock 3 h ahead is not the platform’s; the live token is printed', async () => {
    const token = svc.sandbox().issueToken('usr_admin', { expiresInSeconds: 3600 }).token;
    proxy().set({
      reshape: (answer) => {
        answer.status = 502;
        answer.headers = {
          'content-type': 'text/html',
          date: new Date(httpDate(answer.headers.date) + 3 * HOUR).toUTCString(),
        };
        answer.body = '<html><body>502 Bad Gateway</body></html>';
      },
    });
    const r = await viaProxy(['auth', 'token'], {
      now: await sandboxNow(svc.sandbox()),
      env: { SVC_TOKEN: token },
    });
    expect(r).toEqual({ code: 0, stdout: `${token}\n`, stderr: '' });
  });
});
