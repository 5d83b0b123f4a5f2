import { describe, expect, it } from 'vitest';
import { assignArgv, bulkRunner, bulkUser, customRole, held } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { refusal, useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';

// truth22 6: a stop lets a bulk row's request on the wire finish, but a row's follow-up request
// (--extend's PATCH after the grant was found held) still started after it. After a stop nothing
// new is sent: the PATCH is not, the grant keeps its expiry, and the run ends 130 to be resumed.
const sandbox = useSandbox({ users: 12 });
const svc = bulkRunner(sandbox);
let stop: AbortController | undefined;
const seen: string[] = [];
/** review22a F3: the first grant request's answer is lost (503 after the grant), the stop comes with its retry. */
let loseFirst = false;
/** review23b L2: the first grant request is answered 503 by the proxy itself, never passed on. */
let refuseFirst = false;
/** review23b L2: the stop comes with the request this picks, in place of the grant's. */
let stopOn: ((method: string, path: string) => boolean) | undefined;
const grants = (method: string, path: string) => method === 'POST' && path.startsWith('/v1/users/');
const proxy = useLossyProxy(sandbox, {
  lose: (method, path, count) =>
    loseFirst && method === 'POST' && path.startsWith('/v1/users/') && count === 1,
  refuse: (method, path) =>
    refuseFirst && grants(method, path) && seen.filter((s) => s === `${method} ${path}`).length === 1
      ? {
          ...refusal(503, 'service_unavailable', 'the test proxy is unavailable'),
          headers: { 'retry-after': '0' },
        }
      : undefined,
  before: (method, path) => {
    seen.push(`${method} ${path}`);
    if (stopOn) {
      if (stop && stopOn(method, path)) stop.abort();
      return;
    }
    const grant = method === 'POST' && path.startsWith('/v1/users/');
    // The stop comes while the row's grant request (with loseFirst: its retry) is on the wire.
    if (stop && grant && (!loseFirst || seen.filter((s) => s === `${method} ${path}`).length === 2))
      stop.abort();
  },
});

describe('a stop before a bulk row’s follow-up request', () => {
  it('--extend of a held grant: the POST finishes, the PATCH is never sent, exit 130', async () => {
    const role = 'stop-follow-up';
    await customRole(sandbox(), role);
    const user = bulkUser(1);
    const first = await svc.run([
      'roles',
      'assign',
      user,
      role,
      '--expires-in',
      '1h',
      '--justification',
      'first',
    ]);
    expect(first.code, first.stderr).toBe(0);
    const before = await held(sandbox(), user);
    const path = svc.file(`${role}.csv`, `user,role,expires_in,justification\n${user},${role},8h,moved\n`);
    stop = new AbortController();
    seen.length = 0;
    const r = await svc.run(['roles', 'assign', '--file', path, '--extend', '--yes', '--ndjson'], {
      signal: stop.signal,
      env: { SVC_BASE_URL: proxy().url },
    });
    stop = undefined;
    expect(r.code, r.stderr).toBe(130);
    expect(seen.filter((s) => s.startsWith('PATCH'))).toEqual([]);
    expect(await held(sandbox(), user)).toEqual(before);
    const [row] = ndjson(r.stdout);
    expect([row.status, row.error]).toEqual([
      'failed',
      {
        code: 'interrupted',
        message: `interrupted before it was sent: PATCH /v1/users/${user}/roles/${row.role_id} was not sent; nothing was changed`,
      },
    ]);
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error.message).toBe('interrupted after 1 of 1');
    // Counted apart among the failed: svc's own stop, not a refusal (truth22's note, review22a F3).
    expect(r.stderr.split('\n')[1]).toMatch(
      /^0 granted or extended, 1 failed \(1 stopped before its next request was sent\) in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)$/,
    );
  });

  it('a grant answered from the record, its check read stopped: made, not failed; its outcome unknown, exit 130', async () => {
    const role = 'stop-check-read';
    await customRole(sandbox(), role);
    const user = bulkUser(2);
    const path = svc.file(`${role}.csv`, `user,role,expires_in,justification\n${user},${role},8h,q\n`);
    stop = new AbortController();
    seen.length = 0;
    loseFirst = true;
    const r = await svc.run(['roles', 'assign', '--file', path, '--yes', '--ndjson'], {
      signal: stop.signal,
      env: { SVC_BASE_URL: proxy().url },
    });
    stop = undefined;
    loseFirst = false;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr.split('\n')[1]).toMatch(/^0 granted, 1 with an unknown outcome in /);
    // The grant was made (by the attempt whose answer was lost); the read after the retry was not sent.
    expect(await held(sandbox(), user)).toHaveLength(1);
    expect(seen.filter((s) => s.startsWith('POST'))).toHaveLength(2);
    expect(seen.at(-1)!.startsWith('POST')).toBe(true);
    const [row] = ndjson(r.stdout);
    // The contract's row statuses are ok, failed and skipped: unknown shows failed, outcome unknown.
    expect([row.status, row.outcome, row.error.code]).toEqual(['failed', 'unknown', 'interrupted']);
    // The follow-up is the check of the stored answer's grant (who the caller is was read at the
    // run's start since brief fixgrant4 item 3), not sent after the stop.
    expect(row.error.message).toMatch(
      new RegExp(
        `^granted by an attempt of this run whose answer was lost at \\S+Z \\(the platform answered with its record of it\\), but whether it is still so could not be read: interrupted before it was sent: GET /v1/users/${user}/roles was not sent$`,
      ),
    );
  });
  // review23b L2: a row's read before its change answers 2xx, and the change is never sent. A
  // read's answer is no change of the row's: the row is failed, "nothing was changed", counted
  // apart (a row counted unknown, "the platform answered its change", would say a change was made).
  it('a revoke row listing its grant, stopped while the read of the grant held now is on the wire: failed, nothing was changed', async () => {
    const role = 'stop-before-revoke';
    const roleId = await customRole(sandbox(), role);
    const user = bulkUser(3);
    const granted = await svc.run(assignArgv(user, role, '--yes'));
    expect(granted.code, granted.stderr).toBe(0);
    const before = await held(sandbox(), user);
    const grant = before.find((a) => a.role_id === roleId)!;
    // A listing's row (as `roles assignments --ndjson` writes it): it names its grant.
    const line = JSON.stringify({ user, role, audit_trail_id: grant.audit_trail_id });
    const path = svc.file(`${role}.ndjson`, `${line}\n`);
    stop = new AbortController();
    seen.length = 0;
    stopOn = (method, at) => method === 'GET' && at.startsWith(`/v1/users/${user}/roles`);
    const r = await svc.run(['roles', 'revoke', '--file', path, '--yes', '--ndjson'], {
      signal: stop.signal,
      env: { SVC_BASE_URL: proxy().url },
    });
    stop = undefined;
    stopOn = undefined;
    expect(r.code, r.stderr).toBe(130);
    expect(seen.filter((s) => s.startsWith('DELETE'))).toEqual([]);
    expect(await held(sandbox(), user)).toEqual(before);
    const [row] = ndjson(r.stdout);
    expect([row.status, row.outcome, row.error]).toEqual([
      'failed',
      undefined,
      {
        code: 'interrupted',
        message: `interrupted before it was sent: DELETE /v1/users/${user}/roles/${roleId} was not sent; nothing was changed`,
      },
    ]);
    expect(r.stderr.split('\n')[1]).toMatch(
      /^0 revoked, 1 failed \(1 stopped before its next request was sent\) in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)$/,
    );
  });

  // review23b L2: the grant request answered 503 (svc cannot tell it from one after the grant was
  // made), its retry refused 409 (held), --extend's PATCH stopped before it was sent: the row's
  // change may have been made, so its outcome is unknown, never "nothing was changed".
  it('--extend: a 503, then 409 held, then the PATCH stopped before it was sent: unknown, its change may have been made', async () => {
    const role = 'stop-after-maybe';
    const roleId = await customRole(sandbox(), role);
    const user = bulkUser(4);
    const first = await svc.run(assignArgv(user, role, '--yes'));
    expect(first.code, first.stderr).toBe(0);
    const before = await held(sandbox(), user);
    const path = svc.file(`${role}.csv`, `user,role,expires_in,justification\n${user},${role},8h,moved\n`);
    stop = new AbortController();
    seen.length = 0;
    refuseFirst = true;
    // The stop comes with the retry of the grant request, which the sandbox refuses 409 (held).
    stopOn = (method, at) => grants(method, at) && seen.filter((s) => s === `${method} ${at}`).length === 2;
    const r = await svc.run(['roles', 'assign', '--file', path, '--extend', '--yes', '--ndjson'], {
      signal: stop.signal,
      env: { SVC_BASE_URL: proxy().url },
    });
    stop = undefined;
    stopOn = undefined;
    refuseFirst = false;
    expect(r.code, r.stderr).toBe(130);
    expect(seen.filter((s) => s.startsWith('POST'))).toHaveLength(2);
    expect(seen.filter((s) => s.startsWith('PATCH'))).toEqual([]);
    expect(await held(sandbox(), user)).toEqual(before);
    const [row] = ndjson(r.stdout);
    expect([row.status, row.outcome, row.error]).toEqual([
      'failed',
      'unknown',
      {
        code: 'interrupted',
        message: `its change may have been made (an answer was lost, or an earlier attempt still ran), but the run stopped before its next request: interrupted before it was sent: PATCH /v1/users/${user}/roles/${roleId} was not sent`,
      },
    ]);
    expect(r.stderr.split('\n')[1]).toMatch(
      /^0 granted or extended, 1 with an unknown outcome in Acme Treasury \(acme-treasury\) \(\d+\.\d s\)$/,
    );
  });
});
