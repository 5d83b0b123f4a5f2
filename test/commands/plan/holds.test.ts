import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { as, LABS, user, writeFile, writes } from '../../helpers/ascode.js';
import { fixedClock } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// svc plan predicts the platform's "no one hands out more than they hold" (exploratory test s7):
// a delegated admin planning a grant of a role whose permissions they do not all hold, a grant
// outlasting their own, or a custom role with a permission they lack, got a plan with pending
// changes (exit 10), and svc apply then failed with 403 (exit 7). Such changes are planned as
// refused, as a lockout is, and svc apply refuses to start (exit 2), sending nothing.
const svc = useSandboxContext({ users: 10 });
const dir = useTempDir('svc-plan-holds-');
let delegate: Record<string, string>;
let holdEnds = '';
let delegatesId = '';

beforeAll(async () => {
  const sandbox = svc.sandbox();
  const now = Date.parse((await call(sandbox, 'GET', '/_sandbox/clock')).body.now);
  holdEnds = isoSeconds(now + 60 * 60_000);
  await as(sandbox, LABS, 'POST', '/v1/roles', { name: 'ops', permissions: ['rule.read'] });
  const delegates = await as(sandbox, LABS, 'POST', '/v1/roles', {
    name: 'delegates',
    permissions: ['role.read', 'role.assign', 'role.manage', 'rule.read'],
  });
  delegatesId = delegates.id;
  await as(sandbox, LABS, 'POST', `/v1/users/${user(2)}/roles`, {
    role_id: delegates.id,
    expires_at: holdEnds,
    justification: 'delegated for an hour',
  });
  delegate = { SVC_TOKEN: sandbox.issueToken(user(2)).token, SVC_TENANT: LABS };
});

const grant = (n: number, role: string, expiresIn: string) =>
  `      - user: ${user(n)}\n        role: ${role}\n        expires_in: ${expiresIn}\n        justification: cover\n`;
const FILE =
  'version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n      - name: wide\n        permissions: [rule.read, account.write]\n    grants:\n' +
  grant(3, 'tenant_viewer', '30m') +
  grant(4, 'ops', '30m') +
  grant(5, 'ops', '8h') +
  grant(6, 'ops', 'never');

const refused = (code: string, message: string) => `the platform refuses it (${code}): ${message}`;
const OUTLIVES = () =>
  refused(
    'insufficient_permission',
    `you cannot hand out access that outlives your own: you hold the permissions of ops only until ${holdEnds}; set expires_at to ${holdEnds} or earlier`,
  );

describe('svc plan as a delegated admin', () => {
  it('marks what the platform would refuse the caller as refused; svc apply refuses to start', async () => {
    const file = writeFile(dir, 'holds.yaml', FILE);
    const clock = fixedClock();
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { env: delegate, clock });
    expect(planned.code).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'create',
        'wide',
        refused(
          'insufficient_permission',
          'you can only put into a role permissions you hold yourself; you lack account.write; have someone who holds them change wide',
        ),
      ],
      [
        'grant',
        `${user(3)} tenant_viewer`,
        refused(
          'insufficient_permission',
          'you can only grant or revoke roles whose permissions you hold; you lack account.read, exception.read, reconciliation.read; have someone who holds them grant tenant_viewer',
        ),
      ],
      ['grant', `${user(4)} ops`, null],
      ['grant', `${user(5)} ops`, OUTLIVES()],
      ['grant', `${user(6)} ops`, OUTLIVES()],
    ]);
    expect(planned.stderr).toBe(
      'plan: 5 to create, 0 to update, 0 to delete in 1 of 1 tenant\n' +
        'warning: svc apply refuses 4 of these changes: they would change your own grants, take away your own administration, leave a tenant without an administrator, stop the API key you are applying with, hand out more than you hold, need a permission held without an end date that you hold only until a date (a webhook, an OAuth client), or create or change an OAuth client with an API key or a third-party client\'s token (only a user with their own login may) (see "refused")\n',
    );

    const before = await writes(svc.sandbox());
    const applied = await svc.run(['apply', '-f', file, '--yes'], { env: delegate, clock });
    expect([applied.code, applied.stdout]).toEqual([2, '']);
    // One line per refused change, then one error line; with --json, the error alone.
    expect(applied.stderr.split('\n').map((line) => line.split(': the platform refuses it')[0])).toEqual([
      'acme-labs: role wide',
      `acme-labs: grant tenant_viewer to ${user(3)}`,
      `acme-labs: grant ops to ${user(5)}`,
      `acme-labs: grant ops to ${user(6)}`,
      "error: svc apply refuses 4 of the plan's changes (each on a line above); take them out of the file, or have someone who may make them apply it; nothing was applied",
      '',
    ]);
    const json = await svc.run(['apply', '-f', file, '--yes', '--json'], { env: delegate, clock });
    const error = JSON.parse(json.stderr).error;
    expect([json.code, error.code, error.message, error.details.length]).toEqual([
      2,
      'lockout',
      "svc apply refuses 4 of the plan's changes (each in details)",
      4,
    ]);
    expect(await writes(svc.sandbox())).toBe(before);
  });

  it('plans the changes the caller may make as pending, none refused', async () => {
    const file = writeFile(
      dir,
      'fine.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n${grant(4, 'ops', '30m')}`,
    );
    const r = await svc.run(['plan', '-f', file, '--ndjson'], { env: delegate, clock: fixedClock() });
    expect([r.code, ndjson(r.stdout).map((c) => [c.verb, c.refused ?? null]), r.stderr]).toEqual([
      10,
      [['grant', null]],
      'plan: 1 to create, 0 to update, 0 to delete in 1 of 1 tenant\n',
    ]);
  });

  it('judges a saved plan again on the caller’s grants at apply time (exit 6, nothing sent)', async () => {
    const file = writeFile(
      dir,
      'later.yaml',
      `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n${grant(7, 'ops', '30m')}`,
    );
    const saved = join(dir, 'later.plan.json');
    const clock = fixedClock();
    expect((await svc.run(['plan', '-f', file, '--out', saved], { env: delegate, clock })).code).toBe(10);
    // Another administrator shortens the delegate's own grant to 10 minutes.
    const sandbox = svc.sandbox();
    const now = Date.parse((await call(sandbox, 'GET', '/_sandbox/clock')).body.now);
    await as(sandbox, LABS, 'PATCH', `/v1/users/${user(2)}/roles/${delegatesId}`, {
      expires_at: isoSeconds(now + 10 * 60_000),
      justification: 'shortened',
    });
    const before = await writes(sandbox);
    const r = await svc.run(['apply', saved, '--yes'], { env: delegate, clock });
    expect([r.code, r.stdout]).toEqual([6, '']);
    expect(r.stderr.split('\n').slice(-2)).toEqual([
      `error: your own grants changed since ${saved} was computed, and 1 of its changes (each on a line above) would now change your own grants, take away your own administration, leave a tenant without an administrator, stop the API key you are applying with, hand out more than you hold, need a permission held without an end date that you hold only until a date (a webhook, an OAuth client), or create or change an OAuth client with an API key or a third-party client's token (only a user with their own login may); nothing was applied; run \`svc plan -f ${file} --out ${saved}\` again and review the new plan`,
      '',
    ]);
    expect(r.stderr).toContain(
      `acme-labs: grant ops to ${user(7)}: the platform refuses it (insufficient_permission): you cannot hand out access that outlives your own`,
    );
    expect(await writes(sandbox)).toBe(before);
  });
});

// Exploratory test s8 (attacker 1, 2): a widen reaches the role's live holders until their
// grants end, and an API key makes no role that mints keys; svc plan predicts both.
describe('svc plan predicts the widen rules', () => {
  it('refuses widening a role held longer than the caller holds what it adds, and keys making key minters', async () => {
    const sandbox = svc.sandbox();
    const now = Date.parse((await call(sandbox, 'GET', '/_sandbox/clock')).body.now);
    const ends = isoSeconds(now + 60 * 60_000);
    const kept = await as(sandbox, LABS, 'POST', '/v1/roles', { name: 'kept', permissions: ['rule.read'] });
    const brief = await as(sandbox, LABS, 'POST', '/v1/roles', { name: 'brief', permissions: ['rule.read'] });
    const grantBy = (n: number, role: string, expires_at?: string) =>
      as(sandbox, LABS, 'POST', `/v1/users/${user(n)}/roles`, {
        role_id: role,
        ...(expires_at ? { expires_at } : {}),
        justification: 'widen rules',
      });
    await grantBy(8, delegatesId, ends);
    await grantBy(9, kept.id);
    await grantBy(1, brief.id, isoSeconds(now + 30 * 60_000));
    const jit = { SVC_TOKEN: sandbox.issueToken(user(8)).token, SVC_TENANT: LABS };
    const file = writeFile(
      dir,
      'widen.yaml',
      'version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n' +
        '      - name: kept\n        permissions: [rule.read, role.read]\n' +
        '      - name: brief\n        permissions: [rule.read, role.read]\n',
    );
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { env: jit, clock: fixedClock() });
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'update',
        'kept',
        refused(
          'insufficient_permission',
          `you cannot hand out access that outlives your own: you hold role.read only until ${ends}, and ${user(9)} holds kept permanently; end their grants of kept by ${ends} first, or have someone who holds it longer make this change`,
        ),
      ],
      ['update', 'brief', null],
    ]);

    const minted = await call(sandbox, 'POST', '/_sandbox/api-keys', {
      body: { tenant_id: LABS, kind: 'service_role' },
    });
    const byKey = { SVC_TOKEN: minted.body.key as string, SVC_TENANT: LABS };
    const keyFile = writeFile(
      dir,
      'minter.yaml',
      'version: 1\nblocks:\n  - tenants: acme-labs\n    roles:\n' +
        '      - name: brief\n        permissions: [rule.read, api_key.manage]\n' +
        '      - name: minter\n        permissions: [api_key.manage]\n',
    );
    const byKeyPlan = await svc.run(['plan', '-f', keyFile, '--ndjson'], { env: byKey, clock: fixedClock() });
    expect(ndjson(byKeyPlan.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'update',
        'brief',
        refused(
          'user_required',
          'API keys cannot put api_key.manage into brief: keys cannot mint keys, nor make a role that can; a person must change it',
        ),
      ],
      [
        'create',
        'minter',
        refused(
          'user_required',
          'API keys cannot create minter with api_key.manage: keys cannot mint keys, nor make a role that can; a person must create it',
        ),
      ],
    ]);
  });

  // attack17 A4: a key's OAuth client, its redirect URIs and scopes would outlive the key.
  it('refuses a key creating or changing an OAuth client (user_required), and plans deleting one', async () => {
    const sandbox = svc.sandbox();
    for (const name of ['kept-portal', 'old-portal']) {
      await as(sandbox, LABS, 'POST', '/v1/oauth/clients', {
        name,
        redirect_uris: ['https://portal.example/cb'],
        scopes: ['read:exceptions'],
      });
    }
    const minted = await call(sandbox, 'POST', '/_sandbox/api-keys', {
      body: { tenant_id: LABS, kind: 'service_role' },
    });
    const byKey = { SVC_TOKEN: minted.body.key as string, SVC_TENANT: LABS };
    const file = writeFile(
      dir,
      'clients.yaml',
      'version: 1\nmanage:\n  oauth_clients: all\nblocks:\n  - tenants: acme-labs\n    oauth_clients:\n' +
        '      - name: kept-portal\n        scopes: [read:exceptions]\n' +
        '        redirect_uris: [https://portal.example/cb, https://vendor.example/steal]\n' +
        '      - name: new-portal\n        scopes: [admin]\n        redirect_uris: [https://vendor.example/cb]\n',
    );
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], { env: byKey, clock: fixedClock() });
    const rows = ndjson(planned.stdout);
    expect(rows.map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'update',
        'kept-portal',
        refused(
          'user_required',
          "changing OAuth clients is for users; API keys cannot do it: a client's settings (where its codes go, what its tokens reach, how long they last) would outlive the key; ask a user to do it with their own login",
        ),
      ],
      [
        'create',
        'new-portal',
        refused(
          'user_required',
          'creating OAuth clients is for users; API keys cannot do it: an OAuth client and its secret would outlive the key; ask a user to do it with their own login',
        ),
      ],
      ['delete', 'old-portal', null],
    ]);
  });
});
