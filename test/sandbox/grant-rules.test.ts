import { describe, expect, it } from 'vitest';
import { call, useGrantRules } from '../helpers/sandbox.js';

// Holes found by an independent tester after issue 10: a just-in-time grant made permanent by its
// holder, roles narrowed or deleted by someone who does not hold what they take away, and a
// service-role key handing out tenant_admin (whose holders mint keys). One block each.
const { sandbox, TREASURY, key, user, admin, as, inHours, grant, customRole, refusal } =
  useGrantRules('grant-rules');

const post = (userId: string, body: Record<string, unknown>, caller = admin()) =>
  call(sandbox(), 'POST', `/v1/users/${userId}/roles`, {
    ...caller,
    body: { justification: 'grant rules', idempotency_key: key(), ...body },
  });
const patch = (userId: string, roleId: string, expiresAt: string | null, caller = admin()) =>
  call(sandbox(), 'PATCH', `/v1/users/${userId}/roles/${roleId}`, {
    ...caller,
    body: { expires_at: expiresAt, justification: 'grant rules' },
  });
const assignmentOf = async (userId: string, roleId: string) =>
  (await call(sandbox(), 'GET', `/v1/users/${userId}/roles`, admin())).body.items.find(
    (a: { role_id: string }) => a.role_id === roleId,
  );

describe('nobody grants or extends their own roles', () => {
  const SELF_GRANT = 'you cannot grant roles to yourself; ask another administrator';
  const SELF_EXTEND = 'you cannot change the expiry of your own roles; ask another administrator';

  it('a just-in-time role.assign holder cannot make its grant permanent, self-grant or re-grant it longer', async () => {
    const jit = await customRole('jit-grantors', [
      'role.assign',
      'role.read',
      'account.read',
      'reconciliation.read',
      'exception.read',
    ]);
    const expiry = inHours(1);
    await grant(user(1), jit.id, expiry);
    const holder = as(user(1));

    expect(refusal(await patch(user(1), jit.id, null, holder))).toEqual([
      403,
      'self_assignment',
      SELF_EXTEND,
    ]);
    expect(refusal(await patch(user(1), jit.id, inHours(2), holder))).toEqual([
      403,
      'self_assignment',
      SELF_EXTEND,
    ]);
    expect((await assignmentOf(user(1), jit.id)).expires_at).toBe(expiry);
    expect(refusal(await post(user(1), { role_id: 'tenant_viewer' }, holder))).toEqual([
      403,
      'self_assignment',
      SELF_GRANT,
    ]);

    // Handing the role (or its permissions) out: never for longer than the holder keeps them.
    const outlives = `you cannot hand out access that outlives your own: you hold the permissions of jit-grantors only until ${expiry}; set expires_at to ${expiry} or earlier`;
    expect(refusal(await post(user(2), { role_id: jit.id }, holder))).toEqual([
      403,
      'insufficient_permission',
      outlives,
    ]);
    expect(refusal(await post(user(2), { role_id: jit.id, expires_at: inHours(3) }, holder))).toEqual([
      403,
      'insufficient_permission',
      outlives,
    ]);
    const viewerOutlives = outlives.replace('jit-grantors', 'tenant_viewer');
    expect(refusal(await post(user(2), { role_id: 'tenant_viewer' }, holder))).toEqual([
      403,
      'insufficient_permission',
      viewerOutlives,
    ]);
    const within = await post(user(2), { role_id: jit.id, expires_at: inHours(0.5) }, holder);
    expect(within.status, within.text).toBe(201);
    expect(refusal(await patch(user(2), jit.id, null, holder))).toEqual([
      403,
      'insufficient_permission',
      outlives,
    ]);
    const sooner = await patch(user(2), jit.id, inHours(0.25), holder);
    expect(sooner.status, sooner.text).toBe(200);
    // Shortening a longer grant someone else made is not handing anything out.
    await grant(user(3), 'tenant_viewer');
    const shortened = await patch(user(3), 'tenant_viewer', inHours(2), holder);
    expect(shortened.status, shortened.text).toBe(200);

    // Giving access up stays allowed.
    const revoked = await call(sandbox(), 'DELETE', `/v1/users/${user(1)}/roles/${jit.id}`, holder);
    expect([revoked.status, revoked.body.status]).toEqual([200, 'revoked']);
  });

  it('holds for tenant_admin too: a just-in-time admin cannot extend itself, a permanent one cannot self-grant', async () => {
    const expiry = inHours(1);
    await grant(user(4), 'tenant_admin', expiry);
    const jitAdmin = as(user(4));
    expect(refusal(await patch(user(4), 'tenant_admin', null, jitAdmin))).toEqual([
      403,
      'self_assignment',
      SELF_EXTEND,
    ]);
    expect(refusal(await post(user(4), { role_id: 'tenant_viewer' }, jitAdmin))).toEqual([
      403,
      'self_assignment',
      SELF_GRANT,
    ]);
    expect((await assignmentOf(user(4), 'tenant_admin')).expires_at).toBe(expiry);
    expect(refusal(await post('usr_admin', { role_id: 'tenant_viewer' }))).toEqual([
      403,
      'self_assignment',
      SELF_GRANT,
    ]);
    expect(refusal(await patch('usr_admin', 'tenant_admin', inHours(24)))).toEqual([
      403,
      'self_assignment',
      SELF_EXTEND,
    ]);
    // Another administrator may.
    const extended = await patch(user(4), 'tenant_admin', null);
    expect([extended.status, extended.body.expires_at]).toEqual([200, null]);
  });
});

describe('role.manage takes away only what it holds', () => {
  it('refuses narrowing or deleting a role that carries permissions the caller lacks', async () => {
    const keepers = await customRole('key-keepers', ['api_key.manage', 'webhook.manage', 'exception.read']);
    const managers = await customRole('role-keepers', ['role.manage', 'role.read', 'exception.read']);
    await grant(user(5), managers.id);
    const manager = as(user(5));
    const change = (body: unknown) =>
      call(sandbox(), 'PATCH', `/v1/roles/${keepers.id}`, { ...manager, body });

    // Any change of it takes every permission it carries (s15 F5), a narrow included.
    const TAKE = 'you can only change a role whose permissions you all hold yourself; you lack';
    expect(refusal(await change({ remove_permissions: ['api_key.manage'] }))).toEqual([
      403,
      'insufficient_permission',
      `${TAKE} api_key.manage, webhook.manage`,
    ]);
    expect(refusal(await change({ permissions: ['exception.read'] }))).toEqual([
      403,
      'insufficient_permission',
      `${TAKE} api_key.manage, webhook.manage`,
    ]);
    const removed = await call(sandbox(), 'DELETE', `/v1/roles/${keepers.id}`, manager);
    expect(refusal(removed)).toEqual([
      403,
      'insufficient_permission',
      'you can only delete a role whose permissions you all hold yourself; you lack api_key.manage, webhook.manage',
    ]);
    const unchanged = await call(sandbox(), 'GET', `/v1/roles/${keepers.id}`, admin());
    expect([unchanged.body.permissions, unchanged.body.deleted_at]).toEqual([
      ['api_key.manage', 'exception.read', 'webhook.manage'],
      null,
    ]);

    // Within what it holds, role.manage still narrows and deletes.
    const readers = await customRole('reader-keepers', ['exception.read', 'role.read']);
    const narrowed = await call(sandbox(), 'PATCH', `/v1/roles/${readers.id}`, {
      ...manager,
      body: { remove_permissions: ['exception.read'] },
    });
    expect([narrowed.status, narrowed.body.permissions]).toEqual([200, ['role.read']]);
    const deleted = await call(sandbox(), 'DELETE', `/v1/roles/${readers.id}`, manager);
    expect(deleted.status, deleted.text).toBe(200);
  });
});

describe('API keys do not hand out the power to mint keys', () => {
  it('a service-role key cannot grant or re-time a role carrying api_key.manage, and grants the rest', async () => {
    const minted = await call(sandbox(), 'POST', '/_sandbox/api-keys', {
      body: { tenant_id: TREASURY, kind: 'service_role' },
    });
    const keyCaller = { token: minted.body.key as string, tenant: TREASURY };
    const minters = await customRole('key-minters-by-key', ['api_key.manage', 'account.read']);
    const GRANT = (role: string) =>
      `API keys cannot grant ${role}: it carries api_key.manage, and keys cannot mint keys; a person must grant it`;
    expect(refusal(await post(user(6), { role_id: 'tenant_admin' }, keyCaller))).toEqual([
      403,
      'user_required',
      GRANT('tenant_admin'),
    ]);
    expect(refusal(await post(user(6), { role_id: minters.id }, keyCaller))).toEqual([
      403,
      'user_required',
      GRANT('key-minters-by-key'),
    ]);
    expect(await assignmentOf(user(6), 'tenant_admin')).toBeUndefined();

    await grant(user(7), 'tenant_admin', inHours(1));
    expect(refusal(await patch(user(7), 'tenant_admin', null, keyCaller))).toEqual([
      403,
      'user_required',
      'API keys cannot change the expiry of tenant_admin: it carries api_key.manage, and keys cannot mint keys; a person must do it',
    ]);

    // CI grants the other roles with keys.
    const viewer = await post(user(6), { role_id: 'tenant_viewer', expires_at: inHours(1) }, keyCaller);
    expect(viewer.status, viewer.text).toBe(201);
    const extended = await patch(user(6), 'tenant_viewer', null, keyCaller);
    expect([extended.status, extended.body.expires_at]).toEqual([200, null]);
    const revoked = await call(sandbox(), 'DELETE', `/v1/users/${user(7)}/roles/tenant_admin`, keyCaller);
    expect(revoked.status, revoked.text).toBe(200);
  });
});
