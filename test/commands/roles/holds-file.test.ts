import { beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { ACME, bulkRunner, bulkUser, fixedClock } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

// A dry run predicts the platform's "no one hands out more than they hold" (exploratory test s7):
// a delegated admin with role.read + role.assign but not every permission of a role, or whose own
// grant ends in an hour while the file asks 8h, got a clean dry run, and the real run then failed
// with 403 insufficient_permission (exit 7). The dry run now plans those rows as `fail` with the
// platform's code, read from the caller's own grants; the real run still reports the platform's
// own answer (and agrees).
const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
const DELEGATE = bulkUser(1);
let delegate: Record<string, string>;
let holdEnds = '';
let keys = 0;

async function admin(method: string, path: string, body: Record<string, unknown>) {
  const r = await call(sandbox(), method, path, {
    token: sandbox().adminToken,
    tenant: ACME,
    body: { ...body, idempotency_key: `holds-file-${++keys}` },
  });
  expect(r.status, r.text).toBeLessThan(300);
  return r.body;
}

beforeAll(async () => {
  const now = Date.parse((await call(sandbox(), 'GET', '/_sandbox/clock')).body.now);
  holdEnds = isoSeconds(now + 60 * 60_000);
  const assigner = await admin('POST', '/v1/roles', {
    name: 'assigner',
    permissions: ['role.read', 'role.assign', 'exception.read'],
  });
  const ops = await admin('POST', '/v1/roles', { name: 'ops', permissions: ['exception.read'] });
  await admin('POST', `/v1/users/${DELEGATE}/roles`, {
    role_id: assigner.id,
    expires_at: holdEnds,
    justification: 'delegated for an hour',
  });
  await admin('POST', `/v1/users/${bulkUser(6)}/roles`, { role_id: 'tenant_viewer', justification: 'x' });
  await admin('POST', `/v1/users/${bulkUser(7)}/roles`, { role_id: ops.id, justification: 'x' });
  delegate = { SVC_TOKEN: sandbox().issueToken(DELEGATE).token };
});

const LACK = (verb: string, role: string) =>
  `you can only grant or revoke roles whose permissions you hold; you lack account.read, reconciliation.read; have someone who holds them ${verb} ${role}`;
const OUTLIVES = () =>
  `you cannot hand out access that outlives your own: you hold the permissions of ops only until ${holdEnds}; set expires_at to ${holdEnds} or earlier`;
const SELF = 'you cannot grant roles to yourself; ask another administrator';

describe('svc roles assign --file --dry-run as a delegated admin', () => {
  const GRANTS =
    'user,role,expires_in,justification\n' +
    `${bulkUser(2)},tenant_viewer,30m,cover\n` +
    `${bulkUser(3)},ops,30m,cover\n` +
    `${bulkUser(4)},ops,8h,cover\n` +
    `${bulkUser(5)},ops,never,cover\n` +
    `${DELEGATE},ops,30m,cover\n`;

  it('plans the rows the platform would refuse as fail, in every mode, and the real run agrees', async () => {
    const path = svc.file('grants.csv', GRANTS);
    const clock = fixedClock();
    const in30m = isoSeconds(clock.ms + 30 * 60_000);
    const run = (mode: string[], table = false) =>
      svc.run(['roles', 'assign', '--file', path, '--dry-run', '--concurrency', '1', ...mode], {
        env: delegate,
        clock,
        ...(table ? { mode: 'table' as const } : {}),
      });
    const summary =
      'dry run: 1 would be granted, 0 would be skipped, 4 would fail\n' +
      `error: 4 of 5 items would fail: line 2: ${LACK('grant', 'tenant_viewer')}; line 4: ${OUTLIVES()}; line 5: ${OUTLIVES()}; and 1 more; nothing was changed; fix them before running without --dry-run\n`;

    const plain = await run([]);
    expect([plain.code, plain.stdout, plain.stderr]).toEqual([
      7,
      `2\tfail\t${bulkUser(2)}\ttenant_viewer\t\t\t${LACK('grant', 'tenant_viewer')}\n` +
        `3\tgrant\t${bulkUser(3)}\tops\t${in30m}\t\t\n` +
        `4\tfail\t${bulkUser(4)}\tops\t\t\t${OUTLIVES()}\n` +
        `5\tfail\t${bulkUser(5)}\tops\t\t\t${OUTLIVES()}\n` +
        `6\tfail\t${DELEGATE}\tops\t\t\t${SELF}\n`,
      summary,
    ]);

    const table = await run([], true);
    expect(table.code).toBe(7);
    expect(
      table.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split(/\s+/).slice(0, 4).join(' ')),
    ).toEqual([
      'LINE PLAN USER ROLE',
      `2 fail ${bulkUser(2)} tenan…`,
      `3 grant ${bulkUser(3)} ops`,
      `4 fail ${bulkUser(4)} ops`,
      `5 fail ${bulkUser(5)} ops`,
      `6 fail ${DELEGATE} ops`,
    ]);
    expect(table.stderr).toBe(summary);

    const errors = [
      { code: 'insufficient_permission', message: LACK('grant', 'tenant_viewer') },
      undefined,
      { code: 'insufficient_permission', message: OUTLIVES() },
      { code: 'insufficient_permission', message: OUTLIVES() },
      { code: 'self_assignment', message: SELF },
    ];
    const json = await run(['--json']);
    expect(json.code).toBe(7);
    expect(JSON.parse(json.stdout).map((r: { plan: string; error?: unknown }) => [r.plan, r.error])).toEqual(
      errors.map((e) => [e ? 'fail' : 'grant', e]),
    );
    const lines = await run(['--ndjson']);
    expect([lines.code, ndjson(lines.stdout).map((r) => r.error)]).toEqual([7, errors]);

    // The real run: the platform refuses the same rows with the same codes.
    const real = await svc.run(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1'], {
      env: delegate,
      clock,
    });
    expect(real.code).toBe(7);
    expect(ndjson(real.stdout).map((r) => [r.line, r.status, r.error?.code ?? null])).toEqual([
      [2, 'failed', 'insufficient_permission'],
      [3, 'ok', null],
      [4, 'failed', 'insufficient_permission'],
      [5, 'failed', 'insufficient_permission'],
      [6, 'failed', 'self_assignment'],
    ]);
  });

  it('with --extend, moving a held grant past the caller’s own hold would fail too', async () => {
    const path = svc.file('extend.csv', `user,role,expires_in,justification\n${bulkUser(7)},ops,8h,longer\n`);
    const r = await svc.run(['roles', 'assign', '--file', path, '--extend', '--dry-run', '--ndjson'], {
      env: delegate,
    });
    expect(r.code).toBe(7);
    expect(ndjson(r.stdout).map((row) => [row.plan, row.error])).toEqual([
      ['fail', { code: 'insufficient_permission', message: OUTLIVES() }],
    ]);
  });
});

describe('svc roles revoke --file --dry-run as a delegated admin', () => {
  it('plans revoking a role whose permissions the caller lacks as fail; the real run agrees', async () => {
    const path = svc.file('revoke.csv', `user,role\n${bulkUser(6)},tenant_viewer\n${bulkUser(7)},ops\n`);
    const dry = await svc.run(
      ['roles', 'revoke', '--file', path, '--dry-run', '--ndjson', '--concurrency', '1'],
      {
        env: delegate,
      },
    );
    expect(dry.code).toBe(7);
    expect(ndjson(dry.stdout).map((r) => [r.line, r.plan, r.error ?? null])).toEqual([
      [2, 'fail', { code: 'insufficient_permission', message: LACK('revoke', 'tenant_viewer') }],
      [3, 'revoke', null],
    ]);
    expect(dry.stderr.split('\n')[0]).toBe('dry run: 1 would be revoked, 0 would be skipped, 1 would fail');

    const real = await svc.run(
      ['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'],
      {
        env: delegate,
      },
    );
    expect(real.code).toBe(7);
    expect(ndjson(real.stdout).map((r) => [r.line, r.status, r.error?.code ?? null])).toEqual([
      [2, 'failed', 'insufficient_permission'],
      [3, 'ok', null],
    ]);
  });
});

describe('a delegate whose own roles cannot be read', () => {
  const proxy = useLossyProxy(sandbox, {
    lose: () => false,
    refuse: (method, path) =>
      method === 'GET' && path.startsWith(`/v1/users/${DELEGATE}/roles`)
        ? refusal(403, 'insufficient_role')
        : undefined,
  });

  it('predicts nothing: no false failure, the row is planned as the platform would take it', async () => {
    const path = svc.file('unread.csv', `user,role,expires_in,justification\n${bulkUser(8)},ops,30m,cover\n`);
    const r = await svc.run(['roles', 'assign', '--file', path, '--dry-run', '--ndjson'], {
      env: { ...delegate, SVC_BASE_URL: proxy().url },
    });
    expect([r.code, ndjson(r.stdout).map((row) => [row.plan, row.error ?? null])]).toEqual([
      0,
      [['grant', null]],
    ]);
    // It asked, and went on without the answer.
    expect(proxy().refused.length).toBeGreaterThan(0);
  });
});
