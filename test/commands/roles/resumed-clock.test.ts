import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../../../src/api/time.js';
import { bulkRunner, bulkUser, customRole } from '../../helpers/bulk.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { advanceClock, useSandbox } from '../../helpers/sandbox.js';

// attack22 F4: a resumed grants run counts expires_in from its first start, as its journal keeps
// (README: the requests are the first run's), so a 1 h row granted 40 minutes later lasts 20
// minutes. It said nothing of that, gave the clocks' gap of its first start as the gap now, and
// had no "resuming the run started at" line. The platform's clock moves; this machine's is real.
const sandbox = useSandbox({ users: 10 });
const svc = bulkRunner(sandbox);
let grants = 0;
/** The first run's third grant is refused (a failed row: the run ends exit 7, its journal kept). */
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  refuse: (method, path) =>
    method === 'POST' && /^\/v1\/users\/[^/]+\/roles$/.test(path) && ++grants === 3
      ? refusal(422, 'validation_error', 'refused once by the test proxy')
      : undefined,
});
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';

describe('roles assign --file resumed 40 minutes later, the platform 2 h ahead', () => {
  it('says which run it resumes, the gap now and then, and that its grants end 40 min sooner', async () => {
    const role = `resumed-${Date.now()}`;
    await customRole(sandbox(), role);
    const rows = [1, 2, 3].map((n) => `${bulkUser(n)},${role},1h,r${n}`).join('\n');
    const file = svc.file('resumed.csv', `user,role,expires_in,justification\n${rows}\n`);
    const journal = join(svc.dir, 'resumed.journal');
    const argv = ['roles', 'assign', '--file', file, '--concurrency', '1', '--journal', journal];
    const env = { SVC_BASE_URL: proxy().url };

    await advanceClock(sandbox(), 7200);
    const first = await svc.run(argv, { env });
    expect(first.code, first.stderr).toBe(7);
    const anchorMs = Date.parse(JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!).anchor);

    await advanceClock(sandbox(), 2400);
    const again = await svc.run(argv, { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.split('\n')).toEqual([
      "warning: the platform's clock is 2 h 40 min ahead of this machine's (2 h ahead when the run first started); durations (expires_in, --expires-in) were counted from the platform's time then",
      expect.stringMatching(
        new RegExp(
          `^taking up the failures of the run started at ${isoSeconds(anchorMs)} on the platform's clock \\(${TIME} on this machine's; it finished at ${TIME}\\): 2 done, 1 to do \\(journal ${journal}\\); `,
        ),
      ),
      expect.stringMatching(/^✓ 1 granted, 2 skipped in Acme Treasury \(acme-treasury\) \([\d.]+ s\)$/),
      '',
    ]);
    expect(again.stderr.split('\n')[1]).toMatch(
      new RegExp(
        `\\); the grants still to make count expires_in \\(and --expires-in\\) from that start \\(${isoSeconds(anchorMs)} on the platform's clock, 40 min ago\\), so each ends 40 min sooner than its span from now; for the full span, remove the journal ${journal} and run the command again$`,
      ),
    );
    // The row granted now ends an hour after the first start, as the journal promised.
    const row = again.stdout.split('\n').find((line) => line.startsWith('4\tok\t'));
    expect(row?.split('\t')).toContain(isoSeconds(anchorMs + 3_600_000));
  });

  // Session 23: with --json the line is a warning (it carries a note), in the words a terminal gets
  // ("…(journal J); the grants still to make …"), not a second wording ("…(journal J): the …").
  it('--json: the same line as a warning, in the same words', async () => {
    grants = 0;
    const role = `resumed-json-${Date.now()}`;
    await customRole(sandbox(), role);
    const rows = [4, 5, 6].map((n) => `${bulkUser(n)},${role},1h,r${n}`).join('\n');
    const file = svc.file('resumed-json.csv', `user,role,expires_in,justification\n${rows}\n`);
    const journal = join(svc.dir, 'resumed-json.journal');
    const argv = ['roles', 'assign', '--file', file, '--concurrency', '1', '--journal', journal, '--json'];
    const env = { SVC_BASE_URL: proxy().url };
    const first = await svc.run(argv, { env });
    expect(first.code, first.stderr).toBe(7);
    const anchorMs = Date.parse(JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!).anchor);

    await advanceClock(sandbox(), 2400);
    const again = await svc.run(argv, { env });
    expect(again.code, again.stderr).toBe(0);
    const said = again.stderr.split('\n').filter((line) => line.includes('the run started at'));
    expect(said).toEqual([
      expect.stringMatching(
        new RegExp(
          `^warning: taking up the failures of the run started at ${isoSeconds(anchorMs)} on the platform's clock \\(${TIME} on this machine's; it finished at ${TIME}\\): 2 done, 1 to do \\(journal ${journal}\\); the grants still to make count expires_in \\(and --expires-in\\) from that start \\(${isoSeconds(anchorMs)} on the platform's clock, 40 min ago\\), so each ends 40 min sooner than its span from now; for the full span, remove the journal ${journal} and run the command again$`,
        ),
      ),
    ]);
  });
});
