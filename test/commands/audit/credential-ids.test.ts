import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';

// everyday13 F2: an API key or a token pasted where audit ls / users ls take an id is refused
// (exit 2) before it is put into a query string, as every id argument refuses it in a path.
// F7.1: the refusal names the id it wanted in words ("an audit entry id"), not "a ID id".
const svc = useSandboxContext();
const KEY = 'svc_sk_KJKGzz8nPU74tbVhvWdssjsIqP-sv3od';
const SENT = 'svc did not send the secret (in a URL it would stay in proxy and server logs)';

describe('a credential given as an id in a query', () => {
  it.each([
    ['--actor', 'a user id or an API key id'],
    ['--target', 'an object id'],
    ['--user', 'a user id (usr_…)'],
  ])('audit ls %s refuses the API key itself', async (flag, what) => {
    const r = await svc.run(['audit', 'ls', flag, KEY]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: that is the API key itself, not ${what} for ${flag}; give the id instead; ${SENT}\n`,
    );
  });

  it('audit ls --user and users ls --id refuse a token', async () => {
    const token = svc.sandbox().adminToken;
    const audit = await svc.run(['audit', 'ls', '--user', token]);
    expect([audit.code, audit.stderr]).toEqual([
      2,
      `error: that is an access token, not a user id (usr_…) for --user; give the id instead; ${SENT}\n`,
    ]);
    const users = await svc.run(['users', 'ls', '--id', 'usr_admin', '--id', KEY]);
    expect([users.code, users.stdout, users.stderr]).toEqual([
      2,
      '',
      `error: that is the API key itself, not a user id (usr_…) for --id; give the id instead; ${SENT}\n`,
    ]);
  });

  it('audit get names the id it wanted (F7.1)', async () => {
    const r = await svc.run(['audit', 'get', KEY]);
    expect([r.code, r.stderr]).toEqual([
      2,
      `error: that is the API key itself, not an audit entry id (aud_…); give the audit entry's id instead; ${SENT}\n`,
    ]);
    const role = await svc.run(['roles', 'get', KEY]);
    expect(role.stderr).toBe(
      `error: that is the API key itself, not a role id or name; give the role's id instead; ${SENT}\n`,
    );
  });
});

// everyday13 F7.6: `audit get` of a revocation made by deleting a role left out its reason.
describe('svc audit get', () => {
  it('shows why a grant ended when no revocation request ended it', async () => {
    for (const argv of [
      ['roles', 'create', '--name', 'ops', '--permission', 'exception.read'],
      ['roles', 'assign', 'usr_viewer', 'ops', '--expires-in', '2h', '--justification', 'ops one'],
      ['roles', 'delete', 'ops', '--yes'],
    ]) {
      const r = await svc.run(argv);
      expect(r.code, r.stderr).toBe(0);
    }
    const ls = await svc.run(['audit', 'ls', '--action', 'role.revoked', '--limit', '1']);
    const id = ls.stdout.split('\t')[0]!;
    const one = await svc.run(['audit', 'get', id]);
    expect(one.stdout).toMatch(/^reason\trole_deleted$/m);
  });
});

// everyday13 F8: --role NAME of a renamed role: exit 5 with advice about deleted roles, then (the
// name re-used) only the new role's entries, with no word of the grants made under that name.
describe('svc audit ls --role NAME after a rename', () => {
  it('covers the role that had the name, and warns of the one that has it now', async () => {
    for (const argv of [
      ['roles', 'create', '--name', 'recon-team', '--permission', 'exception.read'],
      [
        'roles',
        'assign',
        'usr_viewer',
        'recon-team',
        '--expires-in',
        '2h',
        '--justification',
        'recon team member',
      ],
      ['roles', 'update', 'recon-team', '--name', 'recon-ops'],
    ]) {
      const r = await svc.run(argv);
      expect(r.code, r.stderr).toBe(0);
    }
    const renamed = await svc.run(['audit', 'ls', '--role', 'recon-team', '--json']);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout).map((e: { action: string }) => e.action)).toContain('role.assigned');
    expect(
      (await svc.run(['roles', 'create', '--name', 'recon-team', '--permission', 'exception.read'])).code,
    ).toBe(0);
    const reused = await svc.run(['audit', 'ls', '--role', 'recon-team', '--json']);
    expect(reused.code).toBe(0);
    expect(reused.stderr).toMatch(
      /^warning: --role recon-team covers role_\S+ \(live\); recon-team was also the name of role_\S+ \(live\)/,
    );
  });
});
