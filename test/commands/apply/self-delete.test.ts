import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADMINISTERING } from '../../../src/ascode/lockout.js';
import { tenantId } from '../../../src/sandbox/seed.js';
import type { Sandbox } from '../../../src/sandbox/server.js';
import { as, user, writeFile, writes } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// "svc apply never takes away your own administration", its role-deletion half (src/ascode/lockout.ts
// refuseLockout; audit13 F8): `apply --prune` deleting the caller's only administering role is
// planned `refused` and refused whole (exit 2), and a saved plan whose deletion became such a
// lockout after it was computed is refused at apply time (exit 6); nothing is sent either way.
const svc = useSandboxContext({ users: 20 }, { tenant: false });
const dir = useTempDir('svc-apply-self-delete-');
const real = { clock: { now: () => Date.now() } };
const ADMIN = 'usr_admin';
const LOST = 'role.read, role.manage, role.assign, webhook.read, webhook.manage, oauth_client.manage';

/**
 * In `slug`, a custom role with every administering permission granted to the admin by another
 * administrator (user `helper`), and a way to revoke the admin's tenant_admin, after which that
 * role is the admin's only administration of the tenant.
 */
async function secondPath(sandbox: Sandbox, slug: string, helper: number) {
  const tenant = tenantId(slug);
  const role = await as(sandbox, tenant, 'POST', '/v1/roles', {
    name: `superadmin-${slug}`,
    permissions: [...ADMINISTERING],
  });
  await as(sandbox, tenant, 'POST', `/v1/users/${user(helper)}/roles`, {
    role_id: 'tenant_admin',
    justification: 'helper',
  });
  const other = sandbox.issueToken(user(helper), { expiresInSeconds: 600 }).token;
  const byOther = (method: string, path: string, body?: Record<string, unknown>) =>
    call(sandbox, method, path, { token: other, tenant, ...(body ? { body } : {}) });
  const granted = await byOther('POST', `/v1/users/${ADMIN}/roles`, {
    role_id: role.id,
    justification: 'second path',
    idempotency_key: `self-delete-${slug}`,
  });
  expect(granted.status, granted.text).toBeLessThan(300);
  const revokeTenantAdmin = async () =>
    expect((await byOther('DELETE', `/v1/users/${ADMIN}/roles/tenant_admin`)).status).toBeLessThan(300);
  const adminReadsRoles = async () =>
    (await call(sandbox, 'GET', '/v1/roles', { token: sandbox.adminToken, tenant })).status;
  const file = writeFile(
    dir,
    `${slug}.yaml`,
    `version: 1\nmanage: {roles: all}\nblocks:\n  - tenants: ${slug}\n`,
  );
  return { role, revokeTenantAdmin, adminReadsRoles, file };
}

const refusal = (slug: string, role: { id: string }) =>
  `role superadmin-${slug} (${role.id}): it would take away your own administration of ${slug} (${LOST}); keep it in the file, or have another administrator make this change`;

describe('svc apply --prune and a role the caller administers through', () => {
  it('plans deleting your only administering role as refused; apply --prune refuses it (exit 2, nothing sent)', async () => {
    const sandbox = svc.sandbox();
    const slug = 'acme-ledger-uk';
    const { role, revokeTenantAdmin, adminReadsRoles, file } = await secondPath(sandbox, slug, 6);
    await revokeTenantAdmin();

    const planned = await svc.run(['plan', '-f', file, '--ndjson'], real);
    expect(planned.code, planned.stderr).toBe(10);
    const deletion = ndjson(planned.stdout).find((c) => c.name === `superadmin-${slug}`);
    expect(deletion).toMatchObject({ kind: 'role', action: 'delete' });
    expect(deletion?.refused).toBe(
      `it would take away your own administration of ${slug} (${LOST}); keep it in the file, or have another administrator make this change`,
    );

    const before = await writes(sandbox);
    const applied = await svc.run(['apply', '-f', file, '--prune', '--yes'], real);
    expect(applied).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: svc apply refuses ${slug}: ${refusal(slug, role)}; nothing was applied\n`,
    });
    expect(await writes(sandbox)).toBe(before);
    expect(await adminReadsRoles()).toBe(200);
  });

  it('refuses a saved plan whose deletion became a lockout since it was computed (exit 6, nothing sent)', async () => {
    const sandbox = svc.sandbox();
    const slug = 'acme-apac';
    const { role, revokeTenantAdmin, adminReadsRoles, file } = await secondPath(sandbox, slug, 7);
    const saved = join(dir, `${slug}.plan.json`);
    const planned = await svc.run(['plan', '-f', file, '--out', saved, '--ndjson'], real);
    expect(planned.code, planned.stderr).toBe(10);
    // Harmless when planned: tenant_admin still administers the tenant.
    const deletion = ndjson(planned.stdout).find((c) => c.name === `superadmin-${slug}`);
    expect([deletion?.action, deletion?.refused]).toEqual(['delete', undefined]);

    await revokeTenantAdmin();
    const before = await writes(sandbox);
    const applied = await svc.run(['apply', saved, '--prune', '--yes'], real);
    expect(applied).toEqual({
      code: 6,
      stdout: '',
      stderr:
        `${slug}: ${refusal(slug, role)}\n` +
        `error: your own grants changed since ${saved} was computed, and 1 of its changes (each on a line above) would now change your own grants, take away your own administration, leave a tenant without an administrator, stop the API key you are applying with, hand out more than you hold, need a permission held without an end date that you hold only until a date (a webhook, an OAuth client), or create or change an OAuth client with an API key or a third-party client's token (only a user with their own login may); nothing was applied; run \`svc plan -f ${file} --out ${saved}\` again and review the new plan\n`,
    });
    expect(await writes(sandbox)).toBe(before);
    expect(await adminReadsRoles()).toBe(200);
  });
});
