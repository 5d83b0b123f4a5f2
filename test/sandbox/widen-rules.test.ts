import { describe, expect, it } from 'vitest';
import { call, useGrantRules } from '../helpers/sandbox.js';

// Exploratory test s8 (attacker 1, 2): widening a custom role is a grant to each of its holders.
// A user holding role.manage for an hour put it into a role they held permanently and kept it;
// a service-role key put api_key.manage into a role it had granted, and its holder minted keys.
const { sandbox, TREASURY, key, user, admin, as, inHours, grant, customRole, refusal } =
  useGrantRules('widen-rules');

const create = (name: string, permissions: string[], caller = admin()) =>
  call(sandbox(), 'POST', '/v1/roles', { ...caller, body: { name, permissions, idempotency_key: key() } });

const patchRole = (roleId: string, body: Record<string, unknown>, caller = admin()) =>
  call(sandbox(), 'PATCH', `/v1/roles/${roleId}`, { ...caller, body });
const permissionsOf = async (roleId: string) =>
  (await call(sandbox(), 'GET', `/v1/roles/${roleId}`, admin())).body.permissions;

describe('a widen hands out nothing that outlives the caller’s hold', () => {
  it('refuses putting just-in-time permissions into a role held longer by anyone', async () => {
    const MGR = ['role.manage', 'role.assign', 'role.read'];
    const jit = await customRole('widen-jit-mgr', MGR);
    const notes = await customRole('widen-notes', ['exception.read']);
    const later = await customRole('widen-later', ['exception.read']);
    const sooner = await customRole('widen-sooner', ['exception.read']);
    const empty = await customRole('widen-empty', ['exception.read']);
    const jitEnds = inHours(1);
    await grant(user(1), jit.id, jitEnds);
    // The roles below carry exception.read: changing one takes all it carries.
    await grant(user(1), (await customRole('widen-reader', ['exception.read'])).id);
    // Held by another permanently (a role the caller holds: self_assignment, role-change-rules).
    await grant(user(5), notes.id);
    await grant(user(2), later.id, inHours(3));
    await grant(user(3), later.id);
    await grant(user(4), sooner.id, inHours(0.5));
    const lead = as(user(1));

    const own = await patchRole(notes.id, { add_permissions: MGR }, lead);
    expect(refusal(own)).toEqual([
      403,
      'insufficient_permission',
      `you cannot hand out access that outlives your own: you hold role.assign, role.manage, role.read only until ${jitEnds}, and ${user(5)} holds widen-notes permanently; end their grants of widen-notes by ${jitEnds} first, or have someone who holds them longer make this change`,
    ]);
    expect(own.body.error.details).toEqual([
      { field: 'add_permissions', message: `would be held past ${jitEnds} by holders of widen-notes` },
    ]);
    // Replacing the permissions is the same widen.
    const replaced = await patchRole(notes.id, { permissions: ['exception.read', 'role.read'] }, lead);
    expect(refusal(replaced)).toEqual([
      403,
      'insufficient_permission',
      `you cannot hand out access that outlives your own: you hold role.read only until ${jitEnds}, and ${user(5)} holds widen-notes permanently; end their grants of widen-notes by ${jitEnds} first, or have someone who holds it longer make this change`,
    ]);
    expect(replaced.body.error.details[0].field).toBe('permissions');
    expect(await permissionsOf(notes.id)).toEqual(['exception.read']);

    // Holders whose grants end after the caller's, permanent first.
    expect(refusal(await patchRole(later.id, { add_permissions: ['role.read'] }, lead))).toEqual([
      403,
      'insufficient_permission',
      `you cannot hand out access that outlives your own: you hold role.read only until ${jitEnds}, and 2 holders of widen-later hold it longer (${user(3)} permanently, ${user(2)} until ${inHours(3)}); end their grants of widen-later by ${jitEnds} first, or have someone who holds it longer make this change`,
    ]);
    expect(await permissionsOf(later.id)).toEqual(['exception.read']);

    // Holders that lose it no later than the caller, or none: the widen hands out nothing longer.
    const within = await patchRole(sooner.id, { add_permissions: ['role.read'] }, lead);
    expect([within.status, within.body.permissions]).toEqual([200, ['exception.read', 'role.read']]);
    const unheld = await patchRole(empty.id, { add_permissions: MGR }, lead);
    expect(unheld.status, unheld.text).toBe(200);
    // Permanent role.manage widens for anyone (the admin).
    expect((await patchRole(later.id, { add_permissions: ['role.read'] })).status).toBe(200);
  });
});

describe('API keys do not make a role that mints keys', () => {
  it('refuses a key creating a role with api_key.manage, or putting it into one, holders or not', async () => {
    const minted = await call(sandbox(), 'POST', '/_sandbox/api-keys', {
      body: { tenant_id: TREASURY, kind: 'service_role' },
    });
    const keyCaller = { token: minted.body.key as string, tenant: TREASURY };

    expect(refusal(await create('key-made-minter', ['api_key.manage', 'exception.read'], keyCaller))).toEqual(
      [
        403,
        'user_required',
        'API keys cannot create key-made-minter with api_key.manage: keys cannot mint keys, nor make a role that can; a person must create it',
      ],
    );
    const made = await create('key-made-helper', ['exception.read'], keyCaller);
    expect(made.status, made.text).toBe(201);
    const WIDEN =
      'API keys cannot put api_key.manage into key-made-helper: keys cannot mint keys, nor make a role that can; a person must change it';
    expect(
      refusal(await patchRole(made.body.id, { add_permissions: ['api_key.manage'] }, keyCaller)),
    ).toEqual([403, 'user_required', WIDEN]);
    await grant(user(5), made.body.id);
    expect(
      refusal(
        await patchRole(made.body.id, { permissions: ['api_key.manage', 'exception.read'] }, keyCaller),
      ),
    ).toEqual([403, 'user_required', WIDEN]);
    expect(await permissionsOf(made.body.id)).toEqual(['exception.read']);

    // Other widens and narrows by keys go on; a person may make a key-minting role.
    const widened = await patchRole(made.body.id, { add_permissions: ['account.read'] }, keyCaller);
    expect([widened.status, widened.body.permissions]).toEqual([200, ['account.read', 'exception.read']]);
    expect((await create('person-made-minter', ['api_key.manage'])).status).toBe(201);
  });
});
