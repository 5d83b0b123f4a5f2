/**
 * Answers to a DELETE that are not evidence of a deletion (session 20): a record whose deleted mark
 * is dated after its answer (a deletion scheduled, not made), a record marked gone whose `status`
 * word says it is live or failed, a 200 whose body is not JSON (text/plain "OK", an HTML page), and
 * a 202 (taken, not yet done). Each is an unknown outcome: never ✓, never "failed … fix the file".
 */
import { describe, expect, it } from 'vitest';
import { assignments, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { createClient } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { admin, createWebhook, deadLetteredQueue, dlqEntries, TENANT } from '../helpers/webhooks.js';

const sandbox = useSandbox({ users: 12 });
const svc = bulkRunner(sandbox);
/** The 200 a DELETE is answered with, given the path asked (the sandbox never sees it), and its headers. */
let fake: (path: string) => unknown = () => ({});
let headers: Record<string, string> = {};
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  refuse: (method, path) => (method === 'DELETE' ? { status: 200, body: fake(path), headers } : undefined),
});
/** What the sandbox did is answered with this instead (status, text, content type); undefined: the sandbox's. */
let reshaped: { status: number; body: string; type: string } | undefined;
const done = useLossyProxy(sandbox, {
  lose: () => false,
  reshape: (method, _path, status) =>
    method === 'DELETE' && status < 300 && reshaped
      ? { status: reshaped.status, body: reshaped.body, headers: { 'content-type': reshaped.type } }
      : undefined,
});
const via = (url = proxy().url) => ({ env: { SVC_BASE_URL: url } });
const CHECK = 'may have made the change: check before running the command again';
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The verb said an unknown outcome, never done. */
function unknown(r: { code: number; stdout: string; stderr: string }) {
  expect([r.code, r.stdout], r.stderr).toEqual([1, '']);
  expect(r.stderr).toContain(CHECK);
  expect(r.stderr).not.toContain('✓');
}

describe('1: a deleted mark dated after the answer is a deletion scheduled, not made', () => {
  it('roles delete answered the role with deleted_at in 30 days: exit 1, check, saying why', async () => {
    const id = await customRole(sandbox(), 'd20-future');
    const role = (await admin(sandbox(), 'GET', `/v1/roles/${id}`)).body;
    const mark = iso(Date.now() + 30 * DAY);
    headers = {};
    fake = () => ({ ...role, deleted_at: mark });
    const r = await svc.run(['roles', 'delete', 'd20-future', '--yes'], via());
    unknown(r);
    expect(r.stderr).toContain(`says "deleted_at": "${mark}", `);
    expect(r.stderr).toContain(
      ' after the answer itself: it reads as a deletion scheduled to take effect then, not one made',
    );
  });

  it('roles delete --json, the same answer: the error says "outcome": "unknown" and the 200 it was taken with', async () => {
    const id = await customRole(sandbox(), 'd22-future-json');
    const role = (await admin(sandbox(), 'GET', `/v1/roles/${id}`)).body;
    headers = {};
    fake = () => ({ ...role, deleted_at: iso(Date.now() + 30 * DAY) });
    const r = await svc.run(['roles', 'delete', 'd22-future-json', '--yes', '--json'], via());
    unknown(r);
    const { error } = JSON.parse(r.stderr);
    expect([error.code, error.exit_code, error.status, error.outcome]).toEqual([
      'invalid_response',
      1,
      200,
      'unknown',
    ]);
  });

  it('a mark after the Date header (both long past): exit 1; one within its second: ✓', async () => {
    const { id } = await createWebhook(sandbox(), 'https://h.example/d20-date');
    headers = { date: 'Sun, 01 Mar 2026 10:00:00 GMT' };
    fake = () => ({ id, deleted: true, deleted_at: '2026-03-01T10:05:00Z' });
    unknown(await svc.run(['webhooks', 'delete', id, '--yes'], via()));
    fake = () => ({ id, deleted: true, deleted_at: '2026-03-01T10:00:00.900Z' });
    const r = await svc.run(['webhooks', 'delete', id, '--yes'], via());
    expect([r.code, r.stderr]).toEqual([
      0,
      `✓ deleted webhook ${id} (https://h.example/d20-date) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n`,
    ]);
    headers = {};
  });

  it('roles revoke --file answered revoked_at tomorrow: each row an unknown outcome, exit 7', async () => {
    const { id, path } = await svc.grantedByFile('d20-future-file', [1, 2]);
    const mark = iso(Date.now() + DAY);
    headers = {};
    fake = (p) => ({ user_id: p.split('/')[3], role_id: id, status: 'revoked', revoked_at: mark });
    const r = await svc.run(
      ['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'],
      via(),
    );
    expect(r.code, r.stderr).toBe(7);
    expect(ndjson(r.stdout).map((row) => [row.status, row.outcome, row.error.status])).toEqual([
      ['failed', 'unknown', 200],
      ['failed', 'unknown', 200],
    ]);
    expect(ndjson(r.stdout)[0].error.message).toContain(`says "revoked_at": "${mark}", `);
    expect(ndjson(r.stdout)[0].error.message).toContain(
      ' after the answer itself: it reads as a deletion scheduled',
    );
    expect((await assignments(sandbox(), id)).active).toBe(2);
  });
});

describe('2: a record marked gone whose status says it is live or failed', () => {
  const AT = '2026-11-25T20:45:00Z';

  it.each([['failed'], ['active']])(
    'roles delete answered {status: %j, deleted_at}: exit 1',
    async (word) => {
      const id = await customRole(sandbox(), `d20-st-${word}`);
      headers = {};
      fake = () => ({ id, name: `d20-st-${word}`, status: word, deleted_at: AT });
      const r = await svc.run(['roles', 'delete', `d20-st-${word}`, '--yes'], via());
      unknown(r);
      expect(r.stderr).toContain(`says "status": "${word}"`);
    },
  );

  it('roles revoke answered its assignment {status: "active", revoked_at}: exit 1; still held', async () => {
    const { name, id } = await svc.grantedByFile('d20-active', [3]);
    headers = {};
    fake = () => ({ user_id: bulkUser(3), role_id: id, status: 'active', revoked_at: AT });
    unknown(await svc.run(['roles', 'revoke', bulkUser(3), name, '--yes'], via()));
    expect((await assignments(sandbox(), id)).active).toBe(1);
  });

  it('tenants api-keys revoke answered the key {status: "active", revoked_at}: exit 1', async () => {
    const made = await svc.run(
      ['tenants', 'api-keys', 'create', TENANT, '--kind', 'publishable', '--name', 'd20-k'].concat([
        '--json',
      ]),
    );
    const { secret: _secret, ...key } = JSON.parse(made.stdout);
    headers = {};
    fake = () => ({ ...key, status: 'active', revoked_at: AT });
    unknown(await svc.run(['tenants', 'api-keys', 'revoke', TENANT, key.id, '--yes'], via()));
  });

  it('oauth delete answered {client_id, status: "failed", deleted_at}: exit 1', async () => {
    const { client_id } = await createClient(sandbox(), { name: 'd20 client' });
    headers = {};
    fake = () => ({ client_id, status: 'failed', deleted_at: AT });
    unknown(await svc.run(['oauth', 'delete', client_id, '--yes'], via()));
  });

  it('dlq discard answered its entry {status: "queued", discarded_at}: unknown, exit 1; still queued', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
    headers = {};
    fake = () => ({ ...entries[0], status: 'queued', discarded_at: AT });
    const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, entries[0]!.id, '--yes'], via());
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('says "status": "queued"');
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toHaveLength(1);
  });

  it('a webhook record with deleted_at and its own status "enabled" or "disabled" stays ✓ (review19d F2)', async () => {
    const { id } = await createWebhook(sandbox(), 'https://h.example/d20-f2');
    const record = (await admin(sandbox(), 'GET', `/v1/webhooks/${id}`)).body;
    headers = {};
    for (const status of ['enabled', 'DISABLED']) {
      fake = () => ({ ...record, status, deleted_at: AT });
      const r = await svc.run(['webhooks', 'delete', id, '--yes'], via());
      expect([r.code, r.stderr]).toEqual([
        0,
        `✓ deleted webhook ${id} (https://h.example/d20-f2) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n`,
      ]);
    }
    fake = () => ({ ...record, status: 'failed', deleted_at: AT });
    unknown(await svc.run(['webhooks', 'delete', id, '--yes'], via()));
  });
});

describe('3: a DELETE answered 200 with a body that is not JSON is an unknown outcome', () => {
  const BODIES = [
    ['text/plain "OK"', 'OK', 'text/plain'],
    ['an HTML page', '<html><body>Deleted</body></html>', 'text/html; charset=utf-8'],
  ] as const;

  it.each(BODIES)(
    'roles revoke --file, %s: rows unknown (never "fix the file"), exit 7',
    async (_l, body, type) => {
      reshaped = { status: 200, body, type };
      const { path } = await svc.grantedByFile(`d20-text-${type.length}`, [4, 5]);
      const r = await svc.run(
        ['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'],
        via(done().url),
      );
      expect(r.code, r.stderr).toBe(7);
      expect(ndjson(r.stdout).map((row) => [row.status, row.outcome, row.error.status])).toEqual([
        ['failed', 'unknown', 200],
        ['failed', 'unknown', 200],
      ]);
      expect(ndjson(r.stdout)[0].error.message).toMatch(
        /, so the outcome is unknown: check on the platform whether it was made$/,
      );
      expect(r.stderr).not.toContain('fix the file');
      reshaped = undefined;
    },
  );

  it.each(BODIES)(
    'single verbs, %s: exit 1, check (the change made, never said failed)',
    async (_l, body, type) => {
      reshaped = { status: 200, body, type };
      const { name } = await svc.grantedByFile(`d20-text-one-${type.length}`, [6]);
      unknown(await svc.run(['roles', 'revoke', bulkUser(6), name, '--yes'], via(done().url)));
      const { client_id } = await createClient(sandbox(), { name: 'd20 text' });
      unknown(await svc.run(['oauth', 'delete', client_id, '--yes'], via(done().url)));
      const { id } = await createWebhook(sandbox(), `https://h.example/d20-text-${type.length}`);
      unknown(await svc.run(['webhooks', 'delete', id, '--yes'], via(done().url)));
      const made = await svc.run(
        ['tenants', 'api-keys', 'create', TENANT, '--kind', 'publishable', '--name', 'd20-t'].concat([
          '--json',
        ]),
      );
      unknown(
        await svc.run(
          ['tenants', 'api-keys', 'revoke', TENANT, JSON.parse(made.stdout).id, '--yes'],
          via(done().url),
        ),
      );
      const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
      const r = await svc.run(
        ['webhooks', 'dlq', 'discard', webhook, entries[0]!.id, '--yes'],
        via(done().url),
      );
      // Its row says the outcome is unknown, to check on the platform; exit 1 as a one-entry discard's error.
      expect([r.code, r.stderr], r.stdout).toEqual([1, expect.stringContaining(CHECK)]);
      expect(r.stdout).toContain(`is not a JSON object (${type.split(';')[0]}), so the outcome is unknown`);
      reshaped = undefined;
    },
  );
});

describe('4: a DELETE answered 202 is taken, not yet done', () => {
  it('roles revoke (single and --file): unknown outcome, its words say accepted, not yet done', async () => {
    reshaped = { status: 202, body: '{"status":"queued"}', type: 'application/json' };
    const { name, path } = await svc.grantedByFile('d20-202', [7, 8]);
    const one = await svc.run(['roles', 'revoke', bulkUser(7), name, '--yes'], via(done().url));
    unknown(one);
    expect(one.stderr).toContain('HTTP 202: accepted, not yet done');
    const r = await svc.run(['roles', 'revoke', '--file', path, '--yes', '--ndjson'], via(done().url));
    expect(r.code, r.stderr).toBe(7);
    const [row] = ndjson(r.stdout).filter((x) => x.status === 'failed');
    expect([row.outcome, row.error.status]).toEqual(['unknown', 202]);
    expect(row.error.message).toContain('accepted, not yet done');
    reshaped = undefined;
  });
});
