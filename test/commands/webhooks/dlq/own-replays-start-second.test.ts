/**
 * A new `replay --dlq --wait` run whose replays fail and come back to the queue says they are its
 * own, whether they came back in the second it started or later (session 27's flake of
 * stdout-closed-outcome `--dlq`): the entries of its start second were counted, but not told its
 * own, so the line's words depended on whether the platform's second had turned by then. Here the
 * platform's clock stands still: everything is in the start second.
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../../helpers/bulk.js';
import { useSandbox } from '../../../helpers/sandbox.js';
import { deadLetteredQueue } from '../../../helpers/webhooks.js';

const frozen = Date.parse('2026-11-20T10:00:00.200Z');
const sandbox = useSandbox({ baseClock: () => frozen });
const svc = bulkRunner(sandbox);

describe('replay --dlq --wait: its replays back in the queue in its start second', () => {
  it.each([[[]], [['--json']]])(
    '%j: are said to be its own',
    async (mode) => {
      const q = await deadLetteredQueue(sandbox(), { status: 500 }, 2, { max_attempts: 1 });
      const r = await svc.run(['webhooks', 'replay', q.webhook, '--dlq', '--wait', ...mode]);
      await q.target.close();
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr.split('\n')).toContain(
        '2 entries dead-lettered since the run started (2026-11-20T10:00:00Z) are not part of it ' +
          "(they are replays of this run's entries, which failed again and came back to the queue after svc last read them): " +
          'run the same command again to replay them (a new run)',
      );
    },
    30_000,
  );
});
