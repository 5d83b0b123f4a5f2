import { describe, expect, it } from 'vitest';
import { tenantId } from '../../../src/sandbox/seed.js';
import { bulkRunner, bulkUser } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

// A revoke file that also takes away the caller's own tenant_admin (exploratory test s12, scale12
// C1): the dry run promised every row; the real run made the caller's own row first (file order),
// and every later row failed with insufficient_role, the caller locked out of the tenant. The
// caller's own rows now run last, after every other row has finished, in the dry run and the
// real run alike, so the dry run's order and prediction are the real run's.
const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
// Every DELETE of user 5's grants loses its answer (the sandbox made it): its outcome stays unknown.
const proxy = useLossyProxy(sandbox, {
  lose: (method, path) => method === 'DELETE' && path.includes(`/${bulkUser(5)}/`) && 'drop',
});
// GET /v1/me is never answered (a 503 after the retries, or a dropped connection): svc cannot tell
// which rows are the caller's own (exploratory test s12, review-e H1).
let meLoss: true | 'drop' = true;
const noMe = useLossyProxy(sandbox, {
  lose: (method, path) => method === 'GET' && path.startsWith('/v1/me') && meLoss,
});
let keys = 0;

async function grant(slug: string, user: string, role: string) {
  const r = await call(sandbox(), 'POST', `/v1/users/${user}/roles`, {
    token: sandbox().adminToken,
    tenant: tenantId(slug),
    body: { role_id: role, justification: 'setup', idempotency_key: `self-last-${++keys}` },
  });
  expect(r.status, r.text).toBe(201);
}

const revoke = (slug: string, path: string, more: string[]) =>
  svc.run(['roles', 'revoke', '--file', path, '--ndjson', ...more], { env: { SVC_TENANT: tenantId(slug) } });

/** Each result as [line, plan or status, user, error code]; the rows before the last in line order (they run at once). */
function outline(stdout: string) {
  const rows = ndjson(stdout).map((r) => [r.line, r.plan ?? r.status, r.user, r.error?.code ?? null]);
  return [...rows.slice(0, -1).sort((a, b) => a[0] - b[0]), ...rows.slice(-1)];
}

describe('svc roles revoke --file with a row that takes away your own tenant_admin', () => {
  it('does every other row first and your own last; the dry run says so, in the same order', async () => {
    const slug = 'acme-labs';
    await grant(slug, bulkUser(1), 'tenant_admin');
    await grant(slug, bulkUser(2), 'tenant_viewer');
    await grant(slug, bulkUser(3), 'tenant_viewer');
    const path = svc.file(
      'self-first.csv',
      `user,role\nusr_admin,tenant_admin\n${bulkUser(2)},tenant_viewer\n${bulkUser(3)},tenant_viewer\n`,
    );
    const expected = [
      [3, 'revoke', bulkUser(2), null],
      [4, 'revoke', bulkUser(3), null],
      [2, 'revoke', 'usr_admin', null],
    ];
    const dry = await revoke(slug, path, ['--dry-run', '--concurrency', '8']);
    expect([dry.code, outline(dry.stdout), dry.stderr]).toEqual([
      0,
      expected,
      'dry run: 3 would be revoked, 0 would be skipped, 0 would fail; nothing was changed\n' +
        // The caller's own row, said so (attack29a F2).
        'warning: line 2 is your own tenant_admin grant (usr_admin): it is made after every other row\n',
    ]);
    const real = await revoke(slug, path, ['--yes', '--concurrency', '8']);
    expect([real.code, outline(real.stdout)]).toEqual([0, expected.map(([l, , u]) => [l, 'ok', u, null])]);
    expect(real.stderr).toMatch(/^✓ 3 revoked in /);
  });

  it('your own row before the only other admin: the other is revoked, yours refused as the last admin (dry run = real run)', async () => {
    const slug = 'acme-ledger-uk';
    await grant(slug, bulkUser(4), 'tenant_admin');
    const path = svc.file(
      'self-then-other.csv',
      `user,role\nusr_admin,tenant_admin\n${bulkUser(4)},tenant_admin\n`,
    );
    const expected = [
      [3, 'revoke', bulkUser(4), null],
      [2, 'fail', 'usr_admin', 'last_tenant_admin'],
    ];
    const dry = await revoke(slug, path, ['--dry-run']);
    expect([dry.code, outline(dry.stdout)]).toEqual([7, expected]);
    const real = await revoke(slug, path, ['--yes']);
    expect([real.code, outline(real.stdout)]).toEqual([
      7,
      [
        [3, 'ok', bulkUser(4), null],
        [2, 'failed', 'usr_admin', 'last_tenant_admin'],
      ],
    ]);
  });

  it('your own row is not made while an earlier row is still owed; the same command then finishes both', async () => {
    const slug = 'acme-apac';
    await grant(slug, bulkUser(6), 'tenant_admin');
    await grant(slug, bulkUser(5), 'tenant_viewer');
    const path = svc.file('owed.csv', `user,role\nusr_admin,tenant_admin\n${bulkUser(5)},tenant_viewer\n`);
    const lossy = await svc.run(['roles', 'revoke', '--file', path, '--yes', '--ndjson'], {
      env: { SVC_TENANT: tenantId(slug), SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' },
    });
    const rows = ndjson(lossy.stdout);
    expect([lossy.code, rows.map((r) => [r.line, r.status, r.outcome ?? null, r.error?.code])]).toEqual([
      7,
      [
        [3, 'failed', 'unknown', 'connection_error'],
        [2, 'failed', null, 'own_row_deferred'],
      ],
    ]);
    expect(rows[1].error.message).toBe(
      'not attempted: it revokes your own tenant_admin, made last, and 1 earlier row did not finish; run the same command again to finish them first',
    );
    // usr_admin is still an administrator: the same command settles row 3, then revokes its own grant.
    const again = await revoke(slug, path, ['--yes']);
    expect([again.code, outline(again.stdout)]).toEqual([
      0,
      [
        // The lost attempt had revoked it.
        [3, 'skipped', bulkUser(5), null],
        [2, 'ok', 'usr_admin', null],
      ],
    ]);
  });

  it.each([
    ['answers 503', true],
    ['drops the connection', 'drop'],
  ] as const)(
    'GET /v1/me %s: nothing is revoked (your own row would run in file order); the dry run cannot predict',
    async (_what, loss) => {
      meLoss = loss;
      const slug = loss === true ? 'acme-payments-eu' : 'acme-treasury';
      const user = bulkUser(loss === true ? 7 : 9);
      await grant(slug, bulkUser(loss === true ? 8 : 10), 'tenant_admin');
      await grant(slug, user, 'tenant_viewer');
      const path = svc.file(
        `no-me-${loss}.csv`,
        `user,role\nusr_admin,tenant_admin\n${user},tenant_viewer\n`,
      );
      const env = { SVC_TENANT: tenantId(slug), SVC_BASE_URL: noMe().url, SVC_MAX_RETRIES: '0' };
      const real = await svc.run(['roles', 'revoke', '--file', path, '--yes'], { env });
      expect([real.code, real.stdout]).toEqual([1, '']);
      expect(real.stderr).toMatch(
        /^error: could not learn who you are \(GET \/v1\/me: [^\n]+\); nothing was revoked; try again\n$/,
      );
      expect(noMe().deletes).toEqual([]);
      const dry = await svc.run(['roles', 'revoke', '--file', path, '--dry-run', '--json'], { env });
      expect([dry.code, dry.stdout]).toEqual([1, '']);
      const error = JSON.parse(dry.stderr).error;
      expect([error.code, error.message]).toEqual([
        'not_checked',
        expect.stringMatching(
          /^could not learn who you are \(GET \/v1\/me: [^\n]+\): the dry run cannot tell which rows take away your own roles \(the real run makes them last\); nothing was changed; run the dry run again$/,
        ),
      ]);
      // Both grants are still there: with /v1/me answered, the same command revokes yours last.
      const again = await revoke(slug, path, ['--yes']);
      expect([again.code, outline(again.stdout)]).toEqual([
        0,
        [
          [3, 'ok', user, null],
          [2, 'ok', 'usr_admin', null],
        ],
      ]);
    },
  );
});
