/**
 * A single DELETE verb answered 200/204 without a body by another server (the reference shows no
 * body for a DELETE) is done, as a bulk run's row of the same answer is (answered_without_body,
 * test/bulk/accepted-unread.test.ts): it said "may have made the change: check" (exit 1) of a change
 * that was made. A 200 whose body is an error object stays an unknown outcome, nothing removed.
 */
import { describe, expect, it } from 'vitest';
import { assignments, bulkRunner, bulkUser } from '../helpers/bulk.js';
import { useErrorBodyDeletes, useNoContentDeletes } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { createWebhook, deadLetteredQueue, dlqEntries, TENANT } from '../helpers/webhooks.js';

const sandbox = useSandbox({ users: 4 });
const svc = bulkRunner(sandbox);
const noContent = useNoContentDeletes(sandbox);
const errorBody = useErrorBodyDeletes(sandbox);
const via = (url: string) => ({ env: { SVC_BASE_URL: url } });

describe('a single DELETE verb answered 204 without a body: done, ✓, exit 0', () => {
  it('roles revoke: said revoked, its --json an outcome', async () => {
    const { name, id } = await svc.grantedByFile('nobody-1', [1, 2]);
    const r = await svc.run(['roles', 'revoke', bulkUser(1), name, '--yes'], via(noContent().url));
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      `✓ ${bulkUser(1)} no longer holds ${name} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016: the server answered HTTP 204 without a body, which says it was revoked\n`,
    ]);
    const json = await svc.run(
      ['roles', 'revoke', bulkUser(2), name, '--yes', '--json'],
      via(noContent().url),
    );
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      user_id: bulkUser(2),
      role_id: id,
      role_name: name,
      outcome: 'answered_without_body',
      status_code: 204,
      detail: 'the server answered HTTP 204 without a body, which says it was revoked',
      assignment: null,
    });
    expect((await assignments(sandbox(), id)).active).toBe(0);
  });

  it('webhooks delete', async () => {
    const { id } = await createWebhook(sandbox(), 'https://h.example/nobody');
    const r = await svc.run(['webhooks', 'delete', id, '--yes'], via(noContent().url));
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      `✓ webhook ${id} (https://h.example/nobody) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 is gone: the server answered HTTP 204 without a body, which says it was deleted\n`,
    ]);
  });

  it('tenants api-keys revoke', async () => {
    const made = await svc.run(
      ['tenants', 'api-keys', 'create', TENANT, '--kind', 'publishable', '--name', 'nobody'].concat([
        '--show-secret',
        '--json',
      ]),
    );
    const key = JSON.parse(made.stdout) as { id: string };
    const r = await svc.run(['tenants', 'api-keys', 'revoke', TENANT, key.id, '--yes'], via(noContent().url));
    expect([r.code, r.stdout], r.stderr).toEqual([0, '']);
    expect(r.stderr).toMatch(
      new RegExp(
        `^✓ API key ${key.id} of .+ is gone: the server answered HTTP 204 without a body, which says it was revoked\\n$`,
      ),
    );
  });

  it('webhooks dlq discard ENTRY (a bulk run of one): discarded', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    const r = await svc.run(
      ['webhooks', 'dlq', 'discard', webhook, entries[0]!.id, '--yes'],
      via(noContent().url),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toHaveLength(0);
  });
});

describe('a single DELETE verb answered 200 with an error body', () => {
  it('roles revoke: an unknown outcome, exit 1, never done; nothing removed', async () => {
    const { name, id } = await svc.grantedByFile('nobody-2', [3]);
    const r = await svc.run(['roles', 'revoke', bulkUser(3), name, '--yes'], via(errorBody().url));
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toContain('may have made the change: check before running the command again');
    expect((await assignments(sandbox(), id)).active).toBe(1);
  });
});
