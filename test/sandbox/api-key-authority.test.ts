import { describe, expect, it } from 'vitest';
import { call, useGrantRules } from '../helpers/sandbox.js';

// Holes found by the tenants tester of session 10: key management bounded by the key's authority
// on issue only (a key manager revoked and listed the admin's service-role keys), a just-in-time
// tenant_admin minting a key that outlives the grant, and such a key granting roles to its creator.
const { sandbox, TREASURY, key, user, admin, as, inHours, grant, customRole, refusal } =
  useGrantRules('key-authority');

const keysPath = `/v1/tenants/${TREASURY}/api-keys`;

async function issue(kind: 'publishable' | 'service_role', caller = admin(), name: string = kind) {
  return call(sandbox(), 'POST', keysPath, {
    ...caller,
    body: {
      kind,
      name,
      ...(kind === 'service_role' ? { justification: 'nightly ledger sync' } : {}),
      idempotency_key: key(),
    },
  });
}

const works = async (secret: string) => (await call(sandbox(), 'GET', '/v1/me', { token: secret })).status;

describe('a key manager manages only keys whose authority they hold', () => {
  it('revokes and lists publishable keys, but neither revokes nor sees a service-role key', async () => {
    const managers = await customRole('key-managers', ['api_key.manage', 'role.read']);
    await grant(user(1), managers.id);
    await grant(user(1), 'tenant_viewer');
    const manager = as(user(1));
    const service = (await issue('service_role')).body;
    const mine = await issue('publishable', manager, 'viewer-dash');
    expect(mine.status, mine.text).toBe(201);

    const revoke = await call(sandbox(), 'DELETE', `${keysPath}/${service.id}`, manager);
    expect(refusal(revoke)[0]).toBe(403);
    expect(refusal(revoke)[1]).toBe('insufficient_permission');
    expect(revoke.body.error.message).toMatch(
      /^a service_role key acts as tenant_admin; you can only revoke keys whose permissions you hold; you lack account\.write, .*role\.assign/,
    );
    expect(await works(service.key)).toBe(200);
    const listed = await call(sandbox(), 'GET', keysPath, manager);
    expect(listed.status, listed.text).toBe(200);
    const ids = listed.body.items.map((k: { id: string }) => k.id);
    expect(ids).toContain(mine.body.id);
    expect(ids).not.toContain(service.id);
    expect(JSON.stringify(listed.body)).not.toContain('nightly ledger sync');

    const own = await call(sandbox(), 'DELETE', `${keysPath}/${mine.body.id}`, manager);
    expect([own.status, own.body.revoked_at]).toEqual([200, expect.any(String)]);
    expect(await works(mine.body.key)).toBe(401);
  });

  it('an administrator still sees and revokes every key', async () => {
    const service = (await issue('service_role')).body;
    const listed = await call(sandbox(), 'GET', keysPath, admin());
    expect(listed.body.items.map((k: { id: string }) => k.id)).toContain(service.id);
    const revoked = await call(sandbox(), 'DELETE', `${keysPath}/${service.id}`, admin());
    expect(revoked.status, revoked.text).toBe(200);
    expect(await works(service.key)).toBe(401);
  });
});

describe('a key outlives nobody’s hold on it', () => {
  it('refuses a key to a just-in-time tenant_admin, naming until when they hold it', async () => {
    const until = inHours(1);
    await grant(user(2), 'tenant_admin', until);
    const jit = as(user(2));
    const before = (await call(sandbox(), 'GET', keysPath, admin())).body.items.length;
    for (const kind of ['service_role', 'publishable'] as const) {
      const role = kind === 'service_role' ? 'tenant_admin' : 'tenant_viewer';
      expect(refusal(await issue(kind, jit))).toEqual([
        403,
        'insufficient_permission',
        `a ${kind} key acts as ${role} until it is revoked, and you hold the permissions of ${role} only until ${until}; ` +
          'a key cannot outlive your own access: ask someone who holds them without an end date to issue it',
      ]);
    }
    expect((await call(sandbox(), 'GET', keysPath, admin())).body.items.length).toBe(before);
  });

  // conform16 #5: the key's role held for good was enough, api_key.manage just in time, so a
  // just-in-time key manager minted a key that outlived the grant. One standing-credential rule
  // (src/api/holds.ts standingRefusal), as webhook secrets: api_key.manage held without an end date.
  it('refuses a key to a just-in-time api_key.manage holder, though they hold the key role for good', async () => {
    const until = inHours(1);
    await grant(user(3), 'tenant_admin', until);
    await grant(user(3), 'tenant_viewer');
    const before = (await call(sandbox(), 'GET', keysPath, admin())).body.items.length;
    expect(refusal(await issue('publishable', as(user(3))))).toEqual([
      403,
      'insufficient_permission',
      "an API key is a standing credential, like a webhook's signing secret: issuing an API key (it acts until it is revoked) " +
        `takes api_key.manage held without an end date, and you hold it only until ${until}; have someone who holds it without an end date do it`,
    ]);
    expect((await call(sandbox(), 'GET', keysPath, admin())).body.items.length).toBe(before);
  });

  it('lets a holder of api_key.manage and the key role without an end date issue one, through another grant too', async () => {
    const managers = await customRole('key-managers-standing', ['api_key.manage']);
    await grant(user(5), managers.id);
    await grant(user(5), 'tenant_viewer');
    await grant(user(5), 'tenant_admin', inHours(1));
    const made = await issue('publishable', as(user(5)));
    expect(made.status, made.text).toBe(201);
  });
});

describe('a key does not grant roles to the user who issued it', () => {
  it('refuses a grant and an expiry change for its creator (self_assignment), not for others', async () => {
    const readers = await customRole('key-creator-readers', ['exception.read']);
    await grant(user(4), 'tenant_admin');
    const creator = as(user(4));
    const issued = await issue('service_role', creator);
    expect(issued.status, issued.text).toBe(201);
    const byKey = { token: issued.body.key, tenant: TREASURY };
    const toCreator = await call(sandbox(), 'POST', `/v1/users/${user(4)}/roles`, {
      ...byKey,
      body: { role_id: readers.id, justification: 'regain via key', idempotency_key: key() },
    });
    const SELF = `this API key was issued by ${user(4)}, and nobody grants roles to themselves; ask another administrator`;
    expect(refusal(toCreator)).toEqual([403, 'self_assignment', SELF]);
    const extend = await call(sandbox(), 'PATCH', `/v1/users/${user(4)}/roles/tenant_admin`, {
      ...byKey,
      body: { expires_at: inHours(2), justification: 'regain via key' },
    });
    expect(refusal(extend)).toEqual([
      403,
      'self_assignment',
      `this API key was issued by ${user(4)}, and nobody changes the expiry of their own roles; ask another administrator`,
    ]);
    const toOther = await call(sandbox(), 'POST', `/v1/users/${user(5)}/roles`, {
      ...byKey,
      body: { role_id: readers.id, justification: 'automation grant', idempotency_key: key() },
    });
    expect(toOther.status, toOther.text).toBe(201);
  });
});

// Review of session 10 (review-a 1): a key kept its issuer's authority after the issuer lost it,
// and its issuer could widen, through it, a custom role only they held.
describe('a key acts only while its issuer holds its permissions', () => {
  it('stops when the issuer loses tenant_admin (401 naming what they lack), and acts again once they hold it', async () => {
    const extra = await customRole('issuer-extra', ['exception.read']);
    await grant(user(6), 'tenant_admin');
    await grant(user(6), extra.id);
    const issued = await issue('service_role', as(user(6)));
    expect(issued.status, issued.text).toBe(201);
    const byKey = { token: issued.body.key, tenant: TREASURY };
    expect(await works(issued.body.key)).toBe(200);

    const taken = await call(sandbox(), 'DELETE', `/v1/users/${user(6)}/roles/tenant_admin`, admin());
    expect(taken.status, taken.text).toBe(200);
    const widen = await call(sandbox(), 'PATCH', `/v1/roles/${extra.id}`, {
      ...byKey,
      body: { permissions: ['exception.read', 'role.manage', 'role.assign'] },
    });
    expect(widen.status).toBe(401);
    expect(widen.body.error.message).toMatch(
      new RegExp(
        `^this API key acts only while ${user(6)}, who issued it, holds every permission of tenant_admin without an end date; they no longer hold [a-z_.]+(, [a-z_.]+)*: have a current admin issue a new key$`,
      ),
    );
    const role = await call(sandbox(), 'GET', `/v1/roles/${extra.id}`, admin());
    expect(role.body.permissions).toEqual(['exception.read']);

    await grant(user(6), 'tenant_admin');
    expect(await works(issued.body.key)).toBe(200);
  });

  it('keys the sandbox minted for tests have no issuer to follow', async () => {
    const minted = await call(sandbox(), 'POST', '/_sandbox/api-keys', {
      body: { tenant_id: TREASURY, kind: 'service_role' },
    });
    expect(minted.status, minted.text).toBe(200);
    expect(await works(minted.body.key)).toBe(200);
  });
});
