/**
 * A `dlq discard --all` run whose discards' answers were lost (review13 R5): it ends "run the same
 * command again to settle them", and the same command said only "nothing to discard: no queued
 * dead-letter entry matches.", exit 0, and removed the journal: the entries its lost attempts had
 * discarded were never named again. The run now keeps the entries it takes in its journal (as
 * `replay --dlq` does), so the resumed run owes a row for each that left the queue meanwhile.
 */

import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DlqEntry } from '../../../../src/api/schemas/webhooks.js';
import { bulkRunner } from '../../../helpers/bulk.js';
import { ndjson } from '../../../helpers/context.js';
import { useLossyProxy } from '../../../helpers/lossy-proxy.js';
import { useSandbox } from '../../../helpers/sandbox.js';
import { deadLetteredQueue, dlqEntries, journalFiles } from '../../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001 } });
const svc = bulkRunner(sandbox);
/** While set, every DELETE reaches the sandbox and its answer is lost (the connection closed). */
let losing = false;
const proxy = useLossyProxy(sandbox, { lose: (method) => (losing && method === 'DELETE' ? 'drop' : false) });

const note =
  '2 entries the earlier run had listed left the queue before this run (replayed, discarded or delivered by another run, or by an attempt of that run whose answer was lost; or gone): each is on its row, and none were discarded again\n';

describe('a resumed `dlq discard --all` run after lost answers', () => {
  it.each(['ndjson', 'plain'] as const)(
    '%s: the same command settles them: a skipped row each (already_discarded, while_stopped), exit 0',
    async (mode) => {
      const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 2);
      const [a, b] = entries as [DlqEntry, DlqEntry];
      const argv = ['webhooks', 'dlq', 'discard', webhook, '--all', '--yes', '--concurrency', '1'];
      const env = { SVC_BASE_URL: proxy().url, SVC_MAX_RETRIES: '0' };
      losing = true;
      let first: Awaited<ReturnType<typeof svc.run>>;
      try {
        first = await svc.run([...argv, '--ndjson'], { env });
      } finally {
        losing = false;
      }
      expect(first.code, first.stderr).toBe(7);
      expect(first.stderr).toContain(
        'run the same command again with the same profile, logged in as the same user or with the same API key, to settle them',
      );
      const discarded = new Map(
        (await dlqEntries(sandbox(), webhook, 'discarded')).map((e) => [e.id, e.discarded_at]),
      );
      expect([...discarded.keys()].sort()).toEqual([a.id, b.id].sort());
      const [journal] = journalFiles(svc.journals).filter((f) => f.startsWith('webhooks-dlq-discard-'));

      const again = await svc.run(mode === 'ndjson' ? [...argv, '--ndjson'] : argv, { env });
      expect(again.code, again.stderr).toBe(0);
      const rows = [a, b].map((e) => ({
        status: 'skipped',
        dlq_entry_id: e.id,
        entry_id: e.id,
        delivery_id: e.delivery_id,
        event_type: e.event_type,
        event_id: e.event_id,
        reason: 'already_discarded',
        discarded_at: discarded.get(e.id),
        while_stopped: true,
      }));
      if (mode === 'ndjson') {
        expect(ndjson(again.stdout)).toEqual(rows);
      } else {
        expect(again.stdout).toBe(
          rows
            .map(
              (r) =>
                `skipped\t${r.dlq_entry_id}\t${r.delivery_id}\t${r.event_type}\t${r.discarded_at}\tleft the queue before this run: discarded at ${r.discarded_at}, by an attempt of that run whose answer was lost, or by another run\n`,
            )
            .join(''),
        );
      }
      const [resuming, ...after] = again.stderr.replace(/ \([\d.]+ s\)\n/, ' (T)\n').split('\n');
      expect(resuming).toMatch(
        // The first run finished (exit 7, its journal kept to settle them): not said to be resumed.
        new RegExp(
          `^taking up the failures of the run started at \\S+Z \\(it finished at \\S+Z\\): 0 done, 2 to do \\(journal .*${journal}\\)$`,
        ),
      );
      expect(after.join('\n')).toBe(
        `✓ 0 discarded, 2 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n${note}`,
      );
      // Settled: the journal is gone, and the next run is a new one with nothing to do.
      expect(existsSync(`${svc.journals}/${journal}`)).toBe(false);
      await target.close();
    },
  );
});
