/**
 * attack29b (cosmetic): after a user lost their last role in the run's tenant, `svc me` printed
 * `tenant 8ab…` and an empty `tenants`, exit 0, with nothing saying that the tenant is no longer
 * theirs. It still answers (who you are is not refused), and says on stderr what that means and
 * the fix.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { ACME, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const LEDGER = tenantId('acme-ledger-uk');

async function revoke(user: string, role: string) {
  const r = await svc.run(['roles', 'revoke', user, role, '--yes']);
  expect(r.code, r.stderr).toBe(0);
}

describe('svc me of a user without a role in the tenant', () => {
  it('their last role anywhere revoked: the tenant, no tenants, and a note saying what it means', async () => {
    const token = svc.sandbox().issueToken('usr_lead').token;
    await revoke('usr_lead', 'tenant_lead');
    const r = await svc.run(['me'], { env: { SVC_TOKEN: token } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`tenant\t${ACME}\ntenants\t\n`);
    expect(r.stderr).toBe(
      `warning: you hold no live role in tenant "${ACME}" (from SVC_TENANT), so it is not among your tenants (yours: none): the platform refuses there whatever needs a role (exit 4); ask an administrator of that tenant for a role\n`,
    );
    // No tenant named: none of the credential's is one where they hold a role.
    const none = await svc.run(['me', '--json'], { env: { SVC_TOKEN: token, SVC_TENANT: undefined } });
    expect([none.code, JSON.parse(none.stdout).tenant_id]).toEqual([0, null]);
    expect(none.stderr).toBe(
      'warning: you hold no live role in any tenant (tenants: none): the platform refuses every call that needs one (exit 4) until an administrator of a tenant grants you a role\n',
    );
  });

  it('a role left in another tenant: names it, and how to act there', async () => {
    const token = svc.sandbox().issueToken('usr_viewer').token;
    await revoke('usr_viewer', 'tenant_viewer');
    const r = await svc.run(['me'], { env: { SVC_TOKEN: token } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `warning: you hold no live role in tenant "${ACME}" (from SVC_TENANT), so it is not among your tenants (yours: acme-ledger-uk): the platform refuses there whatever needs a role (exit 4); ask an administrator of that tenant for a role, or act in one of yours: set SVC_TENANT to one of yours, or unset it\n`,
    );
    const flag = await svc.run(['--tenant', ACME, 'me'], {
      env: { SVC_TOKEN: token, SVC_TENANT: undefined },
    });
    expect(flag.stderr).toBe(
      `warning: you hold no live role in tenant "${ACME}" (given by --tenant), so it is not among your tenants (yours: acme-ledger-uk): the platform refuses there whatever needs a role (exit 4); ask an administrator of that tenant for a role, or act in one of yours: pass --tenant acme-ledger-uk\n`,
    );
    // In the tenant they hold a role in: no note.
    const there = await svc.run(['me'], { env: { SVC_TOKEN: token, SVC_TENANT: LEDGER } });
    expect([there.code, there.stderr]).toEqual([0, '']);
  });
});

describe('svc me against a server whose /v1/me lists no tenants at all', () => {
  // The reference does not show /v1/me's body: an answer without `tenants` says nothing of the
  // caller's roles, so svc claims nothing of them (the note above needs a list to stand on).
  it('prints who answered and no note', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'usr_other', type: 'user', tenant_id: null }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await svc.run(['me', '--json'], { env: { SVC_BASE_URL: url, SVC_TENANT: undefined } });
      expect([r.code, r.stderr, JSON.parse(r.stdout).id]).toEqual([0, '', 'usr_other']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
