import { describe, expect, it } from 'vitest';
import { writes } from '../../helpers/ascode.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// Every error says what to do: an unknown user points at how to find users; an --expires-at in
// the past at what to give instead.
const svc = useSandboxContext({ users: 3 });
const now = Date.now();

describe('errors with their fix half', () => {
  it.each([
    ['assign', ['roles', 'assign', 'nobody', 'tenant_viewer', '--expires-in', '1h', '--justification', 'x']],
    ['revoke', ['roles', 'revoke', 'nobody', 'tenant_viewer', '--yes']],
  ])('roles %s to an unknown user says how to find users (exit 5)', async (_verb, argv) => {
    const r = await svc.run(argv, { now });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: user nobody not found \(HTTP 404, not_found, request req_\w+\); see `svc users ls` for the users of the tenant \(`svc users ls --id ID` checks an id\)\n$/,
    );
  });

  it('an unknown role id still reads as a role, not a user', async () => {
    const r = await svc.run(
      [
        'roles',
        'assign',
        'usr_bulk_000001',
        'role_0123456789abcdef01234567',
        '--expires-in',
        '1h',
        '--justification',
        'x',
      ],
      { now },
    );
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      /^error: role role_0123456789abcdef01234567 not found \(HTTP 404, not_found, request req_\w+\); see `svc roles ls` for the roles of the tenant\n$/,
    );
  });

  // Judged at the platform's time (test/commands/roles/clock-expires-at.test.ts): after one read
  // that tells its clock, before any change.
  it('--expires-at in the past says to give a later time or --expires-in, before any change', async () => {
    const before = await writes(svc.sandbox());
    const r = await svc.run(
      [
        'roles',
        'assign',
        'usr_bulk_000001',
        'tenant_viewer',
        '--expires-at',
        '2020-01-01T00:00:00Z',
        '--justification',
        'x',
      ],
      { now },
    );
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: --expires-at 2020-01-01T00:00:00Z is in the past; give a later time, or --expires-in DURATION (e.g. 8h)\n',
    ]);
    expect(await writes(svc.sandbox())).toBe(before);
  });
});
