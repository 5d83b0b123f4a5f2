import { beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { as, LABS, user, writeFile, writes } from '../../helpers/ascode.js';
import { ndjson } from '../../helpers/context.js';
import { call, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

// svc plan predicts the platform's last-tenant-admin rule (409 last_tenant_admin, exploratory test
// s7): a plan revoking every tenant_admin of a tenant, or moving the expiry of the grant that ends
// last sooner, was planned as if it would go through, and svc apply stopped part-way with 409.
// Such a change is planned as refused, as a lockout is, and svc apply sends nothing.
const svc = useSandboxContext({ users: 5 }, { tenant: false });
const dir = useTempDir('svc-plan-last-admin-');
const real = { clock: { now: () => Date.now() } };
// usr_admin's own grant ends in an hour; user(1) holds the only permanent one.
let adminEnds = '';
let sooner = '';

beforeAll(async () => {
  const sandbox = svc.sandbox();
  const now = await sandboxNow(sandbox);
  adminEnds = isoSeconds(now + 60 * 60_000);
  sooner = isoSeconds(now + 30 * 60_000);
  await as(sandbox, LABS, 'POST', `/v1/users/${user(1)}/roles`, {
    role_id: 'tenant_admin',
    justification: 'second admin',
  });
  const other = sandbox.issueToken(user(1), { expiresInSeconds: 3600 }).token;
  const moved = await call(sandbox, 'PATCH', '/v1/users/usr_admin/roles/tenant_admin', {
    token: other,
    tenant: LABS,
    body: { expires_at: adminEnds, justification: 'rotation' },
  });
  expect(moved.status, moved.text).toBe(200);
});

const leaves = () =>
  `would leave acme-labs without an administrator after ${adminEnds}, when every other tenant_admin grant has ended; first grant tenant_admin permanently to someone else`;

describe('svc plan and the last tenant_admin', () => {
  it('plans --prune of every tenant_admin with the revocation of the last one refused; apply --prune sends nothing', async () => {
    const file = writeFile(
      dir,
      'prune.yaml',
      'version: 1\nmanage: {grants: all}\nblocks:\n  - tenants: acme-labs\n',
    );
    const planned = await svc.run(['plan', '-f', file, '--ndjson'], real);
    expect(planned.code).toBe(10);
    expect(ndjson(planned.stdout).map((c) => [c.verb, c.name, c.refused ?? null])).toEqual([
      [
        'revoke',
        'usr_admin tenant_admin',
        'it would take away your own administration of acme-labs (role.read, role.manage, role.assign, webhook.read, webhook.manage, oauth_client.manage); keep it in the file, or have another administrator make this change',
      ],
      [
        'revoke',
        `${user(1)} tenant_admin`,
        `the platform refuses it (last_tenant_admin): revoking ${user(1)}'s tenant_admin ${leaves()}`,
      ],
    ]);
    const before = await writes(svc.sandbox());
    const applied = await svc.run(['apply', '-f', file, '--prune', '--yes'], real);
    expect(applied.code).toBe(2);
    expect(applied.stderr).toContain(
      `acme-labs: revoke tenant_admin from ${user(1)}: the platform refuses it (last_tenant_admin): revoking ${user(1)}'s tenant_admin ${leaves()}`,
    );
    expect(await writes(svc.sandbox())).toBe(before);
  });

  const SHORTEN = () =>
    `version: 1\nblocks:\n  - tenants: acme-labs\n    grants:\n      - user: ${user(1)}\n        role: tenant_admin\n        expires_at: ${sooner}\n        justification: rotate\n`;
  const refusal = () =>
    `the platform refuses it (last_tenant_admin): moving the expiry of ${user(1)}'s tenant_admin to ${sooner} ${leaves()}`;
  const warning =
    'warning: svc apply refuses 1 of these changes: they would change your own grants, take away your own administration, leave a tenant without an administrator, stop the API key you are applying with, hand out more than you hold, need a permission held without an end date that you hold only until a date (a webhook, an OAuth client), or create or change an OAuth client with an API key or a third-party client\'s token (only a user with their own login may) (see "refused")\n';

  it.each([
    [
      'a terminal',
      { tty: { stdout: true }, columns: 200 },
      () =>
        'Acme Labs (acme-labs)\n' +
        `  ~ shorten tenant_admin of ${user(1)}: never → ${sooner}  (line 5)\n` +
        `      ! svc apply refuses this: ${refusal()}\n`,
    ],
    [
      'a pipe',
      {},
      () =>
        `acme-labs\tgrant\tshorten\t${user(1)} tenant_admin\t\t5\tnever → ${sooner}; refused: ${refusal()}\n`,
    ],
  ])(
    'plans moving the expiry of the grant that ends last sooner as refused, on %s',
    async (_name, io, expected) => {
      const file = writeFile(dir, 'shorten.yaml', SHORTEN());
      const r = await svc.run(['plan', '-f', file], { ...real, ...io });
      expect([r.code, r.stdout, r.stderr]).toEqual([
        10,
        expected(),
        'plan: 0 to create, 1 to update, 0 to delete in 1 of 1 tenant\n' + warning,
      ]);
    },
  );

  it('says the same with --json and --ndjson, and svc apply sends nothing', async () => {
    const file = writeFile(dir, 'shorten.yaml', SHORTEN());
    const json = await svc.run(['plan', '-f', file, '--json'], real);
    expect(json.code).toBe(10);
    const doc = JSON.parse(json.stdout);
    expect(doc.summary).toEqual({
      tenants: 1,
      tenants_changed: 1,
      create: 0,
      update: 1,
      delete: 0,
      refused: 1,
    });
    expect(
      doc.tenants[0].changes.map((c: { verb: string; refused?: string }) => [c.verb, c.refused]),
    ).toEqual([['shorten', refusal()]]);
    const lines = await svc.run(['plan', '-f', file, '--ndjson'], real);
    expect(ndjson(lines.stdout).map((c) => [c.slug, c.verb, c.name, c.refused])).toEqual([
      ['acme-labs', 'shorten', `${user(1)} tenant_admin`, refusal()],
    ]);
    const before = await writes(svc.sandbox());
    const applied = await svc.run(['apply', '-f', file, '--yes'], real);
    expect([applied.code, applied.stdout, applied.stderr]).toEqual([
      2,
      '',
      `error: svc apply refuses acme-labs: shorten tenant_admin of ${user(1)}: ${refusal()}; nothing was applied\n`,
    ]);
    expect(await writes(svc.sandbox())).toBe(before);
  });
});
