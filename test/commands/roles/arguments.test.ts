import { describe, expect, it } from 'vitest';
import { requestCount, useSandboxContext } from '../../helpers/sandbox.js';

// What a newcomer gets wrong on the command line of `roles assign` and `roles revoke`: USER and
// ROLE swapped, or one value left out.
const svc = useSandboxContext();

describe('svc roles assign/revoke: USER and ROLE swapped', () => {
  it.each([
    [
      ['roles', 'assign', 'tenant_admin', 'usr_analyst', '--expires-in', '8h', '--justification', 'x'],
      'error: arguments are USER ROLE: did you mean `svc roles assign usr_analyst tenant_admin --expires-in 8h --justification x`?\n',
    ],
    [
      ['roles', 'revoke', 'tenant_viewer', 'usr_lead', '--yes'],
      'error: arguments are USER ROLE: did you mean `svc roles revoke usr_lead tenant_viewer --yes`?\n',
    ],
    [
      ['roles', 'revoke', 'role_0123456789abcdef01234567', 'usr_lead', '--yes'],
      'error: arguments are USER ROLE: did you mean `svc roles revoke usr_lead role_0123456789abcdef01234567 --yes`?\n',
    ],
  ])('%j: exit 2, nothing sent', async (argv, stderr) => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(argv);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', stderr]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it('a first argument that is not a known role is left to the platform (a user named like a role is not guessed at)', async () => {
    const r = await svc.run(['roles', 'revoke', 'usr_lead', 'usr_analyst', '--yes']);
    expect(r.stderr).not.toContain('arguments are USER ROLE');
  });
});

describe('svc roles assign/revoke: one value missing', () => {
  it.each([
    [
      ['roles', 'assign', 'usr_analyst', 'tenant_admin', '--expires-in', '8h'],
      'error: missing --justification; pass it on the command line (see `svc roles assign --help`), or run in a terminal to be asked\n',
    ],
    [
      ['roles', 'assign', 'usr_analyst', 'tenant_admin'],
      'error: missing --expires-in or --expires-at, --justification; pass them on the command line (see `svc roles assign --help`), or run in a terminal to be asked\n',
    ],
    [
      ['roles', 'revoke', 'usr_analyst', '--yes'],
      'error: missing ROLE; pass it on the command line, or run in a terminal to be asked\n',
    ],
    [
      ['roles', 'revoke', '--yes'],
      'error: missing USER and ROLE; pass them on the command line, or run in a terminal to be asked\n',
    ],
  ])('%j', async (argv, stderr) => {
    const r = await svc.run(argv);
    expect([r.code, r.stderr]).toEqual([2, stderr]);
  });
});
