import { describe, expect, it } from 'vitest';
import type { Role } from '../../src/api/schemas/roles.js';
import { base } from '../../src/ascode/changes.js';
import type { LiveTenant } from '../../src/ascode/live.js';
import { markOwnReach, refuseKeyStop } from '../../src/ascode/own-reach.js';
import { changeKey, type PlanDocument } from '../../src/ascode/plan.js';
import { planSteps } from '../../src/ascode/steps.js';

// Which changes svc apply makes after every other (./own-reach.ts), on a state built by hand: the
// caller's own revocation, a narrowing of a role they hold (not one of a role they do not), and a
// role deletion that needs a revocation made last is made last itself, so no step waits in an
// earlier phase for one of a later phase (the runner would never start it).
const role = (name: string, permissions: string[]): Role =>
  ({ id: `role_${name}`, name, description: '', kind: 'custom', scope: 'tenant', permissions }) as Role;
const grant = (user: string, name: string) =>
  [
    `${user} ${name}`,
    { user, roleId: `role_${name}`, roleName: name, expiresAt: null, justification: null },
  ] as const;

const live: LiveTenant = {
  tenant: { id: 't1', slug: 'acme', display_name: 'Acme', role: 'keyrole' },
  roles: new Map([
    ['mine', role('mine', ['rule.read', 'account.read'])],
    ['theirs', role('theirs', ['rule.read', 'account.read'])],
    ['keyrole', role('keyrole', ['role.assign'])],
  ]),
  grants: new Map([grant('me', 'mine'), grant('other', 'theirs'), grant('me', 'theirs')]),
  webhooks: [],
  clients: [],
  undescribed: [],
};

const narrow = (name: string) => ({
  ...base('role', 'update', name, `role_${name}`, 1, 'x'),
  fields: [{ field: 'permissions', from: ['rule.read', 'account.read'], to: ['account.read'] }],
});
const revoke = (user: string, name: string) => ({
  ...base('grant', 'delete', `${user} ${name}`, null, null, 'x', 'revoke'),
  prune: true,
  grant: { user, role: name, role_id: `role_${name}`, expires_at: null, justification: null },
});

describe('markOwnReach', () => {
  it('marks the caller’s own revocation and the narrowing of a role they hold, nothing else', () => {
    const changes = [narrow('mine'), revoke('other', 'theirs'), revoke('me', 'mine'), narrow('keyrole')];
    expect(markOwnReach(live, changes, { id: 'me', type: 'user' })).toBe(2);
    expect(changes.map((c) => [c.name, c.last ?? false])).toEqual([
      ['mine', true],
      ['other theirs', false],
      ['me mine', true],
      ['keyrole', false],
    ]);
  });

  // review16 R11: a key acts only while its issuer holds its role's permissions, so a role its
  // issuer holds (`mine`) narrowed is made last too (not first, as before); review16 R3: the
  // issuer's own revocation of a role the run deletes is ended by that deletion and follows it
  // (before, it went first, and the deletion needed permissions held only through it).
  it('an API key: its issuer’s revocation, its own role, a role its issuer holds, and a deletion that needs one of them; steps in phase order', () => {
    const revoked = revoke('me', 'theirs');
    const deleted = { ...base('role', 'delete', 'theirs', 'role_theirs', null, 'x'), prune: true };
    deleted.needs = [changeKey('t1', revoked), changeKey('t1', revoke('other', 'theirs'))];
    const changes = [deleted, revoke('other', 'theirs'), revoked, narrow('keyrole'), narrow('mine')];
    markOwnReach(live, changes, { id: 'key_1', type: 'api_key', credential: { issued_by: 'me' } });
    expect(changes.map((c) => [c.kind, c.name, c.last ?? false])).toEqual([
      ['role', 'theirs', true],
      ['grant', 'other theirs', false],
      ['grant', 'me theirs', true],
      ['role', 'keyrole', true],
      ['role', 'mine', true],
    ]);
    expect(revoked.ended_by).toBe(changeKey('t1', deleted));
    const doc = {
      tenants: [{ id: 't1', slug: 'acme', display_name: 'Acme', changes }],
    } as unknown as PlanDocument;
    const order = planSteps(doc, true).map((s) => `${s.data.change.kind} ${s.data.change.name}`);
    expect(order).toEqual([
      'grant other theirs',
      'role keyrole',
      'role mine',
      'role theirs',
      'grant me theirs',
    ]);
    const steps = planSteps(doc, true);
    const step = (name: string) => steps.find((s) => s.data.change.name === name)!;
    expect(step('theirs').after).toEqual([changeKey('t1', revoke('other', 'theirs'))]);
    expect(step('theirs').data.ends).toEqual(['me']);
    expect(step('me theirs').after).toEqual([changeKey('t1', deleted)]);
  });

  it('an API key: a change that takes from its issuer what its role needs is refused, whatever order (R11)', () => {
    // `me` holds keyrole's role.assign only through `mine`; narrowing `theirs` takes nothing of it.
    const tenant: LiveTenant = {
      ...live,
      roles: new Map([...live.roles, ['mine', role('mine', ['role.assign', 'account.read'])]]),
    };
    const changes = [
      { ...narrow('mine'), fields: [{ field: 'permissions', from: [], to: ['account.read'] }] },
      narrow('theirs'),
    ];
    expect(refuseKeyStop(tenant, changes, 'me')).toBe(1);
    expect(changes.map((c) => c.refused ?? null)).toEqual([
      'it would stop the API key you are applying with: the key acts only while me, who issued it, holds every permission of keyrole without an end date, and after this plan they would not hold role.assign; have me (with their own login) or another administrator make this change, or leave it out of the file',
      null,
    ]);
  });

  it('an update of a role you hold comes before your own revocation of it (R3: likewise for updates)', () => {
    // Narrowed (made last) or only re-described (not last, phase 1): either way before the
    // revocation, while the caller still holds every permission the role carries.
    const described = {
      ...base('role', 'update', 'theirs', 'role_theirs', 1, 'x'),
      fields: [{ field: 'description', from: '', to: 'd' }],
    };
    const changes = [revoke('me', 'mine'), revoke('me', 'theirs'), narrow('mine'), described];
    markOwnReach(live, changes, { id: 'me', type: 'user' });
    const doc = {
      tenants: [{ id: 't1', slug: 'acme', display_name: 'Acme', changes }],
    } as unknown as PlanDocument;
    expect(planSteps(doc, true).map((s) => `${s.data.change.kind} ${s.data.change.name}`)).toEqual([
      'role theirs',
      'role mine',
      'grant me mine',
      'grant me theirs',
    ]);
  });
});
