import { describe, expect, it } from 'vitest';
import { as, LABS } from '../helpers/ascode.js';
import { afterResuming, assignments, bulkRunner, bulkUser, customRole, held } from '../helpers/bulk.js';
import { useErrorBodyDeletes, useLossyProxy, useNoContentDeletes } from '../helpers/lossy-proxy.js';
import { ACME, useSandbox } from '../helpers/sandbox.js';
import { deadLetteredQueue, dlqEntries, timeless } from '../helpers/webhooks.js';

// attack18b #6: a change another server accepted (2xx) and answered in a shape svc does not read —
// a 204 with no body to a DELETE (the reference shows no DELETE body), a 202 {"status":"queued"}
// to a replay, a grant's 201 without a field — was counted "failed" with "fix the file", while
// every change was made. A DELETE's 200/204 is done; any other accepted answer svc cannot read
// what was made from is an unknown outcome that says the server accepted it.
const sandbox = useSandbox({ users: 20 });
const svc = bulkRunner(sandbox);
const noContent = useNoContentDeletes(sandbox);
const queued = useLossyProxy(sandbox, {
  lose: () => false,
  reshape: (method, path, status) =>
    method === 'POST' && path.endsWith('/replay') && status < 300
      ? { status: 202, body: '{"status":"queued"}' }
      : undefined,
});
let reshaping = true;
const fieldless = useLossyProxy(sandbox, {
  lose: () => false,
  reshape: (method, path, status, text) => {
    if (!reshaping || method !== 'POST' || !/^\/v1\/users\/[^/]+\/roles$/.test(path) || status >= 300)
      return undefined;
    const { audit_trail_id: _, ...rest } = JSON.parse(text);
    return { status, body: JSON.stringify({ ...rest, audit_trail_id: 7 }) };
  },
});
// review18b R3: a server that answers a DELETE 200 with an error body, having removed nothing.
const errorBody = useErrorBodyDeletes(sandbox);
const via = (url: string) => ({ env: { SVC_BASE_URL: url } });

const grantedFile = (users: number[]) => svc.grantedByFile(`unread-${users.join('-')}`, users);

describe('a change answered 2xx in a shape svc does not read is never "failed"', () => {
  it('roles revoke --file answered 204 (no body): each row revoked, ✓, exit 0', async () => {
    const { name, id, path } = await grantedFile([1, 2]);
    const r = await svc.run(['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'], {
      ...via(noContent().url),
    });
    expect((await assignments(sandbox(), id)).active).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(
      [1, 2].map((n, i) => ({
        line: i + 2,
        status: 'ok',
        user: bulkUser(n),
        role: name,
        role_id: id,
        tenant_id: ACME,
        reason: 'answered_without_body',
        status_code: 204,
      })),
    );
    expect([r.code, timeless(r.stderr)]).toEqual([0, '✓ 2 revoked in Acme Treasury (acme-treasury) (T)\n']);
    // Done and journaled: the same command finds nothing owed and sends nothing again.
    const again = await svc.run(['roles', 'revoke', '--file', path, '--yes'], via(noContent().url));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('not_assigned');
  });

  it('roles revoke --file answered 200 with a body svc cannot read (an error object): never done, an unknown outcome; nothing was removed', async () => {
    const { id, path } = await grantedFile([5, 6]);
    const r = await svc.run(['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'], {
      ...via(errorBody().url),
    });
    expect((await assignments(sandbox(), id)).active).toBe(2);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((row) => [row.status, row.outcome])).toEqual([
      ['failed', 'unknown'],
      ['failed', 'unknown'],
    ]);
    expect(r.code).toBe(7);
  });

  it('roles assign --file answered 201 with a field svc cannot read: unknown outcome, the server accepted it, checked on the platform; the same command settles it once the answers read', async () => {
    const name = 'unread-grant';
    const id = await customRole(sandbox(), name);
    const path = svc.file('unread-grant.csv', `user,role\n${bulkUser(3)},${name}\n${bulkUser(4)},${name}\n`);
    const argv = ['roles', 'assign', '--file', path, '--expires-in', '1d', '--justification', 'x', '--yes'];
    const r = await svc.run([...argv, '--ndjson', '--concurrency', '1'], via(fieldless().url));
    expect((await assignments(sandbox(), id)).active).toBe(2);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((row) => [row.status, row.outcome, row.error.code, row.error.status])).toEqual([
      ['failed', 'unknown', 'invalid_response', 201],
      ['failed', 'unknown', 'invalid_response', 201],
    ]);
    expect(rows[0].error.message).toBe(
      `the server accepted the change (HTTP 201) but svc cannot read what it made: the server's answer to POST /v1/users/${bulkUser(3)}/roles has "audit_trail_id" as an integer (expected string), so the outcome is unknown: the platform most likely made this change`,
    );
    expect(r.code).toBe(7);
    const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
    expect(error.message).toContain(
      '2 of 2 items ended with an unknown outcome (the platform may have made them; no answer svc could believe said whether it did)',
    );
    // Not "run it again to settle them": the same key is answered the same by a server that stores answers (review19 F2).
    expect(error.hint).toMatch(
      /^the server accepted 2 of them \(HTTP 2xx\) in an answer svc cannot read: check on the platform whether each was made; running the same command again sends the same idempotency key and may be answered the same \(journal /,
    );
    expect(error.hint).not.toContain('fix');
    // The same command, the server's answers read this time: the stored answers, this run's grants.
    reshaping = false;
    const again = await svc.run(argv, via(fieldless().url));
    reshaping = true;
    expect([again.code, timeless(afterResuming(again.stderr))]).toEqual([
      0,
      '✓ 2 granted by the run this one resumes in Acme Treasury (acme-treasury) (T)\n',
    ]);
    expect((await held(sandbox(), bulkUser(3))).filter((a) => a.role_id === id)).toHaveLength(1);
  });

  it('webhooks replay --dlq answered 202 {"status":"queued"}: unknown outcome, never "failed … fix"', async () => {
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 204 }, 2);
    const r = await svc.run(
      ['webhooks', 'replay', webhook, '--dlq', '--no-wait', '--yes', '--ndjson'],
      via(queued().url),
    );
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toHaveLength(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((row) => [row.status, row.outcome, row.error.status])).toEqual([
      ['failed', 'unknown', 202],
      ['failed', 'unknown', 202],
    ]);
    expect(rows[0].error.message).toMatch(
      /^the server accepted the change \(HTTP 202\) but svc cannot read what it made: the server's answer to POST \/v1\/webhooks\/wh_\w+\/deliveries\/dlv_\w+\/replay lacks "id" \(string\), so the outcome is unknown: the platform most likely made this change$/,
    );
    const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
    expect(error.message).toContain('2 of 2 items ended with an unknown outcome');
    expect(error.hint).not.toContain('fix');
  });

  it('webhooks dlq discard --all answered 204: each entry discarded, ✓, exit 0', async () => {
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 204 }, 3);
    const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--yes'], via(noContent().url));
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toHaveLength(0);
    expect([r.code, timeless(r.stderr)]).toEqual([
      0,
      '✓ 3 discarded in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n',
    ]);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('ok\t'))).toHaveLength(3);
  });
});

describe('svc apply --prune whose role delete is answered 204', () => {
  it('says the role deleted, ✓, exit 0; the same command finds nothing to do', async () => {
    const env = { SVC_BASE_URL: noContent().url, SVC_TENANT: LABS };
    const role = await as(sandbox(), LABS, 'POST', '/v1/roles', {
      name: 'tmp-c',
      permissions: ['exception.read'],
    });
    const file = svc.file(
      'prune.yaml',
      'version: 1\nmanage: {roles: all}\nblocks:\n  - tenants: acme-labs\n    roles: []\n',
    );
    const r = await svc.run(['apply', '-f', file, '--prune', '--yes'], { env });
    expect((await as(sandbox(), LABS, 'GET', `/v1/roles/${role.id}`)).deleted_at).not.toBeNull();
    expect([r.code, r.stdout, timeless(r.stderr)]).toEqual([
      0,
      `\tacme-labs\trole\tdelete\ttmp-c\tok\t${role.id}\tanswered_without_body\n`,
      '✓ 1 applied (T)\n',
    ]);
    const again = await svc.run(['apply', '-f', file, '--prune', '--yes'], { env });
    expect([again.code, again.stdout, again.stderr]).toEqual([
      0,
      '',
      `no changes to apply: the live state matches ${file}\n`,
    ]);
  });
});
