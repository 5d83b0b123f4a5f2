import { describe, expect, it } from 'vitest';
import { ACME, bulkRunner, bulkUser } from '../../helpers/bulk.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

// Review s15 (words fixer's note): `roles assign USER ROLE --extend` reads the user's grants after
// moving the expiry, to warn that API keys may stop. A Ctrl-C during that read came after the
// change was made: the command must still say the change (and that keys may stop), never only
// "interrupted" as if nothing had happened.
const sandbox = useSandbox({ users: 4 });
const svc = bulkRunner(sandbox);
let cut: AbortController | undefined;
let moved = false;
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: async (method, path) => {
    if (method === 'PATCH' && path.includes('/roles/')) moved = true;
    else if (moved && method === 'GET' && path.includes('/roles') && cut) {
      cut.abort();
      cut = undefined;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  },
});

describe('roles assign --extend, Ctrl-C after the expiry moved', () => {
  it('says the grant it moved and that keys may stop; the platform holds the new expiry', async () => {
    const user = bulkUser(1);
    const base = ['roles', 'assign', user, 'tenant_viewer', '--justification', 'setup'];
    expect((await svc.run([...base, '--expires-in', 'never'])).code).toBe(0);
    cut = new AbortController();
    const r = await svc.run([...base, '--expires-in', '2h', '--extend'], {
      signal: cut.signal,
      env: { SVC_BASE_URL: proxy().url },
    });
    const held = await call(sandbox(), 'GET', `/v1/users/${user}/roles`, {
      token: sandbox().adminToken,
      tenant: ACME,
    });
    const grant = held.body.items.find((a: { role_id: string }) => a.role_id === 'tenant_viewer');
    expect(grant.expires_at).not.toBeNull();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`expires\t${grant.expires_at}\n`);
    expect(r.stderr.split('\n').map((line) => line.slice(0, 40))).toEqual([
      'warning: this makes a permanent grant en',
      `warning: this may stop API keys: API key`,
      `✓ ${user} holds tenant_viewer in Acme Treasury (acme-treasury) until ${grant.expires_at}`.slice(0, 40),
      '',
    ]);
    expect(r.stderr).toContain(
      `✓ ${user} holds tenant_viewer in Acme Treasury (acme-treasury) until ${grant.expires_at} now (was permanently; audit trail aud_`,
    );
  });
});
