import { describe, expect, it } from 'vitest';
import { call, requestCount, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';

// svc audit ls --since/--until DURATION counts back from the platform's clock, the one entry
// times are on, as --expires-in counts forward from it (findings s11 C2); a duration too long
// to be a time is refused before anything is sent (L4). A file of its own: it moves the clock.
const svc = useSandboxContext();
const HOUR = 3_600_000;

async function grant(user: string, why: string, now: number, role = 'tenant_compliance') {
  const r = await svc.run(
    ['roles', 'assign', user, role, '--expires-in', '8h', '--justification', why, '--json'],
    { now },
  );
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { audit_trail_id: string }).audit_trail_id;
}

const ids = (stdout: string) => (JSON.parse(stdout) as Array<{ id: string }>).map((e) => e.id);

describe('svc audit ls --since/--until DURATION', () => {
  it("counts from the platform's clock when this machine's is off, and says so once", async () => {
    // This machine 2 h ahead of the platform: a change made just now is in the last 30 minutes.
    const ahead = (await sandboxNow(svc.sandbox())) + 2 * HOUR;
    const recent = await grant('usr_analyst', 'just now', ahead);
    const r = await svc.run(['audit', 'ls', '--since', '30m', '--user', 'usr_analyst', '--json'], {
      now: ahead,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(ids(r.stdout)).toEqual([recent]);
    expect(r.stderr).toBe(
      "warning: the platform's clock is 2 h behind this machine's; --since was counted from the platform's time\n",
    );

    // The platform 1 h ahead of this machine: an entry an hour old (on its clock) is not in the last 5 minutes.
    const old = await grant('usr_lead', 'before the move', Date.now());
    await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 3600 } });
    const fresh = await grant('usr_viewer', 'after the move', Date.now());
    const behind = await svc.run(['audit', 'ls', '--since', '5m', '--action', 'role.assigned', '--json'], {
      now: Date.now(),
    });
    expect(ids(behind.stdout), behind.stderr + behind.stdout).toEqual([fresh]);
    expect(behind.stderr).toBe(
      "warning: the platform's clock is 1 h ahead of this machine's; --since was counted from the platform's time\n",
    );
    const window = await svc.run(
      ['audit', 'ls', '--since', '2h', '--until', '30m', '--action', 'role.assigned', '--json'],
      { now: Date.now() },
    );
    expect(ids(window.stdout)).toEqual([old, recent]);
    expect(window.stderr).toBe(
      "warning: the platform's clock is 1 h ahead of this machine's; --since and --until were counted from the platform's time\n",
    );
  });

  it('says nothing of the clock for times given as instants', async () => {
    const r = await svc.run(['audit', 'ls', '--since', '2000-01-01', '--until', '2000-01-02T00:00:00Z'], {
      now: Date.now() - 5 * HOUR,
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
  });

  it.each([
    ['--since', '99999999d'],
    ['--until', '9999999999m'],
    ['--since', '3153600001s'],
    ['--since', '99999999999999999999999h'],
  ])('%s %s: too far back, refused with the limit before anything is sent', async (flag, value) => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['audit', 'ls', flag, value]);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${flag} "${value}" is too far back; give a duration up to 36500d (100 years), or an ISO 8601 time\n`,
    });
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it('takes the longest duration it allows', async () => {
    const now = await sandboxNow(svc.sandbox());
    const r = await svc.run(['audit', 'ls', '--since', '36500d', '--until', '36499d'], { now });
    expect([r.code, r.stderr]).toEqual([0, '']);
  });
});
