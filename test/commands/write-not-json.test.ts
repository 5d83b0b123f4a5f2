/**
 * A POST or PATCH answered 2xx with a body that is not JSON (text/plain "OK", an HTML page) or with
 * none at all: the server said it did it, so it is an unknown outcome as a DELETE's is (session 20),
 * never the HTTP client's plain `bad_response` failure, after which the user runs it again and
 * makes a second webhook, OAuth client or grant. A single verb: exit 1, "may have made the change:
 * check", how to check; a bulk row: `unknown` (exit 7), never "fix the file". The proxy passes each
 * write on (the sandbox makes it) and answers it with `body` instead.
 */
import { describe, expect, it } from 'vitest';
import { assignArgv, assignments, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { useUnreadWrites } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { admin, createWebhook } from '../helpers/webhooks.js';

const sandbox = useSandbox({ users: 12 });
const svc = bulkRunner(sandbox);
const { proxy, answerWrites } = useUnreadWrites(sandbox);
const via = () => ({ env: { SVC_BASE_URL: proxy().url } });
const CHECK = 'may have made the change: check before running the command again';
const BODIES = [
  ['text/plain "OK"', 200, 'OK', 'text/plain'],
  ['an HTML page', 201, '<html><body>Created</body></html>', 'text/html; charset=utf-8'],
] as const;

/**
 * An unknown outcome of a single verb: exit 1, nothing on stdout, check, never bad_response; a keyed
 * creation's says the re-run with its key instead (test/commands/keyed-unread.test.ts).
 */
function unknown(r: { code: number; stdout: string; stderr: string }, type: string, keyed = false) {
  expect([r.code, r.stdout], r.stderr).toEqual([1, '']);
  expect(r.stderr).toContain(`is not a JSON object (${type.split(';')[0]})`);
  if (keyed) expect(r.stderr).toMatch(KEYED);
  else expect(r.stderr).toContain(CHECK);
  expect(r.stderr).not.toContain('✓');
}
const KEYED =
  /may have made the change \(`svc [^`]*` shows whether it was\): re-run with --idempotency-key svc_/;

describe('a write answered 2xx with a body that is not JSON is an unknown outcome', () => {
  it.each(BODIES)(
    'roles assign USER ROLE, %s: exit 1, check; the grant made',
    async (_l, status, body, type) => {
      const name = `w21-one-${status}`;
      const id = await customRole(sandbox(), name);
      answerWrites({ status, body, type });
      const r = await svc.run([...assignArgv(bulkUser(1), name), '--json'], via());
      answerWrites(undefined);
      unknown(r, type);
      // --json says "may have happened" as a bulk row does: `outcome` and the 2xx it was taken with.
      expect(JSON.parse(r.stderr)).toEqual({
        error: {
          code: 'invalid_response',
          message: `the server's answer to POST /v1/users/${bulkUser(1)}/roles is not a JSON object (${type.split(';')[0]})`,
          exit_code: 1,
          hint: `svc saved and printed nothing, but the server answered ${status} and may have made the change: check before running the command again (\`svc roles holders ${id}\` shows whether it was)`,
          status,
          outcome: 'unknown',
        },
      });
      expect((await assignments(sandbox(), id)).active).toBe(1);
    },
  );

  it.each(BODIES)(
    'roles assign --file, %s: rows unknown (never "fix the file"), exit 7; the same command again settles them',
    async (_l, status, body, type) => {
      const name = `w21-file-${status}`;
      const id = await customRole(sandbox(), name);
      const path = svc.file(`${name}.csv`, `user,role\n${bulkUser(2)},${name}\n${bulkUser(3)},${name}\n`);
      const argv = ['roles', 'assign', '--file', path, '--expires-in', '1d', '--justification', 'x', '--yes'];
      answerWrites({ status, body, type });
      const r = await svc.run([...argv, '--ndjson', '--concurrency', '1'], via());
      answerWrites(undefined);
      expect(r.code, r.stderr).toBe(7);
      const rows = ndjson(r.stdout);
      expect(rows.map((row) => [row.status, row.outcome, row.error.code, row.error.status])).toEqual([
        ['failed', 'unknown', 'invalid_response', status],
        ['failed', 'unknown', 'invalid_response', status],
      ]);
      expect(rows[0].error.message).toBe(
        `the server accepted the request (HTTP ${status}) but the server's answer to POST /v1/users/${bulkUser(2)}/roles is not a JSON object (${type.split(';')[0]}), so the outcome is unknown: check on the platform whether it was made`,
      );
      expect(r.stderr).not.toContain('fix the file');
      expect((await assignments(sandbox(), id)).active).toBe(2);
      // Run again, answered as the platform answers: the stored answers, never a second grant.
      const again = await svc.run(argv, via());
      expect(again.code, again.stderr).toBe(0);
      expect((await assignments(sandbox(), id)).active).toBe(2);
    },
  );

  it.each(BODIES)(
    'webhooks create, oauth create, roles create, %s: exit 1, check, never bad_response',
    async (_l, status, body, type) => {
      answerWrites({ status, body, type });
      const hook = await svc.run(
        [
          'webhooks',
          'create',
          '--url',
          `https://h.example/w21-${status}`,
          '--event-type',
          'webhook.test',
          '--show-secret',
        ],
        via(),
      );
      const client = await svc.run(
        [
          'oauth',
          'create',
          '--name',
          `w21 ${status}`,
          '--redirect-uri',
          'https://r.example/cb',
          '--scope',
          'read:exceptions',
          '--show-secret',
        ],
        via(),
      );
      const role = await svc.run(
        ['roles', 'create', '--name', `w21-made-${status}`, '--permission', 'account.read'],
        via(),
      );
      answerWrites(undefined);
      unknown(hook, type, true);
      unknown(client, type, true);
      unknown(role, type);
      // How to check: the command that shows whether it was made.
      expect(hook.stderr).toMatch(/ \(`svc [^`]*webhooks ls` shows whether it was\): re-run with /);
      expect(client.stderr).toMatch(/ \(`svc [^`]*oauth ls` shows whether it was\): re-run with /);
      expect(role.stderr).toMatch(
        new RegExp(` \\(\`svc [^\`]*roles get w21-made-${status}\` shows whether it was\\)\\n$`),
      );
      const hooks = (await admin(sandbox(), 'GET', '/v1/webhooks')).body.items as Array<{ url: string }>;
      expect(hooks.filter((h) => h.url === `https://h.example/w21-${status}`)).toHaveLength(1);
    },
  );

  it('webhooks update, records update, webhooks test answered 200 text/plain: exit 1, check', async () => {
    const { id } = await createWebhook(sandbox(), 'https://h.example/w21-update');
    const made = await admin(sandbox(), 'POST', '/v1/accounts', { name: 'w21 account' });
    answerWrites({ status: 200, body: 'OK', type: 'text/plain' });
    const sent = await svc.run(['webhooks', 'test', id], via());
    const hook = await svc.run(['webhooks', 'update', id, '--disable'], via());
    const record = await svc.run(
      ['records', 'update', 'accounts', made.body.id, '--data', '{"name":"w21 changed"}'],
      via(),
    );
    answerWrites(undefined);
    unknown(hook, 'text/plain');
    unknown(record, 'text/plain');
    unknown(sent, 'text/plain');
    expect(sent.stderr).toContain(`webhooks deliveries ls ${id}\` shows whether it was)`);
    expect(hook.stderr).toContain(`webhooks get ${id}\` shows whether it was)`);
    expect(record.stderr).toContain(`records get accounts ${made.body.id}\` shows whether it was)`);
  });

  it('a 201 with no body at all: exit 1, check (the server said it made it)', async () => {
    answerWrites({ status: 201, body: '' });
    const r = await svc.run(
      [
        'webhooks',
        'create',
        '--url',
        'https://h.example/w21-empty',
        '--event-type',
        'webhook.test',
        '--show-secret',
      ],
      via(),
    );
    answerWrites(undefined);
    expect([r.code, r.stdout], r.stderr).toEqual([1, '']);
    expect(r.stderr).toMatch(KEYED);
  });
});
