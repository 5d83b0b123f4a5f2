import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { call, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';

// svc export's header time is on the platform's clock, the one every expires_at in the file is
// on (findings s11 L5), and says so when this machine's clock is off. A file of its own: it moves
// the sandbox's clock.
const svc = useSandboxContext();

describe("svc export's time", () => {
  it("is the platform's, named as such, when this machine's clock is off", async () => {
    await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 7200 } });
    const machine = Date.now();
    const r = await svc.run(['export', '--only', 'roles,grants'], { now: machine });
    expect(r.code, r.stderr).toBe(0);
    const header = r.stdout.split('\n')[0]!;
    const platform = await sandboxNow(svc.sandbox());
    const shown =
      /^# svc export of Acme Treasury \(acme-treasury\) at (\S+) on the platform's clock \(2 h ahead of this machine's\)$/.exec(
        header,
      );
    expect(shown, header).not.toBeNull();
    const at = Date.parse(shown![1]!);
    expect(at).toBeGreaterThan(platform - 10_000);
    expect(at).toBeLessThanOrEqual(platform);
  });

  it('is plain when the clocks agree', async () => {
    const now = await sandboxNow(svc.sandbox());
    const r = await svc.run(['export', '--only', 'roles'], { now });
    expect(r.stdout.split('\n')[0]).toBe(
      `# svc export of Acme Treasury (acme-treasury) at ${isoSeconds(now)}`,
    );
  });
});
