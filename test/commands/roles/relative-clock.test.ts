import { describe, expect, it } from 'vitest';
import { advanceClock, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';

// A terminal's relative times ("in 60 minutes", "2 hours ago") are measured from the platform's
// clock once an answer told it (attack22 F1): the one the grant's expiry and the status beside it
// are judged on. Measured from this machine's clock, 3 h off, a 1 h grant "expired in 4 hours" or
// "expires 2 hours ago" while active. A file of its own: it moves the sandbox's clock.
const svc = useSandboxContext({ users: 6 });
const HOUR = 3_600_000;
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';

const terminal = (now: number) => ({ tty: { stdout: true }, columns: 200, now }) as const;

describe('relative times on a terminal, with the clocks 3 h apart', () => {
  it.each([
    ['the platform ahead', 'usr_bulk_000001', -3 * HOUR, 'ahead of'],
    ['this machine ahead', 'usr_bulk_000002', 3 * HOUR, 'behind'],
  ])(
    '%s: a 1 h grant expires "in 60 minutes", then shows "60 minutes ago" beside expired',
    async (_, user, off, word) => {
      // This machine's clock, injected and still: the platform's time plus `off`.
      const machine = (await sandboxNow(svc.sandbox())) + off;
      const r = await svc.run(
        ['roles', 'assign', user, 'tenant_auditor', '--expires-in', '1h', '--justification', 'f1'],
        terminal(machine),
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(
          `^warning: the platform's clock is 3 h ${word} this machine's; --expires-in was counted from the platform's time\n✓ granted tenant_auditor to ${user} in Acme Treasury \\(acme-treasury\\) until ${TIME} \\(audit trail aud_\\w+\\)\n$`,
        ),
      );
      expect(r.stdout).toMatch(new RegExp(`^assigned +${TIME} \\(now\\)$`, 'm'));
      expect(r.stdout).toMatch(new RegExp(`^expires +${TIME} \\(in 60 minutes\\)$`, 'm'));

      // Two hours later on the platform (this machine's clock as still as before): the grant ended an hour ago.
      await advanceClock(svc.sandbox(), 7200);
      const listed = await svc.run(['roles', 'assignments', user, '--include-ended'], terminal(machine));
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout.split('\n').filter((line) => line.startsWith('tenant_auditor'))).toEqual([
        expect.stringMatching(
          /^tenant_auditor {2}expired {2}60 minutes ago {2}usr_admin {4}2 hours ago {2}aud_\w+ {2}tenant_auditor {2}f1$/,
        ),
      ]);
    },
  );
});
