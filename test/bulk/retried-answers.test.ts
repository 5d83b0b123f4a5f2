import { afterEach, describe, expect, it } from 'vitest';
import { afterResuming, assignments, bulkRunner, bulkUser, customRole } from '../helpers/bulk.js';
import { virtualClock } from '../helpers/context.js';
import { hangTimer, refusal, useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { timeless } from '../helpers/webhooks.js';

// attack18b #11: a grant whose first attempt timed out (the server still working on it) is retried
// with the same key; a server that answers the retry 409 idempotency_key_in_use (Stripe's code for
// "the first is still being processed") made it a plain failure: bulk "failed … fix the file",
// the single verb exit 6 — every grant was made. svc waits for it (Retry-After, bounded) and takes
// its answer; if it stays in use, the outcome is unknown, never a refusal.
const sandbox = useSandbox({ users: 20 });
const svc = bulkRunner(sandbox);
const GRANT = /^\/v1\/users\/[^/]+\/roles$/;
/** How many retries of a key are answered "in use" before the proxy passes one on. */
let inUse = 0;
const retries = new Map<string, number>();
const keys: string[] = [];
afterEach(() => retries.clear());
/** svc's timeouts: the hung attempt's fires once it is hung, the others' never in a test's time. */
let timeouts = hangTimer();
const busy = useLossyProxy(sandbox, {
  // The first attempt of each grant reaches the platform and is never answered (svc's timeout).
  lose: (method, path, seen) => {
    if (!(method === 'POST' && GRANT.test(path) && seen === 1)) return false;
    timeouts.hang();
    return 'hang';
  },
  refuse: (method, path, body) => {
    if (method !== 'POST' || !GRANT.test(path)) return undefined;
    keys.push(JSON.parse(body).idempotency_key);
    const n = (retries.get(path) ?? -1) + 1;
    retries.set(path, n);
    if (n === 0 || n > inUse) return undefined;
    return {
      ...refusal(
        409,
        'idempotency_key_in_use',
        'A request with this idempotency key is still being processed',
      ),
      headers: { 'retry-after': '0' },
    };
  },
});

async function grantFile(tag: string, users: number[]) {
  const id = await customRole(sandbox(), tag);
  const rows = users.map((n) => `${bulkUser(n)},${tag}`).join('\n');
  return { id, path: svc.file(`${tag}.csv`, `user,role\n${rows}\n`) };
}
const grantArgv = (path: string) => [
  'roles',
  'assign',
  '--file',
  path,
  '--expires-in',
  '1d',
  '--justification',
  'x',
  '--yes',
  '--timeout',
  '0.5',
  '--concurrency',
  '1',
];
const env = () => ({ SVC_BASE_URL: busy().url });

describe('a retry answered 409 idempotency_key_in_use (the first attempt still being processed)', () => {
  it('bulk: waits for it and takes its answer, every row granted by this run, the same key throughout', async () => {
    inUse = 2;
    keys.length = 0;
    const { id, path } = await grantFile('in-use-a', [1, 2]);
    timeouts = hangTimer();
    const clock = { ...virtualClock(Date.now()), timer: timeouts.timer };
    const r = await svc.run(grantArgv(path), { env: env(), clock });
    expect((await assignments(sandbox(), id)).active).toBe(2);
    expect([r.code, timeless(r.stderr)]).toEqual([
      0,
      '2 of these were done by an earlier attempt whose answer was lost; the platform answered with what it did then\n✓ 2 granted in Acme Treasury (acme-treasury) (T)\n',
    ]);
    expect(r.stdout.split('\n').filter((l) => /^\d+\tok\t/.test(l))).toHaveLength(2);
    // Each row: one key for its first attempt, its two "in use" retries and the one answered.
    expect(keys).toHaveLength(8);
    expect(new Set(keys).size).toBe(2);
  });

  it('bulk: one that stays in use is an unknown outcome to settle by running the command again, never "failed … fix the file"', async () => {
    inUse = Number.POSITIVE_INFINITY;
    const { id, path } = await grantFile('in-use-b', [3, 4]);
    timeouts = hangTimer();
    const clock = { ...virtualClock(Date.now()), timer: timeouts.timer };
    const r = await svc.run([...grantArgv(path), '--ndjson'], { env: env(), clock });
    expect((await assignments(sandbox(), id)).active).toBe(2);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((row) => [row.status, row.outcome, row.error.code])).toEqual([
      ['failed', 'unknown', 'idempotency_key_in_use'],
      ['failed', 'unknown', 'idempotency_key_in_use'],
    ]);
    expect(rows[0].error.message).toMatch(
      /^the server is still working on this request \(idempotency key \S+\) after svc waited 1 s for it; it may still complete, so the outcome is unknown: the platform may have made this change$/,
    );
    expect(r.code).toBe(7);
    const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
    expect(error.message).toContain('2 of 2 items ended with an unknown outcome');
    expect(error.hint).toMatch(/^run the same command again .*to settle them \(journal /);
    // Once the platform is done with them, the same command settles both as this run's grants.
    inUse = 0;
    const again = await svc.run(grantArgv(path), { env: env(), clock });
    expect([again.code, timeless(afterResuming(again.stderr))]).toEqual([
      0,
      '✓ 2 granted by the run this one resumes in Acme Treasury (acme-treasury) (T)\n',
    ]);
  });

  it('single verb: waits and takes the answer (✓, exit 0); one that stays in use is exit 1, outcome unknown, not 6', async () => {
    inUse = 1;
    const role = await customRole(sandbox(), 'in-use-c');
    const argv = (n: number) => [
      'roles',
      'assign',
      bulkUser(n),
      'in-use-c',
      '--expires-in',
      '1d',
      '--justification',
      'x',
      '--yes',
      '--timeout',
      '0.5',
    ];
    timeouts = hangTimer();
    const clock = { ...virtualClock(Date.now()), timer: timeouts.timer };
    const ok = await svc.run(argv(5), { env: env(), clock });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/✓ granted in-use-c to usr_bulk_000005/);
    inUse = Number.POSITIVE_INFINITY;
    const stuck = await svc.run([...argv(6), '--json'], { env: env(), clock });
    expect((await assignments(sandbox(), role)).active).toBe(2);
    expect(stuck.code).toBe(1);
    const error = JSON.parse(stuck.stderr).error;
    expect([error.code, error.outcome, error.exit_code]).toEqual(['idempotency_key_in_use', 'unknown', 1]);
    expect(error.message).toMatch(
      /^the server is still working on this request .* so the outcome is unknown/,
    );
  });
});

// attack18b #16: a server that keeps no stored answers. A grant whose answer was lost is retried and
// answered 409 assignment_exists: svc said "skipped already_assigned … nothing changed" / "0
// granted, 2 skipped" though this run made both. After a lost answer, "exists" means done, most
// likely by the lost attempt: said so and counted done.
let fresh = 0;
const forgetful = useLossyProxy(sandbox, {
  lose: (method, path, seen) => (method === 'POST' && GRANT.test(path) && seen === 1 ? 'drop' : false),
  body: (method, path, body) =>
    method === 'POST' && GRANT.test(path)
      ? JSON.stringify({ ...JSON.parse(body), idempotency_key: `fresh-${++fresh}` })
      : body,
});

describe('a retry after a lost answer told "assignment_exists" by a server without stored answers', () => {
  it('bulk: each row granted, found done after the lost answer, never "skipped … nothing changed"', async () => {
    const { id, path } = await grantFile('forgot-a', [7, 8]);
    const argv = grantArgv(path).filter((a, i, all) => a !== '--timeout' && all[i - 1] !== '--timeout');
    const r = await svc.run(argv, { env: { SVC_BASE_URL: forgetful().url } });
    expect((await assignments(sandbox(), id)).active).toBe(2);
    const rows = r.stdout.trim().split('\n');
    expect(rows.map((l) => l.split('\t').slice(0, 4))).toEqual([
      ['2', 'ok', bulkUser(7), 'forgot-a'],
      ['3', 'ok', bulkUser(8), 'forgot-a'],
    ]);
    expect(rows[0]).toContain(
      'found_after_lost_answer: the answer to the grant was lost (the connection dropped) and its retry found it made: most likely by that attempt',
    );
    expect([r.code, timeless(r.stderr)]).toEqual([
      0,
      '✓ 2 granted (2 found done by a retry after the answer to the first attempt was lost) in Acme Treasury (acme-treasury) (T)\n',
    ]);
  });

  it('single verb: ✓ granted, most likely by its lost attempt; --json marks it found_after_lost_answer', async () => {
    await customRole(sandbox(), 'forgot-b');
    const argv = (n: number) => [
      'roles',
      'assign',
      bulkUser(n),
      'forgot-b',
      '--expires-in',
      '1d',
      '--justification',
      'x',
      '--yes',
    ];
    const r = await svc.run(argv(9), { env: { SVC_BASE_URL: forgetful().url } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^✓ granted forgot-b to usr_bulk_000009 in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 until \S+ \(audit trail aud_\w+\): most likely by this command's attempt whose answer was lost \(the connection dropped\); its retry found the grant in place\n$/,
    );
    const json = await svc.run([...argv(10), '--json'], { env: { SVC_BASE_URL: forgetful().url } });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ user_id: bulkUser(10), found_after_lost_answer: true });
    expect(JSON.parse(json.stdout).already_assigned).toBeUndefined();
  });
});

// attack18b #7: an answer marked Idempotent-Replayed at the first and only attempt of a key this run
// made up was said "done by an earlier attempt whose answer was lost": no answer was lost.
const marking = useLossyProxy(sandbox, {
  lose: () => false,
  reshape: (method, path, status, text) =>
    method === 'POST' && GRANT.test(path) && status < 300
      ? { status, body: text, headers: { 'idempotent-replayed': 'true' } }
      : undefined,
});

describe('an answer marked replayed at the first attempt of a new run', () => {
  it('is not said to be a lost attempt: svc says what it knows', async () => {
    const { id, path } = await grantFile('marked', [11, 12]);
    const argv = grantArgv(path).filter((a, i, all) => a !== '--timeout' && all[i - 1] !== '--timeout');
    const r = await svc.run(argv, { env: { SVC_BASE_URL: marking().url } });
    expect((await assignments(sandbox(), id)).active).toBe(2);
    expect([r.code, timeless(r.stderr)]).toEqual([
      0,
      '2 of these the platform answered as done before (Idempotent-Replayed) though svc lost no answer of them: their idempotency key was not new to it (another run with the same key, or the server marks answers so); the platform answered with what it did then\n✓ 2 granted in Acme Treasury (acme-treasury) (T)\n',
    ]);
  });
});
