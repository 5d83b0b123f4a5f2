import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assignments, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { deadLetteredQueue, dlqEntries, timeless } from '../helpers/webhooks.js';

// review19 F2: a DELETE the sandbox did, answered 200 with a small success body another server
// may send — `{}`, `{"deleted":true}` alone or beside the id asked — was an unknown outcome (exit 7),
// and `roles revoke --file`'s hint to settle it by running the same command again could not: the
// re-run sends the same key and is answered the same. Such a body is done; one that is
// error-shaped, says `deleted: false`, is about another object, or says nothing of the change
// (`{"id":"<the id asked>"}` alone: review19b F1, only positive evidence is done) is not.
const sandbox = useSandbox({ users: 20 });
const svc = bulkRunner(sandbox);
/** The body the proxy answers a DELETE the sandbox did with (200), given the path asked. */
let answer: (path: string) => string = () => '{}';
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  reshape: (method, path, status) =>
    method === 'DELETE' && status < 300 ? { status: 200, body: answer(path) } : undefined,
});
/** Both kinds of unknown outcome in one run: bulk user 7's answers lost (503 after the change), user 8's an error object. */
const mixed = useLossyProxy(sandbox, {
  lose: (method, path) => method === 'DELETE' && path.includes(`/${bulkUser(7)}/`),
  reshape: (method, path, status) =>
    method === 'DELETE' && path.includes(`/${bulkUser(8)}/`) && status < 300
      ? { status: 200, body: '{"code":"busy","message":"try later"}' }
      : undefined,
});
const via = () => ({ env: { SVC_BASE_URL: proxy().url } });

describe('roles revoke --file: a DELETE answered 200 with a success body is done', () => {
  it.each([
    ['{}', 'body-empty', () => '{}'],
    ['{"deleted":true}', 'body-deleted', () => '{"deleted":true}'],
    [
      '{"deleted":true,"role_id": the role asked}',
      'body-id',
      (path: string) => JSON.stringify({ deleted: true, role_id: path.split('/').at(-1) }),
    ],
  ])('%s: each row revoked, ✓, exit 0', async (_label, role, body) => {
    answer = body;
    const { id, path } = await svc.grantedByFile(role, [1, 2]);
    const r = await svc.run(
      ['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'],
      via(),
    );
    expect((await assignments(sandbox(), id)).active).toBe(0);
    expect(ndjson(r.stdout).map((row) => [row.status, row.reason, row.status_code])).toEqual([
      ['ok', 'answered_without_record', 200],
      ['ok', 'answered_without_record', 200],
    ]);
    expect([r.code, timeless(r.stderr)]).toEqual([0, '✓ 2 revoked in Acme Treasury (acme-treasury) (T)\n']);
  });

  it.each([
    ['{"deleted":false}', 'not-deleted', '{"deleted":false}'],
    ['{"code","message"}', 'not-code', '{"code":"busy","message":"try later"}'],
    ['{"errors":[…]}', 'not-errors', '{"errors":[{"message":"try later"}]}'],
    ['{"user_id": another user}', 'not-other', JSON.stringify({ user_id: bulkUser(9) })],
    ['{"id": …} alone', 'not-id-alone', '{"id":"not-id-alone"}'],
  ])(
    '%s: never done, an unknown outcome (exit 7) whose hint does not say a re-run settles it',
    async (_label, role, body) => {
      answer = () => body;
      const { path } = await svc.grantedByFile(role, [3]);
      const r = await svc.run(['roles', 'revoke', '--file', path, '--yes', '--ndjson'], via());
      expect(ndjson(r.stdout).map((row) => [row.status, row.outcome, row.error.status])).toEqual([
        ['failed', 'unknown', 200],
      ]);
      // Its answer does not say the platform made it (review19b F7).
      expect(ndjson(r.stdout)[0].error.message).toMatch(
        /, so the outcome is unknown: check on the platform whether it was made$/,
      );
      expect(r.code).toBe(7);
      const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
      expect(error.hint).not.toContain('to settle them');
      expect(error.hint).toMatch(
        /^the server accepted 1 of them \(HTTP 2xx\) in an answer svc cannot read: check on the platform whether each was made; running the same command again sends the same idempotency key and may be answered the same \(journal .+\)$/,
      );
    },
  );
});

describe('a run with both kinds of unknown outcome', () => {
  it('says a re-run settles the lost ones, and to check on the platform the ones answered unreadably', async () => {
    const { path } = await svc.grantedByFile('mixed', [7, 8]);
    const r = await svc.run(['roles', 'revoke', '--file', path, '--yes', '--json', '--concurrency', '1'], {
      env: { SVC_BASE_URL: mixed().url, SVC_MAX_RETRIES: '0' },
    });
    expect(r.code).toBe(7);
    const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
    expect(error.hint).toMatch(
      /^run the same command again with the same profile, logged in as the same user or with the same API key, to settle the 1 whose answer was lost \(journal [^)]+\); the server accepted 1 of them \(HTTP 2xx\) in an answer svc cannot read: check on the platform whether each was made; running the same command again sends the same idempotency key and may be answered the same$/,
    );
  });
});

describe('webhooks dlq discard of one named entry: the answer to its DELETE', () => {
  it('{"id": the entry asked, "deleted": true}: discarded, ✓, exit 0', async () => {
    answer = (path) => JSON.stringify({ id: path.split('/').at(-1), deleted: true });
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
    const [entry] = await dlqEntries(sandbox(), webhook, 'queued');
    const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, entry!.id, '--yes'], via());
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toHaveLength(0);
    expect([r.code, timeless(r.stderr)]).toEqual([
      0,
      '✓ 1 discarded in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n',
    ]);
  });

  it('{"id": another entry}: never discarded, exit 1 naming both', async () => {
    answer = () => '{"id":"dlq_another"}';
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
    const [entry] = await dlqEntries(sandbox(), webhook, 'queued');
    const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, entry!.id, '--yes'], via());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: the server's answer to DELETE /v1/webhooks/${webhook}/dlq/${entry!.id} is about id "dlq_another", not the id "${entry!.id}" asked for; svc saved and printed nothing, but the server answered 200 and may have made the change: check before running the command again\n`,
    );
    expect(r.stderr).not.toContain('✓');
  });
});

describe('a DELETE answered 200 with no bytes at all is "no body": done (review19d F3)', () => {
  it('roles revoke --file: each row ok answered_without_body, ✓, exit 0', async () => {
    answer = () => '';
    // Earlier tests' unfinished journals would be named at the end (attack25a F10): not this test's matter.
    rmSync(svc.journals, { recursive: true, force: true });
    const { id, path } = await svc.grantedByFile('body-none', [4, 5]);
    const r = await svc.run(
      ['roles', 'revoke', '--file', path, '--yes', '--ndjson', '--concurrency', '1'],
      via(),
    );
    expect((await assignments(sandbox(), id)).active).toBe(0);
    expect(ndjson(r.stdout).map((row) => [row.status, row.reason, row.status_code])).toEqual([
      ['ok', 'answered_without_body', 200],
      ['ok', 'answered_without_body', 200],
    ]);
    expect([r.code, timeless(r.stderr)]).toEqual([0, '✓ 2 revoked in Acme Treasury (acme-treasury) (T)\n']);
  });

  it('roles delete (single): ✓ without a body, exit 0', async () => {
    answer = () => '';
    await customRole(sandbox(), 'body-none-one');
    const r = await svc.run(['roles', 'delete', 'body-none-one', '--yes'], via());
    expect([r.code, r.stderr]).toEqual([
      0,
      expect.stringMatching(
        /^✓ .* the server answered HTTP 200 without a body, which says it was deleted\n$/,
      ),
    ]);
  });
});

describe('a run whose answer said "deleted": false: the summary does not say no answer said (review19d F11)', () => {
  it('its summary says no answer svc could believe said, not that no answer said', async () => {
    answer = () => '{"deleted":false}';
    const { path } = await svc.grantedByFile('f11-false', [6]);
    const r = await svc.run(['roles', 'revoke', '--file', path, '--yes'], via());
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(
      '1 of 1 item ended with an unknown outcome (the platform may have made it; no answer svc could believe said whether it did)',
    );
  });
});
