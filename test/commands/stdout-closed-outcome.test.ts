/**
 * A closed stdout never turns a command's outcome into a success (findings pipes15 F7): a command
 * that prints and then ends non-zero — `svc api` printing a refused call's body, `webhooks verify
 * --json` printing a verdict that is not valid, `svc plan` with changes pending, a dry run that
 * planned rows to fail, `auth status` with a rejected credential — ends with that outcome (its
 * error on stderr, its exit code) when its reader has gone; only a command whose outcome is 0
 * ends quietly with 0. In-process over a stdout whose every write fails with EPIPE (a reader gone
 * before the first byte); test/attack/pipe-close.test.ts runs `svc plan … | head -1` for real.
 */
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ACME, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { useSandbox } from '../helpers/sandbox.js';
import { createWebhook, deadLetteredQueue } from '../helpers/webhooks.js';

const sandbox = useSandbox({ users: 4 });
const svc = bulkRunner(sandbox);
const closed = { stdoutFails: 'EPIPE' };

/** The same command with its reader there and gone: the outcome (code, stderr) is the same. */
async function bothWays(argv: string[], options: { env?: Record<string, string> } = {}) {
  const open = await svc.run(argv, options);
  const gone = await svc.run(argv, { ...options, ...closed });
  return { open, gone };
}

describe('svc api: a refused call keeps its exit code and its error when stdout is closed', () => {
  it.each([
    ['a 400 (exit 2)', ['api', 'POST', '/v1/roles', '-f', 'name=BAD NAME'], 2],
    ['a 404 (exit 5)', ['api', '/v1/roles/role_nope'], 5],
    ['a 404 with --json (exit 5)', ['api', '/v1/roles/role_nope', '--json'], 5],
  ])('%s', async (_what, argv, code) => {
    const { open, gone } = await bothWays(argv);
    expect(open.code, open.stderr).toBe(code);
    expect(open.stdout).not.toBe('');
    // Two calls, two request ids: the rest of the error is the same.
    const ids = (text: string) => text.replace(/req_[0-9a-f]+/g, 'req_ID');
    expect([gone.code, gone.stdout, ids(gone.stderr)]).toEqual([code, '', ids(open.stderr)]);
    expect(gone.stderr).toMatch(/req_[0-9a-f]+/);
  });

  it('a successful read still ends quietly with 0', async () => {
    const { open, gone } = await bothWays(['api', '/v1/roles']);
    expect(open.code).toBe(0);
    expect([gone.code, gone.stdout, gone.stderr]).toEqual([0, '', '']);
  });
});

describe('webhooks verify --json: the verdict is the exit code whatever happens to stdout', () => {
  // Named at collection (the cases below hold the paths), written before the tests.
  const secret = join(svc.dir, 'verify.secret');
  const body = join(svc.dir, 'verify.json');
  beforeAll(() => {
    svc.file('verify.secret', 'whsec_pipe_secret');
    svc.file('verify.json', '{"x":1}');
  });
  const sign = (t: number) =>
    `t=${t},v1=${createHmac('sha256', 'whsec_pipe_secret').update(`${t}.{"x":1}`).digest('hex')}`;
  const now = Math.floor(Date.now() / 1000);
  const verify = (...more: string[]) => [
    'webhooks',
    'verify',
    '--secret-file',
    secret,
    '--payload',
    body,
    '--json',
    ...more,
  ];

  it.each([
    ['a signature that does not match (8)', verify('--header', `t=${now},v1=${'0'.repeat(64)}`), 8],
    // The verifier's clock pinned (--at): the two runs' "N s before" were a second apart when they
    // straddled a second (a whole run, session 23).
    ['a stale timestamp (9)', verify('--header', sign(1_000_000_000), '--at', String(now)), 9],
    ['a malformed header (2)', verify('--header', 'garbage'), 2],
    [
      'an unreadable payload (2)',
      verify('--header', sign(now)).map((word) => (word === body ? `${body}.missing` : word)),
      2,
    ],
  ])('%s', async (_what, argv, code) => {
    const { open, gone } = await bothWays(argv);
    expect(open.code, open.stderr).toBe(code);
    expect(JSON.parse(open.stdout).valid).toBe(false);
    expect([gone.code, gone.stdout, gone.stderr]).toEqual([code, '', open.stderr]);
  });

  it('a valid signature still ends quietly with 0', async () => {
    const { open, gone } = await bothWays(verify('--header', sign(now)));
    expect([open.code, JSON.parse(open.stdout).valid]).toEqual([0, true]);
    expect([gone.code, gone.stdout, gone.stderr]).toEqual([0, '', '']);
  });
});

describe('svc plan: changes pending are exit 10 and said on stderr when stdout is closed', () => {
  const plan = (name: string, roles: string) =>
    svc.file(`${name}.yaml`, `version: 1\nblocks:\n  - tenants: acme-treasury\n    roles:\n${roles}`);
  const pending = plan(
    'pending',
    [1, 2, 3].map((n) => `      - { name: pipe-drift-${n}, permissions: [exception.read] }\n`).join(''),
  );

  it.each([[[]], [['--json']], [['--ndjson']]])('%j', async (mode) => {
    const { open, gone } = await bothWays(['plan', '-f', pending, ...mode]);
    expect([open.code, open.stderr]).toEqual([
      10,
      `plan: 3 to create, 0 to update, 0 to delete in 1 of 1 tenant\n`,
    ]);
    expect(gone.code, gone.stderr).toBe(10);
    const said =
      'changes are pending (stdout closed before the plan was printed whole): plan: 3 to create, 0 to update, 0 to delete in 1 of 1 tenant';
    expect(gone.stderr).toBe(
      mode.length > 0
        ? `${JSON.stringify({ error: { code: 'changes_pending', message: said, exit_code: 10 } })}\n`
        : `error: ${said}\n`,
    );
    expect(gone.stdout).toBe('');
  });

  it('a plan with nothing to change still ends quietly with 0', async () => {
    const none = `${svc.dir}/exported.yaml`;
    const exported = await svc.run(['export', '-o', none]);
    expect(exported.code, exported.stderr).toBe(0);
    const { open, gone } = await bothWays(['plan', '-f', none, '--json']);
    expect(open.code, open.stderr).toBe(0);
    expect([gone.code, gone.stdout, gone.stderr]).toEqual([0, '', '']);
  });
});

describe('a dry run that planned rows to fail keeps exit 7 when stdout is closed', () => {
  it('roles assign --file --dry-run: yourself and a user who does not exist (exit 7)', async () => {
    const role = `pipe-dry-${Date.now()}`;
    await customRole(sandbox(), role);
    const rows = ['usr_admin', bulkUser(1), 'usr_nobody_here', bulkUser(2)].map((u) => `${u},${role},7d,j`);
    const path = svc.file('dry.csv', `user,role,expires_in,justification\n${rows.join('\n')}\n`);
    const argv = ['roles', 'assign', '--file', path, '--dry-run', '--ndjson', '--concurrency', '1'];
    const { open, gone } = await bothWays(argv);
    expect(open.code, open.stderr).toBe(7);
    expect(gone.code, gone.stderr).toBe(7);
    expect(gone.stdout).toBe('');
    const error = JSON.parse(gone.stderr.trimEnd().split('\n').at(-1)!).error;
    expect([error.code, error.exit_code]).toEqual(['would_fail', 7]);
    expect(error.message).toMatch(/^\d of \d items? would fail: line 2: /);
    expect(error.message).toMatch(/stdout closed after \d of 4: the rest was not checked$/);
  });

  // Review s15b R15b-1: cut before the row that would fail, it ended 0 ("nothing would fail").
  it('a dry run cut before every row was checked is exit 141, not 0: the rest was not checked', async () => {
    const role = `pipe-dry-cut-${Date.now()}`;
    await customRole(sandbox(), role);
    const rows = [bulkUser(1), bulkUser(2), bulkUser(3), 'usr_admin'].map((u) => `${u},${role},7d,j`);
    const path = svc.file('dry-cut.csv', `user,role,expires_in,justification\n${rows.join('\n')}\n`);
    const argv = ['roles', 'assign', '--file', path, '--dry-run', '--ndjson', '--concurrency', '1'];
    const { open, gone } = await bothWays(argv);
    expect(open.code, open.stderr).toBe(7);
    expect([gone.code, gone.stdout], gone.stderr).toEqual([141, '']);
    const error = JSON.parse(gone.stderr.trimEnd().split('\n').at(-1)!).error;
    expect([error.code, error.exit_code]).toEqual(['stdout_closed', 141]);
    expect(error.message).toMatch(
      /^stdout closed after [123] of 4: the rest was not checked; nothing was changed$/,
    );
  });

  it('a dry run whose checked rows are all fine still ends quietly with 0', async () => {
    const role = `pipe-dry-ok-${Date.now()}`;
    await customRole(sandbox(), role);
    const path = svc.file('dry-ok.csv', `user,role,expires_in,justification\n${bulkUser(3)},${role},7d,j\n`);
    const { open, gone } = await bothWays(['roles', 'assign', '--file', path, '--dry-run', '--ndjson']);
    expect(open.code, open.stderr).toBe(0);
    expect([gone.code, gone.stdout, gone.stderr]).toEqual([0, '', '']);
  });
});

describe('auth status: a rejected credential is exit 3 when stdout is closed', () => {
  it.each([[[]], [['--json']]])('%j', async (mode) => {
    const env = { SVC_TOKEN: 'bogus-token-for-status', SVC_TENANT: ACME };
    const { open, gone } = await bothWays(['auth', 'status', ...mode], { env });
    expect(open.code, open.stderr).toBe(3);
    expect([gone.code, gone.stdout, gone.stderr]).toEqual([3, '', open.stderr]);
  });

  it('a credential that works still ends quietly with 0', async () => {
    const { open, gone } = await bothWays(['auth', 'status']);
    expect(open.code, open.stderr).toBe(0);
    expect([gone.code, gone.stdout, gone.stderr]).toEqual([0, '', '']);
  });
});

// Review s15b R15b-3: the test event is a change, and the closed stdout's "the change was made …
// check the result" (141) hid the delivery's failure, its cause and its remedy.
describe('webhooks test: a failed test delivery is exit 1 with its cause when stdout is closed', () => {
  it.each([[[]], [['--json']]])('%j', async (mode) => {
    const hook = await createWebhook(sandbox(), 'http://127.0.0.1:9/closed', { max_attempts: 1 });
    const { open, gone } = await bothWays(['webhooks', 'test', hook.id, ...mode]);
    expect(open.code, open.stderr).toBe(1);
    expect(open.stdout).not.toBe('');
    expect([gone.code, gone.stdout, gone.stderr]).toEqual([1, '', open.stderr]);
    expect(gone.stderr).toMatch(/the test delivery failed: connection_timeout: /);
  });
});

// A run whose every item was done before its reader's leaving was noticed cut nothing: it ended
// 141 "stdout closed after 1 of 1; run the same command again with the same profile, logged in as the same user or with the same API key, to resume", its failures unsaid.
describe('a replay whose every item was done and failed keeps exit 7 when stdout is closed', () => {
  // A --dlq run names its start (the newer entries it leaves: its own replays, failed again).
  const same = (text: string) =>
    text
      .replace(/(dlv|wh)_[0-9a-f]+/g, '$1_ID')
      .replace(/ \([\d.]+ s\)\n/, ' (T s)\n')
      .replace(/started \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)/, 'started (T)');
  it.each([
    ['one named delivery', [], false],
    ['one named delivery, --json', ['--json'], false],
    ['--dlq', [], true],
    ['--dlq --json', ['--json'], true],
  ])('%s', async (_what, mode, dlq) => {
    const run = async (options: { stdoutFails?: string }) => {
      const q = await deadLetteredQueue(sandbox(), { status: 500 }, dlq ? 2 : 1, { max_attempts: 1 });
      const which = dlq ? ['--dlq'] : [q.entries[0]!.delivery_id];
      return svc.run(['webhooks', 'replay', q.webhook, ...which, '--wait', ...mode], options);
    };
    const open = await run({});
    const gone = await run(closed);
    expect(open.code, open.stderr).toBe(7);
    expect(open.stdout).not.toBe('');
    expect([gone.code, gone.stdout, same(gone.stderr)]).toEqual([7, '', same(open.stderr)]);
  });
});
