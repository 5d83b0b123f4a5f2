import { describe, expect, it } from 'vitest';
import { call, useGrantRules } from '../helpers/sandbox.js';

// Exploratory test s15 (attack F5, F6): a role manager renamed a superuser role onto a read-only
// role's name (the admin's next grant by name handed it out), and widened a role they held with a
// permission held through another grant, so revoking that grant left them holding it.
const { sandbox, TREASURY, key, user, admin, as, inHours, grant, customRole, refusal } =
  useGrantRules('role-change-rules');

const patchRole = (roleId: string, body: Record<string, unknown>, caller = admin()) =>
  call(sandbox(), 'PATCH', `/v1/roles/${roleId}`, { ...caller, body });
const roleOf = async (roleId: string) => (await call(sandbox(), 'GET', `/v1/roles/${roleId}`, admin())).body;
const MGR = ['role.read', 'role.manage', 'role.assign', 'exception.read'];

describe('a role manager changes nothing of a role carrying permissions they do not hold', () => {
  it('refuses renaming or re-describing it; a role within what they hold still changes', async () => {
    const mgr = await customRole('rc-rolemgr', MGR);
    await grant(user(1), mgr.id);
    const readers = await customRole('rc-finance-readers', ['account.read', 'reconciliation.read']);
    const superusers = await customRole('rc-finance-superusers', [
      'account.write',
      'role.manage',
      'role.read',
    ]);
    const lead = as(user(1));
    const CHANGE = 'you can only change a role whose permissions you all hold yourself; you lack';

    expect(refusal(await patchRole(readers.id, { name: 'rc-finance-readers-old' }, lead))).toEqual([
      403,
      'insufficient_permission',
      `${CHANGE} account.read, reconciliation.read`,
    ]);
    expect(refusal(await patchRole(superusers.id, { description: 'read-only finance' }, lead))).toEqual([
      403,
      'insufficient_permission',
      `${CHANGE} account.write`,
    ]);
    // Taking out a permission they hold, of a role carrying one they do not: the same rule.
    expect(refusal(await patchRole(superusers.id, { remove_permissions: ['role.read'] }, lead))).toEqual([
      403,
      'insufficient_permission',
      `${CHANGE} account.write`,
    ]);
    expect(await roleOf(superusers.id)).toMatchObject({
      name: 'rc-finance-superusers',
      permissions: ['account.write', 'role.manage', 'role.read'],
    });
    expect((await roleOf(readers.id)).name).toBe('rc-finance-readers');

    // Within what they hold: renamed, narrowed; a change that changes nothing is no change.
    const notes = await customRole('rc-notes', ['exception.read', 'role.read']);
    const renamed = await patchRole(
      notes.id,
      { name: 'rc-notes-2', remove_permissions: ['role.read'] },
      lead,
    );
    expect([renamed.status, renamed.body.name, renamed.body.permissions]).toEqual([
      200,
      'rc-notes-2',
      ['exception.read'],
    ]);
    const same = await patchRole(readers.id, { name: 'rc-finance-readers' }, lead);
    expect(same.status, same.text).toBe(200);
  });
});

describe('nobody puts permissions into a role they hold', () => {
  const SELF = 'you cannot put permissions into a role you hold; ask another administrator';

  it('refuses widening a role the caller holds, permanently or just in time, by add or replace', async () => {
    const mgr = await customRole('rc-self-mgr', MGR);
    const audit = await customRole('rc-audit-access', ['audit_trail.read']);
    const jitRole = await customRole('rc-jit-notes', ['exception.read']);
    await grant(user(2), mgr.id);
    await grant(user(2), audit.id);
    await grant(user(2), jitRole.id, inHours(1));
    const lead = as(user(2));

    expect(refusal(await patchRole(mgr.id, { add_permissions: ['audit_trail.read'] }, lead))).toEqual([
      403,
      'self_assignment',
      SELF,
    ]);
    expect(refusal(await patchRole(mgr.id, { permissions: [...MGR, 'audit_trail.read'] }, lead))).toEqual([
      403,
      'self_assignment',
      SELF,
    ]);
    expect(refusal(await patchRole(jitRole.id, { add_permissions: ['role.read'] }, lead))).toEqual([
      403,
      'self_assignment',
      SELF,
    ]);
    expect((await roleOf(mgr.id)).permissions).toEqual([...MGR].sort());
    expect((await roleOf(jitRole.id)).permissions).toEqual(['exception.read']);

    // Narrowing a role they hold, and renaming it, stay theirs to do; so does widening one they do
    // not hold, and adding what it already carries (a replay of an allowed change) changes nothing.
    const narrowed = await patchRole(jitRole.id, { name: 'rc-jit-notes-2' }, lead);
    expect(narrowed.status, narrowed.text).toBe(200);
    const other = await customRole('rc-other', ['exception.read']);
    const widened = await patchRole(other.id, { add_permissions: ['audit_trail.read'] }, lead);
    expect([widened.status, widened.body.permissions]).toEqual([200, ['audit_trail.read', 'exception.read']]);
    const replay = await patchRole(other.id, { add_permissions: ['audit_trail.read'] }, lead);
    expect(replay.status, replay.text).toBe(200);
    const afterRevoke = await call(sandbox(), 'DELETE', `/v1/users/${user(2)}/roles/${audit.id}`, admin());
    expect(afterRevoke.status, afterRevoke.text).toBe(200);
    const me = await call(sandbox(), 'GET', '/v1/me', lead);
    expect(me.body.permissions).not.toContain('audit_trail.read');
  });

  it('refuses it through an API key the holder issued (a key is seen through to its issuer)', async () => {
    const own = await customRole('rc-key-own', ['exception.read']);
    await grant(user(3), 'tenant_admin');
    await grant(user(3), own.id);
    const issued = await call(sandbox(), 'POST', `/v1/tenants/${TREASURY}/api-keys`, {
      ...as(user(3)),
      body: {
        kind: 'service_role',
        name: 'rc',
        justification: 'nightly ledger sync',
        idempotency_key: key(),
      },
    });
    expect(issued.status, issued.text).toBe(201);
    const byKey = { token: issued.body.key as string, tenant: TREASURY };
    expect(refusal(await patchRole(own.id, { add_permissions: ['account.read'] }, byKey))).toEqual([
      403,
      'self_assignment',
      `this API key was issued by ${user(3)}, and nobody puts permissions into a role they hold; ask another administrator`,
    ]);
    expect((await roleOf(own.id)).permissions).toEqual(['exception.read']);
  });
});
