/**
 * A bulk run under the platform's rate limit (review s13 http, findings 5 and 7): a 429 whose
 * Retry-After is longer than svc waits by itself stops the run (it used to send every remaining
 * row into the same 429), and a shared pause is said once, not once per worker per attempt.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { bulkRunner, bulkUser, customRole, fixedClock } from '../../helpers/bulk.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox({ users: 40 });
const svc = bulkRunner(sandbox);
let files = 0;

/** A file granting a fresh role to users 1…n. */
async function grants(n: number): Promise<string> {
  const name = `rl-${++files}`;
  await customRole(sandbox(), name);
  const rows = Array.from({ length: n }, (_, i) => `${bulkUser(i + 1)},${name},7d,test`);
  return svc.file(`${name}.csv`, `user,role,expires_in,justification\n${rows.join('\n')}\n`);
}

const faults = (body: Record<string, unknown>) => call(sandbox(), 'PUT', '/_sandbox/faults', { body });
/** The grants the sandbox has refused with 429 so far. */
const refused = async () =>
  ((await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>)[
    'POST /v1/users/:id/roles 429'
  ] ?? 0;
afterEach(() => faults({ rate_limit: 0 }));

describe('a bulk run told to wait longer than svc waits', () => {
  it.each(['plain', 'json', 'ndjson'] as const)(
    '%s: stops starting rows, counts them, and says when to run it again',
    async (mode) => {
      const path = await grants(12);
      const clock = fixedClock();
      const before = await refused();
      // Room for the first grant and the read of who the caller is its answer asks for (a failed
      // read makes that row unknown: review27b M2), then a grant refused.
      await faults({ rate_limit: 3, retry_after: '120' });
      const flags = mode === 'plain' ? [] : [`--${mode}`];
      const r = await svc.run(['roles', 'assign', '--file', path, '--concurrency', '1', ...flags], { clock });
      // One refused grant: the run did not send the rest into the same limit.
      expect((await refused()) - before).toBe(1);
      const journal = r.stderr.match(/\(journal ([^)]+)\)/)?.[1];
      // How many rows the limit let through first depends on the sandbox's bucket (its reads count).
      const granted = (r.stdout.match(/"status":\s*"ok"|\tok\t/g) ?? []).length;
      const message = `stopped after ${granted + 1} of 12: the platform rate-limits this run and asks for a wait of 120 s, longer than svc waits by itself (60 s); the rows not started were not sent`;
      const hint = `run the same command again with the same profile, logged in as the same user or with the same API key, after ${isoSeconds(clock.ms + 120_000)} to resume (journal ${journal})`;
      const counts = `${granted} granted, 1 failed, ${11 - granted} not started in Acme Treasury (acme-treasury) (0.0 s)\n`;
      expect(r.stderr).toBe(
        mode === 'plain'
          ? `${counts}error: ${message}; ${hint}\n`
          : `${counts}${JSON.stringify({ error: { code: 'rate_limited', message, exit_code: 7, hint } })}\n`,
      );
      expect(r.code).toBe(7);
      expect(r.stdout).not.toContain('lower --concurrency');
    },
  );
});

/** Every request the sandbox has answered 429 so far (a dry run's checks are reads). */
const all429 = async () =>
  Object.entries((await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>)
    .filter(([key]) => key.endsWith(' 429'))
    .reduce((sum, [, count]) => sum + count, 0);

describe('a dry run told to wait longer than svc waits', () => {
  it.each(['plain', 'json'] as const)(
    '%s: stops checking rows, counts them, claims nothing of the rest, and says when to run it again',
    async (mode) => {
      const path = await grants(12);
      const clock = fixedClock();
      await faults({ rate_limit: 4, retry_after: '120' });
      const before = await all429();
      const flags = mode === 'plain' ? [] : [`--${mode}`];
      const r = await svc.run(
        ['roles', 'assign', '--file', path, '--concurrency', '1', '--dry-run', ...flags],
        { clock },
      );
      // One check answered 429: the rest of the file was not sent into the same limit.
      expect((await all429()) - before).toBe(1);
      // How many checks the limit let through first depends on the sandbox's bucket.
      const checked = (r.stdout.match(/"plan":\s*"grant"|\tgrant\t/g) ?? []).length;
      const message = `stopped after ${checked + 1} of 12: the platform rate-limits this dry run and asks for a wait of 120 s, longer than svc waits by itself (60 s); the rows not started were not checked`;
      const hint = `nothing was changed; run the dry run again after ${isoSeconds(clock.ms + 120_000)}`;
      const counts = `dry run: ${checked} would be granted, 0 would be skipped, 0 would fail, 1 could not be checked, ${11 - checked} not started\n`;
      expect(r.stderr).toBe(
        mode === 'plain'
          ? `${counts}error: ${message}; ${hint}\n`
          : `${counts}${JSON.stringify({ error: { code: 'rate_limited', message, exit_code: 1, hint } })}\n`,
      );
      expect(r.code).toBe(1);
    },
  );
});

describe('a bulk run under a rate limit it can wait out', () => {
  it('says each shared pause once, not once per worker and attempt', async () => {
    const path = await grants(12);
    // Virtual time shared by the workers, as real time is: waits that overlap end together, and
    // each moves the sandbox's clock (which refills its bucket) by the time that passed.
    let now = Date.now();
    const clock = {
      now: () => now,
      async sleep(ms: number, signal?: AbortSignal) {
        signal?.throwIfAborted();
        const to = now + ms;
        await new Promise((resolve) => setImmediate(resolve));
        if (to > now) {
          sandbox().state.clock.advance(to - now);
          now = to;
        }
      },
    };
    const before = await refused();
    await faults({ rate_limit: 2, retry_after: '3' });
    const r = await svc.run(['roles', 'assign', '--file', path, '--concurrency', '4'], { clock });
    const answered429 = (await refused()) - before;
    const failed = Number(/(\d+) failed/.exec(r.stderr)?.[1] ?? 0);
    const notes = r.stderr.split('\n').filter((line) => line.includes('rate limited'));
    expect(notes.length).toBeGreaterThan(0);
    for (const note of notes)
      expect(note).toMatch(/^rate limited \(HTTP 429\); retrying in 3 s \(\d of 3\)$/);
    // Each 429 that was waited out (all but a failed row's last) was said before: now only the one
    // that starts a pause every worker keeps; the other workers' 429s in it are not said again.
    expect(notes.length).toBeLessThan(answered429 - failed);
  });
});
