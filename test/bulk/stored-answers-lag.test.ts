import { describe, expect, it } from 'vitest';
import { bulkRunner, bulkUser, customRole, held } from '../helpers/bulk.js';
import { ndjson } from '../helpers/context.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';

// review20 F6: a fresh run whose first answer to a row was lost, and whose retry the platform
// answered from its record (this run's own change, just made), read the user's assignments once
// from a server whose reads lag behind its writes: the grant not listed yet was "does not hold …
// now", the revocation's very assignment still listed was "holds … again, granted at <before the
// revocation>"; exit 7 for changes that were made. Now the check reads again through the lag's
// waits, and a change still not shown is an unknown outcome, never "changed since".
const sandbox = useSandbox({ users: 6 });
const svc = bulkRunner(sandbox);
/** While true, the first request of each grant or revocation path loses its answer (the retry passes). */
let lostOnce = false;
/** While true, every grant or revocation answer is lost (the run ends unknown; the next resumes it). */
let lostAll = false;
/** A lagging read of one user's grants of one role: how many reads still show the state before the change. */
let lag: { user: string; roleId: string; change: 'grant' | 'revoke'; reads: number } | undefined;
/** The bulk users whose assignments svc read through the proxy, in order. */
const reads: string[] = [];
const rolesOf = (path: string) => /^\/v1\/users\/(usr_bulk_\d+)\/roles(\?|$)/.exec(path)?.[1];
const lagging = (method: string, path: string) =>
  method === 'GET' && lag !== undefined && lag.reads > 0 && rolesOf(path) === lag.user;
const proxy = useLossyProxy(sandbox, {
  before: (method, path) => {
    const user = rolesOf(path);
    if (method === 'GET' && user) reads.push(user);
  },
  lose: (method, path, seen) =>
    ((lostOnce && seen === 1) || lostAll) &&
    (method === 'DELETE' || (method === 'POST' && /\/v1\/users\/[^/]+\/roles$/.test(path))),
  // A revocation's lagging read lists the revoked assignment as it was before (held).
  rewrite: (method, path) =>
    lagging(method, path) && lag?.change === 'revoke' && !path.includes('include_inactive')
      ? `${path}${path.includes('?') ? '&' : '?'}include_inactive=true`
      : path,
  reshape: (method, path, status, text) => {
    if (!lagging(method, path) || !lag) return undefined;
    const { roleId, change } = lag;
    lag.reads--;
    const body = JSON.parse(text) as { items: Array<Record<string, unknown>> };
    body.items =
      change === 'grant'
        ? body.items.filter((a) => a.role_id !== roleId)
        : body.items.map((a) =>
            a.role_id === roleId && a.status === 'revoked'
              ? { ...a, status: 'active', revoked_at: null, revocation_audit_trail_id: null }
              : a,
          );
    return { status, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
  },
});
/** The lag's waits are recorded, not waited (the run's clock). */
const waits: number[] = [];
const via = () => ({
  env: { SVC_BASE_URL: proxy().url },
  clock: {
    now: () => Date.now(),
    sleep: async (ms: number) => {
      waits.push(ms);
    },
  },
});
const holds = async (user: number, roleId: string) =>
  (await held(sandbox(), bulkUser(user))).some((a) => a.role_id === roleId);
const grantsFile = async (name: string, user: number) => {
  const id = await customRole(sandbox(), name);
  const path = svc.file(
    `${name}.csv`,
    `user,role,expires_in,justification\n${bulkUser(user)},${name},8h,t\n`,
  );
  return { id, path };
};
/** Runs `argv` through the proxy with the first answers lost and `lagged` lagging reads; forgets the lag after. */
const lossyRun = async (argv: string[], lagged: NonNullable<typeof lag>) => {
  lostOnce = true;
  lag = lagged;
  reads.length = 0;
  waits.length = 0;
  try {
    return await svc.run(argv, via());
  } finally {
    lostOnce = false;
    lag = undefined;
  }
};

describe('a stored answer to this run’s own lost attempt is read again through a lagging server', () => {
  it('roles assign --file: a grant the reads show only on the third is ok, not "does not hold … now"', async () => {
    const { id, path } = await grantsFile('lag-grant', 1);
    const argv = ['roles', 'assign', '--file', path, '--ndjson'];
    const run = await lossyRun(argv, { user: bulkUser(1), roleId: id, change: 'grant', reads: 2 });
    const [row] = ndjson(run.stdout);
    expect([row.status, row.replayed, row.error]).toEqual(['ok', true, undefined]);
    expect(run.code).toBe(0);
    expect(reads).toEqual([bulkUser(1), bulkUser(1), bulkUser(1)]);
    expect(waits.filter((ms) => ms > 0)).toEqual([250, 500]);
    expect(await holds(1, id)).toBe(true);
  });

  it('roles assign --file: a grant never shown is an unknown outcome, not changed since; the same command settles it', async () => {
    const { id, path } = await grantsFile('lag-grant-never', 2);
    const argv = ['roles', 'assign', '--file', path, '--ndjson'];
    const run = await lossyRun(argv, { user: bulkUser(2), roleId: id, change: 'grant', reads: 99 });
    const [row] = ndjson(run.stdout);
    expect([row.status, row.outcome, row.error?.code]).toEqual(['failed', 'unknown', 'not_shown_yet']);
    expect(row.error.message).toMatch(
      new RegExp(
        `^granted by an attempt of this run whose answer was lost at \\S+Z \\(the platform answered with its record of it\\), but after 4 reads the platform does not list ${bulkUser(2)}'s lag-grant-never granted: a read that lags behind the change \\(a server's reads may\\), or it was changed since; svc cannot tell$`,
      ),
    );
    expect(row.error.hint).toBe(
      `run the same command again to check it again (the same key is answered the same), or check it with svc roles assignments ${bulkUser(2)}`,
    );
    expect(run.code).toBe(7);
    expect(reads).toHaveLength(4);
    // The same command: the same key, answered from the record, read again: it shows now.
    const again = await svc.run(argv, via());
    expect(ndjson(again.stdout).map((r) => [r.status, r.replayed])).toEqual([['ok', true]]);
    expect(again.code).toBe(0);
    expect(await holds(2, id)).toBe(true);
  });

  it('roles revoke --file: the revoked assignment still listed held is no "holds … again"; read again, it is revoked', async () => {
    const { id, path } = await svc.grantedByFile('lag-revoke', [3]);
    const argv = ['roles', 'revoke', '--file', path, '--yes', '--ndjson'];
    const run = await lossyRun(argv, { user: bulkUser(3), roleId: id, change: 'revoke', reads: 1 });
    const [row] = ndjson(run.stdout);
    expect([row.status, row.replayed, row.error]).toEqual(['ok', true, undefined]);
    expect(run.code).toBe(0);
    expect(reads).toEqual([bulkUser(3), bulkUser(3)]);
    expect(await holds(3, id)).toBe(false);
  });

  it('roles revoke --file: the revoked assignment listed held through every read is an unknown outcome', async () => {
    const { id, path } = await svc.grantedByFile('lag-revoke-never', [4]);
    const argv = ['roles', 'revoke', '--file', path, '--yes', '--ndjson'];
    const run = await lossyRun(argv, { user: bulkUser(4), roleId: id, change: 'revoke', reads: 99 });
    const [row] = ndjson(run.stdout);
    expect([row.status, row.outcome, row.error?.code]).toEqual(['failed', 'unknown', 'not_shown_yet']);
    expect(row.error.message).toMatch(
      new RegExp(
        `^revoked by an attempt of this run whose answer was lost at \\S+Z \\(the platform answered with its record of it\\), but after 4 reads the platform still lists ${bulkUser(4)}'s lag-revoke-never held, and not as a grant made after the revocation: `,
      ),
    );
    expect(row.error.message).not.toContain('again');
    expect(run.code).toBe(7);
    expect(reads).toHaveLength(4);
    const again = await svc.run(argv, via());
    expect(ndjson(again.stdout).map((r) => [r.status, r.replayed])).toEqual([['ok', true]]);
    expect(again.code).toBe(0);
    expect(await holds(4, id)).toBe(false);
  });

  // review20c F10: a resumed run's grant, answered from the record, was judged on one read: a
  // lagging read that did not list it yet made it "changed since … does not hold … now" (exit 7)
  // though the earlier run's change is as fresh as a lost answer's.
  it('roles assign --file, resumed: a grant the earlier run made that the first read does not list is read again, ok', async () => {
    const { id, path } = await grantsFile('lag-grant-resumed', 5);
    const argv = ['roles', 'assign', '--file', path, '--ndjson'];
    lostAll = true;
    let first: Awaited<ReturnType<typeof svc.run>>;
    try {
      first = await svc.run(argv, via());
    } finally {
      lostAll = false;
    }
    expect([first.code, ndjson(first.stdout)[0]?.outcome]).toEqual([7, 'unknown']);
    expect(await holds(5, id)).toBe(true);
    lag = { user: bulkUser(5), roleId: id, change: 'grant', reads: 1 };
    reads.length = 0;
    waits.length = 0;
    let run: Awaited<ReturnType<typeof svc.run>>;
    try {
      run = await svc.run(argv, via());
    } finally {
      lag = undefined;
    }
    const [row] = ndjson(run.stdout);
    expect([row.status, row.replayed, row.error]).toEqual(['ok', true, undefined]);
    expect(run.code, run.stderr).toBe(0);
    expect(reads).toEqual([bulkUser(5), bulkUser(5)]);
    expect(waits.filter((ms) => ms > 0)).toEqual([250]);
  });
});
