// A grant answered with an expires_at that is not a time: granted, its end unknown — never
// "✓ granted … until <text>" (attack27a F3); one rule with a revocation's revoked_at.
import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole } from '../../helpers/bulk.js';
import { useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 6 });
const svc = bulkRunner(sandbox);
const proxy = useReshapingProxy(sandbox);
let n = 0;

async function answered(expires: unknown, argv: string[]) {
  proxy().reshape((a) => {
    if (a.method === 'POST' && /\/roles$/.test(a.path.split('?')[0]!) && a.status < 300)
      (a.body as Record<string, unknown>).expires_at = expires;
  });
  try {
    return await svc.run(argv, { env: { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' } });
  } finally {
    proxy().reshape(undefined);
  }
}

describe('a grant answered with an expires_at that is not a time', () => {
  it.each([['usr_bulk_000029'], ['pending'], ['']])(
    'roles assign, answered %j: exit 1, no ✓, nothing on stdout',
    async (text) => {
      const role = `an-${++n}`;
      await customRole(sandbox(), role);
      const user = bulkUser(n);
      const result = await answered(text, [
        'roles',
        'assign',
        user,
        role,
        '--expires-at',
        '2030-01-01T00:00:00Z',
        '--justification',
        't',
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `error: the platform granted ${role} to ${user}, but its answer's expires_at is not a time (${JSON.stringify(text)}): how long the grant lasts is unknown (svc sent an expiry at 2030-01-01T00:00:00Z); see it with: svc roles assignments ${user}\n`,
      );
    },
  );

  it('--expires-in never, answered a role name as expires_at: --json says no expires_at, exit 1', async () => {
    const role = `an-${++n}`;
    await customRole(sandbox(), role);
    const result = await answered('tenant_viewer', [
      'roles',
      'assign',
      bulkUser(n),
      role,
      '--expires-in',
      'never',
      '--justification',
      't',
      '--json',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain('"expires_at": "tenant_viewer"');
    expect(result.stderr).toContain('(svc sent no expiry)');
  });

  it("a grant file: the row's outcome is unknown, exit 7, never ok", async () => {
    const role = `an-${++n}`;
    await customRole(sandbox(), role);
    const path = svc.file('g.csv', `user,role,expires_in,justification\n${bulkUser(n)},${role},8h,t\n`);
    const result = await answered('pending', ['roles', 'assign', '--file', path, '--ndjson']);
    expect(result.code).toBe(7);
    const row = JSON.parse(result.stdout.trim().split('\n')[0]!);
    // The contract's statuses: an unknown outcome is shown failed with "outcome": "unknown".
    expect([row.status, row.outcome]).toEqual(['failed', 'unknown']);
    expect(row.error.message).toContain(`its answer's expires_at is not a time ("pending")`);
  });

  it('a time in another form is a time: granted, ✓', async () => {
    const role = `an-${++n}`;
    await customRole(sandbox(), role);
    const result = await answered('2030-01-01T00:00:00.000+00:00', [
      'roles',
      'assign',
      bulkUser(n),
      role,
      '--expires-at',
      '2030-01-01T00:00:00Z',
      '--justification',
      't',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('✓ granted');
  });
});
