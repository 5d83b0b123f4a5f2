/**
 * A DELETE's 200 is done only on positive evidence (review19b F1, F6): no body, `{}`,
 * `{"deleted": true}` (alone or beside the id asked), or the record asked for saying it is gone.
 * Another server's failure words (`{"status":"error"}`, `{"deleted":"false"}`, `{"result":"failure"}`),
 * the record unchanged, or another object's record — whether or not the body fits svc's schema —
 * are an unknown outcome: the single verb's "may have made the change: check" (exit 1), a bulk
 * row's unknown outcome (exit 7) whose words say what the answer said (F7), never ✓. The proxy
 * answers each DELETE itself (`fake`): nothing is deleted, as the server's answer says.
 */
import { describe, expect, it } from 'vitest';
import { assignments, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { createClient } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { admin, createWebhook, deadLetteredQueue, dlqEntries, TENANT } from '../helpers/webhooks.js';

const sandbox = useSandbox({ users: 12 });
const svc = bulkRunner(sandbox);
/** The body a DELETE is answered with (200), given the path asked; the sandbox never sees it. */
let fake: (path: string) => unknown = () => ({});
/** Its headers beside the Date Node adds (`date: null`: none). */
let headers: Record<string, string | null> = {};
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  refuse: (method, path) => (method === 'DELETE' ? { status: 200, body: fake(path), headers } : undefined),
});
const via = () => ({ env: { SVC_BASE_URL: proxy().url } });
const CHECK = 'may have made the change: check before running the command again';
const AT = '2026-11-25T20:45:00Z';

/** The verb said an unknown outcome, never done. */
function unknown(r: { code: number; stdout: string; stderr: string }) {
  expect([r.code, r.stdout], r.stderr).toEqual([1, '']);
  expect(r.stderr).toContain(CHECK);
  expect(r.stderr).not.toContain('✓');
}

const FAILURES: Array<[string, unknown]> = [
  ['{"status":"error",…} (JSend)', { status: 'error', message: 'Unable to revoke: assignment is locked' }],
  ['{"status":"fail"}', { status: 'fail', data: { role: 'locked' } }],
  ['{"deleted":"false"}', { deleted: 'false' }],
  ['{"result":"failure"}', { result: 'failure' }],
  ['{"success":"no"}', { success: 'no' }],
  ['{"message":…} alone', { message: 'Unable to revoke' }],
];

describe('roles revoke USER ROLE answered 200 with words of failure: never ✓ (F1)', () => {
  it.each(FAILURES.map(([label, body], n) => [label, body, n] as const))(
    '%s: exit 1, check; the grant still held',
    async (_label, body, n) => {
      const { name, id } = await svc.grantedByFile(`f1-one-${n}`, [1]);
      fake = () => body;
      unknown(await svc.run(['roles', 'revoke', bulkUser(1), name, '--yes'], via()));
      expect((await assignments(sandbox(), id)).active).toBe(1);
    },
  );

  it('{"id": the role asked} alone says nothing of a revocation: exit 1, check', async () => {
    const { name, id } = await svc.grantedByFile('f1-one-id', [1]);
    fake = (path) => ({ id: path.split('/').at(-1) });
    unknown(await svc.run(['roles', 'revoke', bulkUser(1), name, '--yes'], via()));
    expect((await assignments(sandbox(), id)).active).toBe(1);
  });

  it('{"deleted": true} beside the ids asked: done, ✓', async () => {
    const { name, id } = await svc.grantedByFile('f1-one-yes', [1]);
    fake = (path) => ({ deleted: true, role_id: path.split('/').at(-1), user_id: bulkUser(1) });
    const r = await svc.run(['roles', 'revoke', bulkUser(1), name, '--yes'], via());
    expect([r.code, r.stderr]).toEqual([
      0,
      `✓ ${bulkUser(1)} no longer holds ${name} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016: the server answered HTTP 200 that it was revoked, in a shape other than the record svc reads\n`,
    ]);
    expect(id).toMatch(/^role_/);
  });
});

describe('roles revoke --file answered 200 with words of failure: each row an unknown outcome (F1, F7)', () => {
  it.each([
    ['{"status":"error",…}', { status: 'error', message: 'locked' }, 'says "status": "error"', 'f1-status'],
    ['{"deleted":"false"}', { deleted: 'false' }, 'says "deleted": "false"', 'f1-text-false'],
    ['{"deleted":false}', { deleted: false }, 'says "deleted": false', 'f1-false'],
    ['{"result":"failure"}', { result: 'failure' }, 'says "result": "failure"', 'f1-result'],
    ['{"errors":[…]}', { errors: [{ message: 'locked' }] }, 'is shaped as an error: "locked"', 'f1-errors'],
  ])(
    '%s: exit 7, check on the platform; the row says what the answer said',
    async (_label, body, says, role) => {
      const { id, path } = await svc.grantedByFile(role, [2, 3]);
      fake = () => body;
      const r = await svc.run(
        ['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'],
        via(),
      );
      expect(r.code, r.stderr).toBe(7);
      const rows = r.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(rows.map((row) => [row.status, row.outcome, row.error.status])).toEqual([
        ['failed', 'unknown', 200],
        ['failed', 'unknown', 200],
      ]);
      expect(rows[0].error.message).toBe(
        `the server accepted the request (HTTP 200) but the server's answer to DELETE /v1/users/${bulkUser(2)}/roles/${id} ${says}, so the outcome is unknown: check on the platform whether it was made`,
      );
      expect(r.stderr).toContain('check on the platform whether each was made');
      expect((await assignments(sandbox(), id)).active).toBe(2);
    },
  );
});

describe('a single DELETE verb answered with a body that fits its schema but is not evidence (F6)', () => {
  it('webhooks delete answered {"id": it, "deleted": false}: exit 1; the webhook still there', async () => {
    const { id } = await createWebhook(sandbox(), 'https://h.example/f6-false');
    fake = () => ({ id, deleted: false });
    unknown(await svc.run(['webhooks', 'delete', id, '--yes'], via()));
    unknown(await svc.run(['--json', 'webhooks', 'delete', id, '--yes'], via()));
    expect((await admin(sandbox(), 'GET', `/v1/webhooks/${id}`)).status).toBe(200);
  });

  it('webhooks delete answered with another webhook deleted: exit 1 naming both', async () => {
    const { id } = await createWebhook(sandbox(), 'https://h.example/f6-other');
    fake = () => ({ id: 'wh_0000000000000000000000ff', deleted: true, deleted_at: AT });
    const r = await svc.run(['webhooks', 'delete', id, '--yes'], via());
    unknown(r);
    expect(r.stderr).toContain(`is about id "wh_0000000000000000000000ff", not the id "${id}" asked for`);
  });

  it('webhooks delete answered {"id": it, "deleted": true}: done, ✓', async () => {
    const { id } = await createWebhook(sandbox(), 'https://h.example/f6-yes');
    fake = () => ({ id, deleted: true, deleted_at: AT });
    const r = await svc.run(['webhooks', 'delete', id, '--yes'], via());
    expect([r.code, r.stderr]).toEqual([
      0,
      `✓ deleted webhook ${id} (https://h.example/f6-yes) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n`,
    ]);
  });

  it('oauth delete answered with another client deleted: exit 1', async () => {
    const { client_id } = await createClient(sandbox(), { name: 'f6 client' });
    fake = () => ({ client_id: 'cli_00000000000000000000ff', deleted: true, deleted_at: AT });
    const r = await svc.run(['oauth', 'delete', client_id, '--yes'], via());
    unknown(r);
    expect(r.stderr).toContain('is about client_id "cli_00000000000000000000ff"');
  });

  it('records delete answered with its record unchanged, or another record deleted: exit 1', async () => {
    const made = await admin(sandbox(), 'POST', '/v1/accounts', { name: 'f6 account' });
    expect(made.status, made.text).toBe(201);
    const record = made.body as { id: string };
    fake = () => record;
    unknown(await svc.run(['records', 'delete', 'accounts', record.id, '--yes'], via()));
    fake = () => ({ ...record, id: 'rec_000000000000000000000fff', soft_delete: true, deleted_at: AT });
    unknown(await svc.run(['records', 'delete', 'accounts', record.id, '--yes'], via()));
    const after = await admin(sandbox(), 'GET', `/v1/accounts/${record.id}`);
    expect(after.body.soft_delete).toBe(false);
  });

  it('tenants api-keys revoke answered with its key unchanged, or another key revoked: exit 1', async () => {
    const key = async (name: string) => {
      const made = await svc.run([
        'tenants',
        'api-keys',
        'create',
        TENANT,
        '--kind',
        'publishable',
        '--name',
        name,
        '--show-secret',
        '--json',
      ]);
      return JSON.parse(made.stdout) as { id: string; secret?: string };
    };
    const k1 = await key('f6-k1');
    const k2 = await key('f6-k2');
    const { secret: _s1, ...k1Record } = k1;
    const { secret: _s2, ...k2Record } = k2;
    fake = () => ({ ...k2Record, revoked_at: null });
    unknown(await svc.run(['tenants', 'api-keys', 'revoke', TENANT, k2.id, '--yes'], via()));
    fake = () => ({ ...k1Record, revoked_at: AT });
    unknown(await svc.run(['tenants', 'api-keys', 'revoke', TENANT, k2.id, '--yes'], via()));
  });

  it('webhooks dlq discard answered with another entry discarded: never discarded, exit 1', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 2);
    const [a, b] = entries;
    fake = () => ({ ...b, status: 'discarded', discarded_at: AT });
    const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, a!.id, '--yes'], via());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`is about id "${b!.id}", not the id "${a!.id}" asked for`);
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toHaveLength(2);
  });

  it('roles delete answered with the role unchanged (deleted_at null): exit 1', async () => {
    const id = await customRole(sandbox(), 'f6-role');
    const role = (await admin(sandbox(), 'GET', `/v1/roles/${id}`)).body;
    expect(role.deleted_at).toBeNull();
    fake = () => role;
    unknown(await svc.run(['roles', 'delete', 'f6-role', '--yes'], via()));
  });
});

/** The verb said ✓, exit 0. */
function done(r: { code: number; stdout: string; stderr: string }) {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/^✓ /);
}

describe('review19d: evidence other servers give', () => {
  it('F1: oauth delete answered Stripe-style {"id": the client, "object", "deleted": true}: ✓', async () => {
    const { client_id } = await createClient(sandbox(), { name: 'f1 stripe' });
    fake = () => ({ id: client_id, object: 'oauth_client', deleted: true });
    done(await svc.run(['oauth', 'delete', client_id, '--yes'], via()));
    fake = () => ({ id: client_id, deleted: true });
    done(await svc.run(['oauth', 'delete', client_id, '--yes'], via()));
  });

  it('F1: roles revoke answered {"id": the role, "object", "deleted": true}: ✓', async () => {
    const { name } = await svc.grantedByFile('r19d-f1-stripe', [4]);
    fake = (path) => ({ id: path.split('/').at(-1), object: 'role_assignment', deleted: true });
    done(await svc.run(['roles', 'revoke', bulkUser(4), name, '--yes'], via()));
  });

  it('F2: webhooks delete answered its record with deleted_at and its own status "enabled": ✓', async () => {
    const { id } = await createWebhook(sandbox(), 'https://h.example/r19d-f2');
    const record = (await admin(sandbox(), 'GET', `/v1/webhooks/${id}`)).body;
    fake = () => ({ ...record, status: 'enabled', deleted_at: AT });
    const r = await svc.run(['webhooks', 'delete', id, '--yes'], via());
    expect([r.code, r.stderr]).toEqual([
      0,
      `✓ deleted webhook ${id} (https://h.example/r19d-f2) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n`,
    ]);
    fake = () => ({ ...record, status: 'disabled', deleted_at: AT, deleted: false });
    unknown(await svc.run(['webhooks', 'delete', id, '--yes'], via()));
  });

  it.each([['pending'], ['0001-01-01T00:00:00Z'], ['']])(
    'F7: roles delete answered the role with deleted_at %j, not a time: exit 1, check',
    async (mark) => {
      const name = `r19d-f7-${mark.length}`;
      const id = await customRole(sandbox(), name);
      const role = (await admin(sandbox(), 'GET', `/v1/roles/${id}`)).body;
      fake = () => ({ ...role, deleted_at: mark });
      const r = await svc.run(['roles', 'delete', name, '--yes'], via());
      unknown(r);
      expect(r.stderr).toContain(`says "deleted_at": ${JSON.stringify(mark)}`);
    },
  );

  it('F9: roles revoke answered its assignment with "status": "REVOKED" and revoked_at: ✓', async () => {
    const { name, id } = await svc.grantedByFile('r19d-f9', [5]);
    fake = () => ({ user_id: bulkUser(5), role_id: id, status: 'REVOKED', revoked_at: AT });
    done(await svc.run(['roles', 'revoke', bulkUser(5), name, '--yes'], via()));
  });

  it('F4: tenants api-keys revoke answered the key without its name: the name svc listed', async () => {
    const made = await svc.run([
      'tenants',
      'api-keys',
      'create',
      TENANT,
      '--kind',
      'publishable',
      '--name',
      'r19d-f4',
      '--json',
    ]);
    const { id, name: _name, secret: _secret, ...rest } = JSON.parse(made.stdout);
    fake = () => ({ ...rest, id, revoked_at: AT });
    const r = await svc.run(['tenants', 'api-keys', 'revoke', TENANT, id, '--yes'], via());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^✓ revoked API key ${id} \\(r19d-f4\\) of `));
    expect(r.stderr).not.toContain('undefined');
  });
});

/** A time `ms` from now, in whole seconds as a DATETIME(0) column writes it. */
const ahead = (ms: number) => new Date(Date.now() + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** The words of a mark 90 s after the answer's Date (±1 s: the answer's second is not the test's). */
const SCHEDULED =
  /, (89|90|91|92) s after the answer itself: it reads as a deletion scheduled to take effect then, not one made/;

describe('review20d D4: a mark 90 s after the answer is a deletion scheduled, not made', () => {
  it('roles revoke answered its assignment revoked_at 90 s ahead: exit 1, check, saying when; still held', async () => {
    const { name, id } = await svc.grantedByFile('d4-one', [6]);
    fake = () => ({ user_id: bulkUser(6), role_id: id, status: 'revoked', revoked_at: ahead(90_000) });
    const r = await svc.run(['roles', 'revoke', bulkUser(6), name, '--yes'], via());
    unknown(r);
    expect(r.stderr).toMatch(SCHEDULED);
    expect(r.stderr).not.toContain('no longer holds');
    expect((await assignments(sandbox(), id)).active).toBe(1);
  });

  it('webhooks delete, oauth delete, tenants api-keys revoke, dlq discard: each exit 1, saying when', async () => {
    const { id } = await createWebhook(sandbox(), 'https://h.example/d4');
    fake = () => ({ id, deleted: true, deleted_at: ahead(90_000) });
    const hook = await svc.run(['webhooks', 'delete', id, '--yes'], via());
    unknown(hook);
    expect(hook.stderr).toMatch(SCHEDULED);
    const { client_id } = await createClient(sandbox(), { name: 'd4 client' });
    fake = () => ({ client_id, deleted_at: ahead(90_000) });
    const client = await svc.run(['oauth', 'delete', client_id, '--yes'], via());
    unknown(client);
    expect(client.stderr).toMatch(SCHEDULED);
    const made = await svc.run([
      'tenants',
      'api-keys',
      'create',
      TENANT,
      '--kind',
      'publishable',
      '--name',
      'd4',
      '--json',
    ]);
    const { secret: _secret, ...key } = JSON.parse(made.stdout);
    fake = () => ({ ...key, revoked_at: ahead(90_000) });
    const revoked = await svc.run(['tenants', 'api-keys', 'revoke', TENANT, key.id, '--yes'], via());
    unknown(revoked);
    expect(revoked.stderr).toMatch(SCHEDULED);
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
    fake = () => ({ ...entries[0], status: 'discarded', discarded_at: ahead(90_000) });
    const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, entries[0]!.id, '--yes'], via());
    expect([r.code, r.stderr], r.stdout).toEqual([1, expect.stringContaining(CHECK)]);
    expect(r.stdout).toMatch(SCHEDULED);
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toHaveLength(1);
  });

  it('roles revoke --file: each row an unknown outcome saying when, exit 7; both still held', async () => {
    const { id, path } = await svc.grantedByFile('d4-file', [7, 8]);
    fake = (p) => ({ user_id: p.split('/')[3], role_id: id, status: 'revoked', revoked_at: ahead(90_000) });
    const r = await svc.run(
      ['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'],
      via(),
    );
    expect(r.code, r.stderr).toBe(7);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows.map((row) => [row.status, row.outcome])).toEqual([
      ['failed', 'unknown'],
      ['failed', 'unknown'],
    ]);
    expect(rows[0].error.message).toMatch(SCHEDULED);
    expect((await assignments(sandbox(), id)).active).toBe(2);
  });

  it('a whole-second mark just after the Date (rounded up): ✓', async () => {
    const { name, id } = await svc.grantedByFile('d4-rounded', [9]);
    fake = () => ({ user_id: bulkUser(9), role_id: id, status: 'revoked', revoked_at: ahead(1_000) });
    done(await svc.run(['roles', 'revoke', bulkUser(9), name, '--yes'], via()));
  });

  it('without a Date (this machine clock): 30 s ahead ✓, 10 minutes ahead scheduled', async () => {
    headers = { date: null };
    const { name, id } = await svc.grantedByFile('d4-undated', [10]);
    fake = () => ({ user_id: bulkUser(10), role_id: id, status: 'revoked', revoked_at: ahead(30_000) });
    done(await svc.run(['roles', 'revoke', bulkUser(10), name, '--yes'], via()));
    fake = () => ({ user_id: bulkUser(10), role_id: id, status: 'revoked', revoked_at: ahead(600_000) });
    const r = await svc.run(['roles', 'revoke', bulkUser(10), name, '--yes'], via());
    unknown(r);
    expect(r.stderr).toContain(
      ' 10 min after the answer itself: it reads as a deletion scheduled to take effect then',
    );
    headers = {};
  });
});
