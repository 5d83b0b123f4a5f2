import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { bulkRunner, bulkUser, customRole } from '../../helpers/bulk.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

// The platform's clock passed a run's --expires-in (counted from the run's start) mid-run: every
// row left failed invalid_expiry, exit 7, with "fix the file… or run the same command again to
// retry the failed rows"; the file was fine and the same command was refused with one line per
// row (exploratory test s12, longrun12 finding 2). The run stops at the first such refusal, and
// both it and the resumed run say in one line what passed and how to go on.
const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
let grants = 0;
/** The platform's clock jumps 2 h just before it gets the third grant. */
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: async (method, path) => {
    if (method === 'POST' && /^\/v1\/users\/[^/]+\/roles$/.test(path) && ++grants === 3) {
      await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 7200 } });
    }
  },
});

describe('roles assign --file --expires-in when the platform clock passes the expiry mid-run', () => {
  it('stops at the first refusal, says the run expiry passed and how to go on; the resume refuses in one line', async () => {
    const role = `passing-${Date.now()}`;
    await customRole(sandbox(), role);
    const rows = [1, 2, 3, 4, 5, 6].map((n) => `${bulkUser(n)},${role}`).join('\n');
    const file = svc.file('passing.csv', `user,role\n${rows}\n`);
    const journal = join(svc.dir, 'passing.journal');
    const argv = ['roles', 'assign', '--file', file, '--expires-in', '1h', '--justification', 'x'];
    const flags = ['--concurrency', '1', '--journal', journal];
    const env = { SVC_BASE_URL: proxy().url };

    const first = await svc.run([...argv, ...flags], { env });
    expect(grants).toBe(3);
    const anchorMs = Date.parse(JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!).anchor);
    const ended = isoSeconds(anchorMs + 3600_000);
    const passed = `the run's expiry has passed on the platform's clock: expires_in 1h, counted from the run's start at ${isoSeconds(anchorMs)}, ended at ${ended}`;
    const hint = `start a new run, which counts from its own start: remove the journal ${journal} and run the same command again, or give a new --expires-in or an --expires-at (rows whose grant still holds are skipped)`;
    expect(first.code, first.stderr).toBe(2);
    const said = first.stderr.trimEnd().split('\n');
    expect(said).toHaveLength(2);
    expect(said[0]).toMatch(
      /^2 granted, 1 failed, 3 not started in Acme Treasury \(acme-treasury\) \([\d.]+ s\)$/,
    );
    expect(said[1]).toBe(
      `error: ${passed}; the platform refused line 4 (invalid_expiry); the run stopped, as its later rows count from the same start; ${hint}`,
    );
    expect(
      first.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t').slice(0, 2).join(' ')),
    ).toEqual(['2 ok', '3 ok', '4 failed']);

    const again = await svc.run([...argv, ...flags], { env });
    expect([again.code, again.stdout]).toEqual([2, '']);
    // The clocks as they are now (the platform 2 h ahead since the jump), then the refusal.
    expect(again.stderr).toBe(
      "warning: the platform's clock is 2 h ahead of this machine's (in step when the run first started); durations (expires_in, --expires-in) were counted from the platform's time then\n" +
        `error: ${passed}, for 4 rows still to grant; nothing was sent; ${hint}\n`,
    );
    expect(grants).toBe(3);

    // The hint holds: without the journal the same command is a new run, counted from its start.
    rmSync(journal);
    const fresh = await svc.run([...argv, ...flags], { env });
    expect(fresh.code, fresh.stderr).toBe(0);
    // The grants of the first run have expired on the platform's clock by now: made again.
    expect(fresh.stderr.split('\n').slice(1).join('\n')).toMatch(
      /^✓ 6 granted in Acme Treasury \(acme-treasury\) \([\d.]+ s\)\n$/,
    );
  });
});
