import { describe, expect, it } from 'vitest';
import { advanceClock, call, near, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';

// The platform's clock is the one grants expire on. The sandbox sends its own (simulated) clock in
// the Date header; when it differs from this machine's by more than a minute, svc counts
// --expires-in from the platform's time and says so in one stderr line.
const svc = useSandboxContext({ users: 6 });
const MINUTE = 60_000;

const advance = (seconds: number) => advanceClock(svc.sandbox(), seconds);

const assign = (user: string, extra: string[] = []) => [
  'roles',
  'assign',
  user,
  'tenant_viewer',
  '--expires-in',
  '30m',
  '--justification',
  'skew',
  '--json',
  ...extra,
];

describe('the platform clock', () => {
  it('the sandbox sends its simulated clock in the Date header', async () => {
    await advance(1680);
    const r = await call(svc.sandbox(), 'GET', '/v1/me', { token: svc.sandbox().adminToken });
    const date = Date.parse(r.headers.get('date') ?? '');
    expect(Math.abs(date - (Date.now() + 1680_000))).toBeLessThan(3000);
  });

  it('--expires-in counts from the platform time when it is ahead, and says so', async () => {
    // The clock is 28 minutes ahead (previous test) and moves one hour more: a 30 m grant counted
    // from this machine's clock would be in the platform's past.
    await advance(3600);
    const r = await svc.run(assign('usr_bulk_000001'), { now: Date.now() });
    expect(r.code, r.stderr).toBe(0);
    const platformNow = await sandboxNow(svc.sandbox());
    const expires = Date.parse(JSON.parse(r.stdout).expires_at);
    expect(Math.abs(expires - (platformNow + 30 * MINUTE))).toBeLessThan(5000);
    expect(r.stderr).toBe(
      "warning: the platform's clock is 1 h 28 min ahead of this machine's; --expires-in was counted from the platform's time\n",
    );
  });

  it('and when it is behind (this machine runs fast)', async () => {
    const localAhead = Date.now() + 138 * MINUTE;
    const r = await svc.run(assign('usr_bulk_000002'), { now: localAhead });
    expect(r.code, r.stderr).toBe(0);
    expect(near(JSON.parse(r.stdout).expires_at, (await sandboxNow(svc.sandbox())) + 30 * MINUTE)).toBe(true);
    expect(r.stderr).toBe(
      "warning: the platform's clock is 50 min behind this machine's; --expires-in was counted from the platform's time\n",
    );
  });

  it('says nothing and counts from this machine within a minute', async () => {
    const platformNow = await sandboxNow(svc.sandbox());
    const r = await svc.run(assign('usr_bulk_000003'), { now: platformNow + 20_000 });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(Date.parse(JSON.parse(r.stdout).expires_at)).toBe(platformNow + 20_000 + 30 * MINUTE);
  });
});
