/**
 * A bulk grant whose caller loses the right to grant during the run (attack24b F3): a tenant_admin
 * revoked by another admin mid-run. svc sent every remaining row into the same 403 and ended with
 * "fix the file"; now the first refusal of the caller (403 insufficient_role) stops the run, the
 * rows not started are not sent, and the same command resumes them once the caller may again.
 * The revocation is made by a forwarder before it passes the second grant on: the order is the
 * test's, not a race.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ACME, bulkRunner, bulkUser, customRole, held, lastJson } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandbox } from '../../helpers/sandbox.js';
import { pipeOn } from '../../helpers/sandbox-front.js';

const sandbox = useSandbox({ users: 30 });
const svc = bulkRunner(sandbox);
const CALLER = bulkUser(30);

const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

const admin = (method: string, path: string, body?: Record<string, unknown>) =>
  call(sandbox(), method, path, { token: sandbox().adminToken, tenant: ACME, ...(body ? { body } : {}) });

/** A forwarder to the sandbox that runs `before` once, ahead of passing on the `nth` grant. */
async function revokingBefore(
  nth: number,
  before: () => Promise<void>,
): Promise<{ url: string; grants: () => number }> {
  let grants = 0;
  const server = createServer(async (req, res) => {
    if (req.method === 'POST' && /^\/v1\/users\/[^/]+\/roles$/.test(req.url ?? '') && ++grants === nth)
      await before();
    pipeOn(sandbox().url, req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, grants: () => grants };
}

describe('a bulk grant whose caller loses the right to grant mid-run', () => {
  it('stops at the first refusal of the caller (exit 4), the rest not sent, and resumes once granted again', async () => {
    const role = await customRole(sandbox(), 'lost-right');
    const granted = await admin('POST', `/v1/users/${CALLER}/roles`, {
      role_id: 'tenant_admin',
      idempotency_key: 'caller-admin-1',
    });
    expect(granted.status, granted.text).toBe(201);
    const users = [1, 2, 3, 4, 5].map(bulkUser);
    const path = svc.file(
      'g.csv',
      `user,role,expires_in,justification\n${users.map((u) => `${u},lost-right,never,t`).join('\n')}\n`,
    );
    const forwarder = await revokingBefore(2, async () => {
      const r = await admin('DELETE', `/v1/users/${CALLER}/roles/tenant_admin`);
      expect(r.status, r.text).toBe(200);
    });
    const env = { SVC_BASE_URL: forwarder.url, SVC_TOKEN: sandbox().issueToken(CALLER).token };
    const r = await svc.run(['roles', 'assign', '--file', path, '--concurrency', '1', '--ndjson'], { env });
    // One grant refused, none sent after it.
    expect(forwarder.grants()).toBe(2);
    const rows = ndjson(r.stdout);
    expect(rows.map((row) => [row.line, row.status])).toEqual([
      [2, 'ok'],
      [3, 'failed'],
    ]);
    expect(rows[1].error).toMatchObject({ code: 'insufficient_role', status: 403 });
    expect(r.code, r.stderr).toBe(4);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^1 granted, 1 failed, 3 not started in /);
    const error = JSON.parse(lines[1]!).error;
    expect(error.code).toBe('insufficient_role');
    expect(error.exit_code).toBe(4);
    expect(error.message).toMatch(
      /^stopped after 2 of 5: the platform refused an item because the caller's roles do not allow it now \(.*\); an item that needs the same permission would be refused alike, so the items not started were not sent$/,
    );
    expect(error.hint).toMatch(
      /^once the caller holds a role that allows it \(ask a tenant_admin\), run the same command again .* to resume \(journal .*\): the items refused are tried again$/,
    );
    expect(error.hint).not.toContain('fix the file');
    expect((await held(sandbox(), users[1]!)).map((a) => a.role_id)).not.toContain(role);

    // Granted again: the same command does the rest.
    expect(
      (
        await admin('POST', `/v1/users/${CALLER}/roles`, {
          role_id: 'tenant_admin',
          idempotency_key: 'caller-admin-2',
        })
      ).status,
    ).toBe(201);
    const again = await svc.run(['roles', 'assign', '--file', path, '--concurrency', '1', '--ndjson'], {
      env,
    });
    expect(again.code, again.stderr).toBe(0);
    for (const user of users) expect((await held(sandbox(), user)).map((a) => a.role_id)).toContain(role);
  });
});

describe('a bulk grant whose role is deleted mid-run', () => {
  it('says the role is gone, not "fix the file"', async () => {
    const role = await customRole(sandbox(), 'gone-mid-run');
    const users = [6, 7, 8].map(bulkUser);
    const path = svc.file(
      'd.csv',
      `user,role,expires_in,justification\n${users.map((u) => `${u},gone-mid-run,never,t`).join('\n')}\n`,
    );
    const forwarder = await revokingBefore(2, async () => {
      const r = await admin('DELETE', `/v1/roles/${role}`);
      expect(r.status, r.text).toBe(200);
    });
    const r = await svc.run(['roles', 'assign', '--file', path, '--concurrency', '1', '--json'], {
      env: { SVC_BASE_URL: forwarder.url },
    });
    expect(r.code, r.stderr).toBe(7);
    const error = lastJson(r.stderr).error;
    expect(error.hint).toMatch(
      /^role gone-mid-run was deleted, so their 2 rows were refused: a deleted role grants nothing and is not restored \(see `svc roles ls`\); leave those rows out, or create a role of that name again \(`svc roles create`\) to grant it with the same file; or run the same command again .* to retry the failed rows/,
    );
    expect(error.hint).not.toContain('fix the file');
    // Made again under the same name, the same command retries those rows with it.
    const again = await customRole(sandbox(), 'gone-mid-run');
    const resumed = await svc.run(['roles', 'assign', '--file', path, '--concurrency', '1', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const user of users.slice(1))
      expect((await held(sandbox(), user)).map((a) => a.role_id)).toContain(again);
  });
});
