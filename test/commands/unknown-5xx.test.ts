import { afterEach, describe, expect, it } from 'vitest';
import { NO_FAULTS } from '../../src/sandbox/plugins/faults.js';
import { assignArgv, assignments, bulkRunner, bulkUser, customRole, held } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { refusal, useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';

// A 5xx answer to a change may come after the change was made (the sandbox's own `--fault-phase
// after` does exactly that), so its outcome is unknown: a bulk row is failed with
// "outcome":"unknown" and counted apart, a single change says so and how to settle it. Only an
// answer that itself says nothing was done (501 Not Implemented) is a plain failure.
const sandbox = useSandbox({ users: 300 });
const svc = bulkRunner(sandbox);

/** Per user id (the path's third segment): the status every POST/DELETE to it is answered with after it was made. */
const lose = new Map<string, number>();
/** Per user id: the status a POST/DELETE to it is refused with, never reaching the platform. */
const refuse = new Map<string, number>();
const proxy = useLossyProxy(sandbox, {
  lose: (method, path) => {
    if (method === 'GET') return false;
    return lose.get(path.split('/')[3] ?? '') ?? false;
  },
  refuse: (method, path) => {
    if (method === 'GET') return undefined;
    const status = refuse.get(path.split('/')[3] ?? '');
    return status === undefined ? undefined : refusal(status, 'not_implemented', 'Not Implemented');
  },
});
afterEach(() => {
  lose.clear();
  refuse.clear();
  proxy().reset();
  sandbox().faults.update(NO_FAULTS);
});
const via = (extra: Record<string, string> = {}) => ({
  env: { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '1', ...extra },
});

let roles = 0;
async function role(): Promise<{ id: string; name: string }> {
  const name = `u5xx-${++roles}`;
  return { id: await customRole(sandbox(), name), name };
}
const holds = async (user: string, roleId: string) =>
  (await held(sandbox(), user)).some((a) => a.role_id === roleId);
const ASSIGN_SAFE =
  'run the same command again to find out: it is safe (a grant the lost attempt made is reported as already assigned, never made twice)';

describe('a single change answered 5xx', () => {
  it('500 after the grant was made: the outcome is unknown, and running it again settles it', async () => {
    const user = bulkUser(1);
    const { id, name } = await role();
    lose.set(user, 500);
    const r = await svc.run(assignArgv(user, name), via());
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(
      `error: injected fault: the change was applied, the answer lost, so the outcome is unknown: the platform may have made this change (HTTP 500, service_unavailable); ${ASSIGN_SAFE}\n`,
    );
    expect(await holds(user, id)).toBe(true);
    lose.clear();
    const again = await svc.run(assignArgv(user, name), via());
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`^skipped: already_assigned — ${user} already holds ${name} `));
  });

  it('--json: the error has "outcome":"unknown" and the answer\'s status', async () => {
    const user = bulkUser(2);
    const { name } = await role();
    lose.set(user, 500);
    const r = await svc.run(assignArgv(user, name, '--json'), via());
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(JSON.parse(r.stderr).error).toEqual({
      code: 'service_unavailable',
      message:
        'injected fault: the change was applied, the answer lost, so the outcome is unknown: the platform may have made this change',
      exit_code: 1,
      status: 500,
      hint: ASSIGN_SAFE,
      outcome: 'unknown',
    });
  });

  it('503 on every attempt (retried with the same key): the outcome is unknown too', async () => {
    const user = bulkUser(3);
    const { id, name } = await role();
    lose.set(user, 503);
    const r = await svc.run(assignArgv(user, name), via());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: injected fault: the change was applied, the answer lost, so the outcome is unknown: the platform may have made this change (HTTP 503, service_unavailable); ${ASSIGN_SAFE}\n`,
    );
    expect(await holds(user, id)).toBe(true);
  });

  it('a revoke answered 500 after it was made says how a revoke is settled', async () => {
    const user = bulkUser(4);
    const { id, name } = await role();
    expect((await svc.run(assignArgv(user, name))).code).toBe(0);
    lose.set(user, 500);
    const r = await svc.run(['roles', 'revoke', user, name, '--yes'], via());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: injected fault: the change was applied, the answer lost, so the outcome is unknown: the platform may have made this change (HTTP 500, service_unavailable); run the same command again to find out: it is safe (a grant the lost attempt revoked is reported as not held)\n',
    );
    expect(await holds(user, id)).toBe(false);
  });

  it('501 says nothing was done: a plain failure', async () => {
    const user = bulkUser(5);
    const { id, name } = await role();
    refuse.set(user, 501);
    const r = await svc.run(assignArgv(user, name, '--json'), via());
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stderr);
    expect(error).toEqual({ code: 'not_implemented', message: 'Not Implemented', exit_code: 1, status: 501 });
    expect(await holds(user, id)).toBe(false);
  });

  it('svc api: a POST answered 500 prints the body and says the outcome is unknown', async () => {
    const user = bulkUser(6);
    const { id } = await role();
    lose.set(user, 500);
    const r = await svc.run(
      ['api', 'POST', `/v1/users/${user}/roles`, '-f', `role_id=${id}`, '-f', 'justification=t'],
      via(),
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe('service_unavailable');
    // It names the key it sent: re-run under it, the platform answers with the same grant.
    expect(r.stderr).toMatch(
      /^error: injected fault: the change was applied, the answer lost, so the outcome is unknown: the platform may have made this change \(HTTP 500, service_unavailable\); re-run with -H 'Idempotency-Key: svc_[0-9a-f-]{36}' to get the same answer without making the change twice \(the platform keeps it for 24 hours\)\n$/,
    );
    expect(await holds(user, id)).toBe(true);
  });
});

describe('a bulk run whose changes are answered 500 after they were made', () => {
  it('counts them apart from the failed, with an unknown outcome; the same command settles them', async () => {
    const users = [bulkUser(10), bulkUser(11), bulkUser(12)];
    const { id, name } = await role();
    const rows = users.map((user) => `${user},${name},never,t`).join('\n');
    const path = svc.file(`${name}.csv`, `user,role,expires_in,justification\n${rows}\n`);
    lose.set(users[1]!, 500);
    const first = await svc.run(['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1'], via());
    expect(first.code).toBe(7);
    const results = ndjson(first.stdout);
    expect(results.map((row) => [row.line, row.status, row.outcome])).toEqual([
      [2, 'ok', undefined],
      [3, 'failed', 'unknown'],
      [4, 'ok', undefined],
    ]);
    expect(results[1]?.error).toMatchObject({ code: 'service_unavailable', status: 500 });
    const lines = first.stderr.split('\n');
    expect(lines[0]).toMatch(
      /^2 granted, 1 with an unknown outcome in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)$/,
    );
    expect(JSON.parse(lines[1]!).error.hint).toMatch(
      /^run the same command again with the same profile, logged in as the same user or with the same API key, to settle them \(journal .+\)$/,
    );
    expect((await assignments(sandbox(), id)).total).toBe(3);

    lose.clear();
    const resumed = await svc.run(
      ['roles', 'assign', '--file', path, '--ndjson', '--concurrency', '1'],
      via(),
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(ndjson(resumed.stdout).map((row) => [row.line, row.status, row.replayed])).toEqual([
      [2, 'skipped', undefined],
      [3, 'ok', true],
      [4, 'skipped', undefined],
    ]);
    expect((await assignments(sandbox(), id)).total).toBe(3);
  });

  it("the sandbox's own --fault-phase after --fail-status 500: every row the platform made is granted or unknown, never plain failed", async () => {
    const users = Array.from({ length: 200 }, (_, i) => bulkUser(100 + i));
    const { id, name } = await role();
    const rows = users.map((user) => `${user},${name},1h,bulk`).join('\n');
    const path = svc.file(`${name}.csv`, `user,role,expires_in,justification\n${rows}\n`);
    sandbox().faults.update({ fail_rate: 0.3, phase: 'after', fail_status: 500, retry_after: '0', seed: 7 });
    const r = await svc.run(['roles', 'assign', '--file', path, '--ndjson']);
    sandbox().faults.update(NO_FAULTS);
    expect(r.code).toBe(7);
    const results = ndjson(r.stdout);
    const failed = results.filter((row) => row.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.filter((row) => row.outcome !== 'unknown')).toEqual([]);
    const ok = results.filter((row) => row.status === 'ok').length;
    expect(r.stderr.split('\n')[0]).toMatch(
      new RegExp(
        `^${ok} granted, ${failed.length} with an unknown outcome in Acme Treasury \\(acme-treasury\\) \\(\\d+\\.\\d s\\)$`,
      ),
    );
    // The platform made all of them.
    expect((await assignments(sandbox(), id)).total).toBe(200);
  });
});
