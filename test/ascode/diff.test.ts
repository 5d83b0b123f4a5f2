// Over 300 lines: tables of exact plans, one block per kind of change the diff knows.
import { describe, expect, it } from 'vitest';
import type { Expiry } from '../../src/api/expiry.js';
import type { Role } from '../../src/api/schemas/roles.js';
import { diffTenant } from '../../src/ascode/diff.js';
import { checkDrift } from '../../src/ascode/drift.js';
import type { LiveGrant, LiveTenant } from '../../src/ascode/live.js';
import { refuseLockout } from '../../src/ascode/lockout.js';
import type { DesiredTenant, GrantEntry, Manage } from '../../src/ascode/model.js';
import { planSteps } from '../../src/ascode/steps.js';

// The difference itself (issue 14), on states built by hand: expiries, removals within what is
// managed, dependencies and the caller's own administration.
const ANCHOR = Date.parse('2026-06-01T00:00:00Z');
const DAY = 86_400_000;
const NONE: Manage = { roles: 'none', grants: 'none', webhooks: 'none', oauth_clients: 'none' };
const ALL: Manage = { roles: 'all', grants: 'all', webhooks: 'all', oauth_clients: 'all' };

const role = (name: string, permissions: string[], kind: 'custom' | 'builtin' = 'custom'): Role =>
  ({
    id: kind === 'custom' ? `role_${name}` : name,
    name,
    description: '',
    kind,
    scope: 'tenant',
    permissions,
    deleted_at: null,
  }) as Role;
const liveGrant = (user: string, roleName: string, expiresAt: string | null): LiveGrant => ({
  user,
  roleId: roleName.startsWith('tenant_') ? roleName : `role_${roleName}`,
  roleName,
  expiresAt,
  justification: null,
});

function live(roles: Role[], grants: LiveGrant[]): LiveTenant {
  return {
    tenant: { id: 't1', slug: 'acme', display_name: 'Acme', role: 'tenant_admin' },
    roles: new Map(
      [
        role(
          'tenant_admin',
          [
            'role.read',
            'role.manage',
            'role.assign',
            'webhook.read',
            'webhook.manage',
            'oauth_client.manage',
            'rule.read',
          ],
          'builtin',
        ),
        ...roles,
      ].map((r) => [r.name, r]),
    ),
    grants: new Map(grants.map((g) => [`${g.user} ${g.roleName}`, g])),
    webhooks: [],
    clients: [],
    undescribed: [],
  };
}

function desired(
  grants: Array<Omit<GrantEntry, 'line'>> = [],
  roles: Array<{ name: string; permissions: string[] }> = [],
): DesiredTenant {
  return {
    roles: new Map(roles.map((r) => [r.name, { line: 1, ...r }])),
    grants: new Map(grants.map((g) => [`${g.user} ${g.role}`, { line: 2, justification: 'why', ...g }])),
    webhooks: [],
    clients: [],
    line: 1,
  };
}

const verbs = (changes: Array<{ verb: string; name: string; fields: Array<{ to?: unknown }> }>) =>
  changes.map((c) => `${c.verb} ${c.name}${c.fields[0]?.to !== undefined ? ` → ${c.fields[0].to}` : ''}`);

describe('grant expiries', () => {
  const held = (expiresAt: string | null) => live([], [liveGrant('u1', 'tenant_viewer', expiresAt)]);
  const want = (expiry: Expiry) => desired([{ user: 'u1', role: 'tenant_viewer', expiry }]);
  const plan = (have: LiveTenant, expiry: Expiry) =>
    verbs(diffTenant({ desired: want(expiry), live: have, manage: NONE, anchorMs: ANCHOR }).tenant.changes);

  it.each([
    [
      'permanent, held until a time: extended to permanent',
      { kind: 'never' } as Expiry,
      '2026-07-01T00:00:00Z',
      ['extend u1 tenant_viewer → null'],
    ],
    ['permanent, held permanently: nothing', { kind: 'never' } as Expiry, null, []],
    [
      'until a later time: extended',
      { kind: 'at', ms: Date.parse('2026-09-01T00:00:00Z') } as Expiry,
      '2026-07-01T00:00:00Z',
      ['extend u1 tenant_viewer → 2026-09-01T00:00:00Z'],
    ],
    [
      'until an earlier time: shortened',
      { kind: 'at', ms: Date.parse('2026-06-15T00:00:00Z') } as Expiry,
      '2026-07-01T00:00:00Z',
      ['shorten u1 tenant_viewer → 2026-06-15T00:00:00Z'],
    ],
    [
      'until a time, held permanently: shortened',
      { kind: 'at', ms: Date.parse('2026-06-15T00:00:00Z') } as Expiry,
      null,
      ['shorten u1 tenant_viewer → 2026-06-15T00:00:00Z'],
    ],
    [
      'for 30d, held 10 more days: nothing (a duration never extends on its own)',
      { kind: 'in', ms: 30 * DAY, text: '30d' } as Expiry,
      '2026-06-11T00:00:00Z',
      [],
    ],
    [
      'for 30d, held 60 more days: shortened to 30d from now',
      { kind: 'in', ms: 30 * DAY, text: '30d' } as Expiry,
      '2026-07-31T00:00:00Z',
      ['shorten u1 tenant_viewer → 2026-07-01T00:00:00Z'],
    ],
    [
      'for 30d, held permanently: shortened',
      { kind: 'in', ms: 30 * DAY, text: '30d' } as Expiry,
      null,
      ['shorten u1 tenant_viewer → 2026-07-01T00:00:00Z'],
    ],
  ])('%s', (_name, expiry, heldUntil, expected) => {
    expect(plan(held(heldUntil), expiry)).toEqual(expected);
  });

  // review19b F2's kin: a resumed apply found a grant moved (or made) by the interrupted run on a
  // server writing `+00:00` (or no zone) "changed since the plan", compared as text with the plan's Z.
  it.each(['2026-09-01T00:00:00+00:00', '2026-09-01T00:00:00', '2026-09-01T00:00:00.000Z'])(
    'a resumed run finds an extension made, read back as %s: done, no drift',
    (written) => {
      const held = (at: string) =>
        live([role('tenant_viewer', [], 'builtin')], [liveGrant('u1', 'tenant_viewer', at)]);
      const expiry = { kind: 'at', ms: Date.parse('2026-09-01T00:00:00Z') } as Expiry;
      const { tenant } = diffTenant({
        desired: want(expiry),
        live: held('2026-07-01T00:00:00Z'),
        manage: NONE,
        anchorMs: ANCHOR,
      });
      const now = new Map([['t1', held(written)]]);
      expect(checkDrift({ tenants: [tenant] } as never, now, true, 0)).toEqual({
        drift: [],
        done: new Set(['t1/grant/update/u1 tenant_viewer']),
        expired: new Map(),
      });
    },
  );

  it('a missing grant is granted, counting a duration from the anchor', () => {
    expect(plan(live([], []), { kind: 'in', ms: 7 * DAY, text: '7d' })).toEqual([
      'grant u1 tenant_viewer → 2026-06-08T00:00:00Z',
    ]);
  });
});

describe('removals, scope and order', () => {
  const have = live(
    [role('ops', ['rule.read']), role('old', ['rule.read'])],
    [
      liveGrant('admin', 'tenant_admin', null),
      liveGrant('u1', 'old', null),
      liveGrant('u2', 'ops', null),
      liveGrant('u3', 'tenant_viewer', null),
    ],
  );

  it('removes only what the file manages: nothing by default', () => {
    expect(
      diffTenant({ desired: desired(), live: have, manage: NONE, anchorMs: ANCHOR }).tenant.changes,
    ).toEqual([]);
  });

  it('listed-roles: only grants of the roles the file names in the tenant', () => {
    const { changes } = diffTenant({
      desired: desired([{ user: 'u9', role: 'ops', expiry: { kind: 'never' } }]),
      live: have,
      manage: { ...NONE, grants: 'listed-roles' },
      anchorMs: ANCHOR,
    }).tenant;
    expect(changes.map((c) => `${c.verb} ${c.name} ${c.prune}`)).toEqual([
      'grant u9 ops false',
      'revoke u2 ops true',
    ]);
  });

  it('a role removed with its grants goes after their revocations, and a grant of a new role after the role', () => {
    const { tenant } = diffTenant({
      desired: desired(
        [
          { user: 'admin', role: 'tenant_admin', expiry: { kind: 'never' } },
          { user: 'u5', role: 'fresh', expiry: { kind: 'never' } },
        ],
        [{ name: 'fresh', permissions: ['rule.read'] }],
      ),
      live: have,
      manage: ALL,
      anchorMs: ANCHOR,
    });
    const steps = planSteps({ tenants: [tenant] } as never, true);
    expect(
      steps.map(
        (s) => `${s.phase} ${s.data.change.verb} ${s.data.change.name} after:${(s.after ?? []).length}`,
      ),
    ).toEqual([
      '1 create fresh after:0',
      '2 grant u5 fresh after:1',
      '3 revoke u1 old after:0',
      '3 revoke u2 ops after:0',
      '3 revoke u3 tenant_viewer after:0',
      '4 delete ops after:1',
      '4 delete old after:1',
    ]);
    expect(steps[1]!.after).toEqual([steps[0]!.key]);
    expect(steps[0]!.needed).toBe(true);
    expect(steps.find((s) => s.data.change.name === 'old')!.after).toEqual([steps[2]!.key]);
    // Without --prune, none of the removals is a step.
    expect(planSteps({ tenants: [tenant] } as never, false).map((s) => s.data.change.verb)).toEqual([
      'create',
      'grant',
    ]);
  });
});

describe("the caller's own administration", () => {
  it('refuses revoking your admin grant, deleting or narrowing a role that makes you one; not what leaves it', () => {
    const have = live(
      [
        role('delegate', [
          'role.read',
          'role.manage',
          'role.assign',
          'webhook.read',
          'webhook.manage',
          'oauth_client.manage',
        ]),
      ],
      [
        liveGrant('me', 'delegate', null),
        liveGrant('me', 'tenant_admin', null),
        liveGrant('u2', 'tenant_admin', null),
      ],
    );
    // Revoking tenant_admin alone leaves the delegate role: allowed.
    const keepDelegate = diffTenant({
      desired: desired(
        [{ user: 'me', role: 'delegate', expiry: { kind: 'never' } }],
        [
          {
            name: 'delegate',
            permissions: [
              'role.read',
              'role.manage',
              'role.assign',
              'webhook.read',
              'webhook.manage',
              'oauth_client.manage',
            ],
          },
        ],
      ),
      live: have,
      manage: { ...ALL },
      anchorMs: ANCHOR,
    }).tenant.changes;
    expect(refuseLockout(have, keepDelegate, 'me')).toBe(0);
    // Narrowing the delegate role as well takes role.assign away: both are refused.
    const narrow = diffTenant({
      desired: desired(
        [{ user: 'me', role: 'delegate', expiry: { kind: 'never' } }],
        [
          {
            name: 'delegate',
            permissions: [
              'role.read',
              'role.manage',
              'webhook.read',
              'webhook.manage',
              'oauth_client.manage',
            ],
          },
        ],
      ),
      live: have,
      manage: { ...ALL },
      anchorMs: ANCHOR,
    }).tenant.changes;
    expect(refuseLockout(have, narrow, 'me')).toBe(2);
    expect(narrow.filter((c) => c.refused).map((c) => `${c.verb} ${c.name}`)).toEqual([
      'update delegate',
      'revoke me tenant_admin',
    ]);
    expect(narrow.find((c) => c.refused)!.refused).toBe(
      'it would take away your own administration of acme (role.assign); keep it in the file, or have another administrator make this change',
    );
    // Someone else's grants are not yours to keep.
    expect(narrow.find((c) => c.name === 'u2 tenant_admin')!.refused).toBeUndefined();
  });
});

describe('webhooks whose id is not in the tenant (an export of another tenant or platform)', () => {
  const URL_ = 'https://hooks.example.com/shared';
  const hook = (id: string, events: string[]) =>
    ({ id, url: URL_, event_types: events, description: '', status: 'enabled', max_attempts: 5 }) as never;
  const entry = (id: string | undefined, events: string[]) => ({
    line: 3,
    ...(id === undefined ? {} : { id }),
    url: URL_,
    event_types: events,
    description: '',
  });
  const plan = (hooks: unknown[], entries: unknown[], createMissing: boolean) => {
    const have = { ...live([], []), webhooks: hooks as never[] };
    const want = { ...desired(), webhooks: entries as never[] };
    return diffTenant({ desired: want, live: have, manage: ALL, anchorMs: ANCHOR, createMissing });
  };

  it('is a live one of its URL exactly as it says, else created with --create-missing, else a problem', () => {
    const entries = [entry('wh_a', ['x']), entry('wh_b', ['x']), entry('wh_c', ['y'])];
    const without = plan([hook('wh_1', ['x'])], entries, false);
    expect(without.problems.map((p) => p.message)).toEqual([
      'webhook wh_b does not exist in acme, nor one as this entry says: --create-missing creates it (restoring an export elsewhere), or leave "id" out',
      'webhook wh_c does not exist in acme, nor one as this entry says: --create-missing creates it (restoring an export elsewhere), or leave "id" out',
    ]);
    const made = plan([hook('wh_1', ['x'])], entries, true);
    expect(made.problems).toEqual([]);
    // wh_1 is wh_a (as it says: no change); wh_b and wh_c are created, each with its own key.
    const changes = made.tenant.changes;
    expect(changes.map((c) => [c.action, c.ref, c.existing])).toEqual([
      ['create', 'wh_b', ['wh_1']],
      ['create', 'wh_c', ['wh_1']],
    ]);
    const keys = planSteps({ tenants: [made.tenant] } as never, false).map((s) => s.key);
    expect(new Set(keys).size).toBe(2);
  });

  it('a saved plan: a creation planned beside a live one of its URL has not drifted; made since, it has; a resumed run finds each made', () => {
    const before = [hook('wh_1', ['x'])];
    const { tenant } = plan(before, [entry('wh_a', ['x']), entry('wh_b', ['y']), entry('wh_c', ['z'])], true);
    const doc = { tenants: [tenant] } as never;
    const now = (hooks: unknown[]) => new Map([['t1', { ...live([], []), webhooks: hooks as never[] }]]);
    expect(checkDrift(doc, now(before), false, 0)).toEqual({
      drift: [],
      done: new Set(),
      expired: new Map(),
    });
    // Made by an interrupted run of the plan, in another order: each creation finds its own.
    const made = [...before, hook('wh_9', ['z']), hook('wh_8', ['y'])];
    expect(checkDrift(doc, now(made), false, 0).drift).toEqual([
      `acme: webhook ${URL_} was created since the plan`,
      `acme: webhook ${URL_} was created since the plan`,
    ]);
    expect(checkDrift(doc, now(made), true, 0)).toEqual({
      drift: [],
      done: new Set([`t1/webhook/create/${URL_}#wh_b`, `t1/webhook/create/${URL_}#wh_c`]),
      expired: new Map(),
    });
    // One of its URL made since with other values is someone else's: drift, also when resumed.
    expect(checkDrift(doc, now([...before, hook('wh_7', ['q'])]), true, 0).drift).toEqual([
      `acme: webhook ${URL_} was created since the plan`,
    ]);
  });

  it('an entry without an id is the one live webhook of its URL that no entry with an id is', () => {
    const { tenant, problems } = plan(
      [hook('wh_1', ['x']), hook('wh_2', ['y'])],
      [entry('wh_1', ['x']), entry(undefined, ['z'])],
      false,
    );
    expect(problems).toEqual([]);
    expect(tenant.changes.map((c) => `${c.action} ${c.id}`)).toEqual(['update wh_2']);
  });
});
