import { describe, expect, it } from 'vitest';
import { BUILTIN_ROLE_DEFINITIONS } from '../../../src/api/permissions.js';
import { isoSeconds } from '../../../src/api/time.js';
import { tenantId } from '../../../src/sandbox/seed.js';
import { bulkRunner, bulkUser, fixedClock, lastJson } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

// A dry run predicts the platform's last-tenant-admin rule (409 last_tenant_admin, exploratory
// test s7): a file revoking every tenant_admin of a tenant dry-ran clean ("2 would be revoked")
// and the real run stopped part-way with 409. The rule is played over the tenant's live
// tenant_admin grants in file order; the real run still reports the platform's own answer.
/** The dry run's warning of the caller's own row (attack29a F2). */
const OWN = (line: number) =>
  `warning: line ${line} is your own tenant_admin grant (usr_admin): it is made after every other row`;

const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
let keys = 0;

/** tenant_admin of `slug` to a user, as the sandbox's admin (permanent unless `expiresAt`). */
async function admin(slug: string, userId: string, expiresAt?: string) {
  const r = await call(sandbox(), 'POST', `/v1/users/${userId}/roles`, {
    token: sandbox().adminToken,
    tenant: tenantId(slug),
    body: {
      role_id: 'tenant_admin',
      ...(expiresAt ? { expires_at: expiresAt } : {}),
      justification: 'cover',
      idempotency_key: `last-admin-file-${++keys}`,
    },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.audit_trail_id as string;
}

const dryRun = (slug: string, path: string, mode: string[], table = false) =>
  svc.run(['roles', 'revoke', '--file', path, '--dry-run', '--concurrency', '1', ...mode], {
    env: { SVC_TENANT: tenantId(slug) },
    ...(table ? { mode: 'table' as const } : {}),
  });

const LAST = (slug: string) =>
  `usr_admin is the last active tenant_admin of ${slug}; grant tenant_admin to someone else first`;

describe('svc roles revoke --file --dry-run and the last tenant_admin', () => {
  it('a file revoking every (permanent) tenant_admin: the last row would fail, in every mode; the real run agrees', async () => {
    const slug = 'acme-payments-eu';
    const audit = await admin(slug, bulkUser(1));
    const path = svc.file(
      'all-admins.csv',
      `user,role\n${bulkUser(1)},tenant_admin\nusr_admin,tenant_admin\n`,
    );
    const seeded = (
      await call(sandbox(), 'GET', '/v1/users/usr_admin/roles', {
        token: sandbox().adminToken,
        tenant: tenantId(slug),
      })
    ).body.items.find((a: { role_id: string }) => a.role_id === 'tenant_admin').audit_trail_id;
    const summary =
      'dry run: 1 would be revoked, 0 would be skipped, 1 would fail\n' +
      // The caller's own row, said so (attack29a F2).
      `${OWN(3)}\n` +
      `error: 1 of 2 items would fail: line 3: ${LAST(slug)}; nothing was changed; fix them before running without --dry-run\n`;

    const plain = await dryRun(slug, path, []);
    expect([plain.code, plain.stdout, plain.stderr]).toEqual([
      7,
      `2\trevoke\t${bulkUser(1)}\ttenant_admin\t\t${audit}\t\n` +
        `3\tfail\tusr_admin\ttenant_admin\t\t${seeded}\t${LAST(slug)}\n`,
      summary,
    ]);

    const table = await dryRun(slug, path, [], true);
    expect(table.code).toBe(7);
    expect(table.stdout.trimEnd().split('\n')).toEqual([
      // 160 columns: the table fits the detail first; a time (its header too) is never cut.
      'LINE  PLAN    USER             ROLE    REVOKED  GRANT AUDIT ID                DETAIL',
      `2     revoke  ${bulkUser(1)}  tenan…  -        ${audit}  -`,
      `3     fail    usr_admin        tenan…  -        ${seeded}  ${LAST(slug).slice(0, 81)}…`,
    ]);
    expect(table.stderr).toBe(summary);

    const error = { code: 'last_tenant_admin', message: LAST(slug) };
    const rows = [
      {
        line: 2,
        plan: 'revoke',
        user: bulkUser(1),
        role: 'tenant_admin',
        role_id: 'tenant_admin',
        tenant_id: tenantId(slug),
        audit_trail_id: audit,
        dry_run: true,
      },
      {
        line: 3,
        plan: 'fail',
        user: 'usr_admin',
        role: 'tenant_admin',
        role_id: 'tenant_admin',
        note: 'your own grant: made after every other row',
        tenant_id: tenantId(slug),
        audit_trail_id: seeded,
        error,
        dry_run: true,
      },
    ];
    const json = await dryRun(slug, path, ['--json']);
    expect(json.code).toBe(7);
    expect(JSON.parse(json.stdout)).toEqual(rows);
    expect(lastJson(json.stderr).error.message).toBe(`1 of 2 items would fail: line 3: ${LAST(slug)}`);
    const lines = await dryRun(slug, path, ['--ndjson']);
    expect([lines.code, ndjson(lines.stdout)]).toEqual([7, rows]);
    expect(lines.stderr.split('\n')[0]).toBe('dry run: 1 would be revoked, 0 would be skipped, 1 would fail');

    // The real run: the platform revokes the first and refuses the last (its own 409).
    const real = await svc.run(
      ['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'],
      {
        env: { SVC_TENANT: tenantId(slug) },
      },
    );
    expect(real.code).toBe(7);
    expect(
      ndjson(real.stdout).map((r) => [r.line, r.status, r.error?.code ?? null, r.error?.message ?? null]),
    ).toEqual([
      [2, 'ok', null, null],
      [3, 'failed', 'last_tenant_admin', LAST(slug)],
    ]);
  });

  it('refuses revoking a permanent admin while the only other one expires in 15 minutes', async () => {
    const slug = 'acme-ledger-uk';
    const clock = fixedClock();
    const cover = isoSeconds(clock.ms + 15 * 60_000);
    await admin(slug, bulkUser(2), cover);
    const path = svc.file('permanent.csv', `user,role\nusr_admin,tenant_admin\n`);
    const r = await dryRun(slug, path, ['--ndjson']);
    const message = `revoking usr_admin's tenant_admin would leave ${slug} without an administrator after ${cover}, when every other tenant_admin grant has ended; first grant tenant_admin permanently to someone else`;
    expect(r.code).toBe(7);
    expect(ndjson(r.stdout).map((row) => [row.plan, row.error])).toEqual([
      ['fail', { code: 'last_tenant_admin', message }],
    ]);
    const [counts, own, error] = r.stderr.trimEnd().split('\n');
    expect(counts).toBe('dry run: 0 would be revoked, 0 would be skipped, 1 would fail');
    expect(own).toBe(OWN(2));
    expect(JSON.parse(error!).error).toEqual({
      code: 'would_fail',
      message: `1 of 1 item would fail: line 2: ${message}`,
      exit_code: 7,
      hint: 'nothing was changed; fix them before running without --dry-run',
    });
  });

  it('allows revoking a permanent admin while another permanent one remains', async () => {
    const slug = 'acme-apac';
    await admin(slug, bulkUser(3));
    const path = svc.file('another.csv', `user,role\nusr_admin,tenant_admin\n`);
    const r = await dryRun(slug, path, []);
    expect([r.code, r.stdout.split('\t').slice(0, 4), r.stderr]).toEqual([
      0,
      ['2', 'revoke', 'usr_admin', 'tenant_admin'],
      `dry run: 1 would be revoked, 0 would be skipped, 0 would fail; nothing was changed\n${OWN(2)}\n`,
    ]);
  });

  it('assign --file --extend --dry-run: moving the only permanent grant sooner would fail; a new admin row first makes it pass', async () => {
    const slug = 'acme-treasury';
    const clock = fixedClock();
    const adminEnds = isoSeconds(clock.ms + 60 * 60_000);
    const sooner = isoSeconds(clock.ms + 30 * 60_000);
    await admin(slug, bulkUser(4));
    // user 6 may hand out tenant_admin for good (every permission, permanently, and not as a
    // tenant_admin): usr_admin, whose own grant ends in an hour, may not.
    const everything = await call(sandbox(), 'POST', '/v1/roles', {
      token: sandbox().adminToken,
      tenant: tenantId(slug),
      body: {
        name: 'everything',
        permissions: BUILTIN_ROLE_DEFINITIONS.tenant_admin.permissions,
        idempotency_key: 'everything',
      },
    });
    expect(everything.status, everything.text).toBe(201);
    await call(sandbox(), 'POST', `/v1/users/${bulkUser(6)}/roles`, {
      token: sandbox().adminToken,
      tenant: tenantId(slug),
      body: { role_id: everything.body.id, justification: 'cover', idempotency_key: 'everything-6' },
    });
    // usr_admin's own grant now ends in an hour (moved by the other admin): user 4's ends last.
    const moved = await call(sandbox(), 'PATCH', '/v1/users/usr_admin/roles/tenant_admin', {
      token: sandbox().issueToken(bulkUser(4), { expiresInSeconds: 3600 }).token,
      tenant: tenantId(slug),
      body: { expires_at: adminEnds, justification: 'rotation' },
    });
    expect(moved.status, moved.text).toBe(200);
    const header = 'user,role,expires_in,expires_at,justification\n';
    const shorten = `${bulkUser(4)},tenant_admin,,${sooner},rotate\n`;
    const run = (path: string, env: Record<string, string> = {}) =>
      svc.run(
        ['roles', 'assign', '--file', path, '--extend', '--dry-run', '--ndjson', '--concurrency', '1'],
        {
          env: { SVC_TENANT: tenantId(slug), ...env },
          clock,
        },
      );
    const alone = await run(svc.file('shorten.csv', header + shorten));
    const message = `moving the expiry of ${bulkUser(4)}'s tenant_admin to ${sooner} would leave ${slug} without an administrator after ${adminEnds}, when every other tenant_admin grant has ended; first grant tenant_admin permanently to someone else`;
    expect([alone.code, ndjson(alone.stdout)]).toEqual([
      7,
      [
        {
          line: 2,
          plan: 'fail',
          user: bulkUser(4),
          role: 'tenant_admin',
          role_id: 'tenant_admin',
          tenant_id: tenantId(slug),
          previous_expires_at: null,
          error: { code: 'last_tenant_admin', message },
          dry_run: true,
        },
      ],
    ]);
    // A permanent grant to someone else first (file order): the move is then allowed, made by
    // someone who may hand out tenant_admin for good.
    const coverFile = svc.file(
      'covered.csv',
      `${header}${bulkUser(5)},tenant_admin,never,,cover\n${shorten}`,
    );
    const covered = await run(coverFile, { SVC_TOKEN: sandbox().issueToken(bulkUser(6)).token });
    expect([covered.code, ndjson(covered.stdout).map((r) => [r.line, r.plan, r.error ?? null])]).toEqual([
      0,
      [
        [2, 'grant', null],
        [3, 'extend', null],
      ],
    ]);
    // usr_admin may not make the cover (it would outlive their own grant): it covers nothing.
    const uncovered = await run(coverFile);
    expect([
      uncovered.code,
      ndjson(uncovered.stdout).map((r) => [r.line, r.plan, r.error?.code ?? null]),
    ]).toEqual([
      7,
      [
        [2, 'fail', 'insufficient_permission'],
        [3, 'fail', 'last_tenant_admin'],
      ],
    ]);
  });
});
