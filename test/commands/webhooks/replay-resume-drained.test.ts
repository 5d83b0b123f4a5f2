import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DlqEntry } from '../../../src/api/schemas/webhooks.js';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { admin, deadLetteredQueue, interruptedRun } from '../../helpers/webhooks.js';

/**
 * A `replay --dlq` resumed while another engineer drains the same queue: the resuming line's
 * "N done, M to do" counts each entry once, however the other run's replays fall between the
 * resumed run's reads of the queue (its count, the look-ups of the entries its stopped run took),
 * so done + to do is the run's total and the rows that follow are the "to do".
 */
const sandbox = useSandbox({ webhooks: { timeScale: 0.0001 } });
const svc = bulkRunner(sandbox);

/** When, among the resumed run's requests, the other engineer replays `draining` (then never again). */
let drainWhen: ((method: string, path: string) => boolean) | undefined;
let draining: DlqEntry[] = [];
let webhookOf = '';
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: async (method, path) => {
    if (!drainWhen?.(method, path)) return;
    drainWhen = undefined;
    for (const entry of draining) {
      const r = await admin(
        sandbox(),
        'POST',
        `/v1/webhooks/${webhookOf}/deliveries/${entry.delivery_id}/replay`,
        {
          dlq_entry_id: entry.id,
        },
      );
      if (r.status !== 201) throw new Error(`drain: ${r.status} ${r.text}`);
    }
  },
});

/** A GET of the queue's listing (not of one entry). */
const listing = (method: string, path: string) => method === 'GET' && /\/dlq\?/.test(path);
/** A GET of one entry (a look-up). */
const lookUp = (method: string, path: string) => method === 'GET' && /\/dlq\/dlq_/.test(path);

describe('replay --dlq resumed while another run drains the queue', () => {
  it.each([
    [
      'between its look-ups and its count',
      () => {
        let looked = false;
        return (method: string, path: string) => {
          if (lookUp(method, path)) looked = true;
          return looked && listing(method, path);
        };
      },
    ],
    [
      'between its first and second read of the listing',
      () => {
        let lists = 0;
        return (method: string, path: string) => listing(method, path) && ++lists === 2;
      },
    ],
  ])('%s: done + to do is the run’s total, and the rows are the to do', async (_when, trigger) => {
    const { webhook, target, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 300);
    webhookOf = webhook;
    const argv = ['webhooks', 'replay', webhook, '--dlq', '--no-wait', '--concurrency', '1'];
    const journalsBefore = existsSync(svc.journals) ? new Set(readdirSync(svc.journals)) : new Set();
    // Through the proxy too: the base URL is part of the run (the same command resumes it).
    const env = { SVC_BASE_URL: proxy().url };
    drainWhen = undefined;
    const cut = await interruptedRun(svc, argv, target, 2, env);
    const done = ndjson(cut.stdout).length;
    const name = readdirSync(svc.journals).find((f) => !journalsBefore.has(f))!;
    const path = join(svc.journals, name);
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const planned = new Set(lines.flatMap((l) => (Array.isArray(l.planned) ? l.planned : [])));
    const finished = new Set(lines.map((l) => l.key).filter(Boolean));
    // Another engineer replays 150 of the entries the stopped run took and did not finish.
    draining = entries.filter((e) => planned.has(e.id) && !finished.has(e.id)).slice(8, 158);
    expect(draining).toHaveLength(150);
    drainWhen = trigger();

    const resumed = await svc.run([...argv, '--ndjson'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    // A run that reads the queue once before it says the line has no second moment to fall between.
    const drained = drainWhen === undefined;
    drainWhen = undefined;
    const started = lines[0].started_at as string;
    expect(resumed.stderr.split('\n')[0]).toBe(
      `resuming the run started at ${started}: ${done} done, ${300 - done} to do (journal ${path})`,
    );
    const rows = ndjson(resumed.stdout);
    expect(rows.filter((r) => r.reason !== 'journal')).toHaveLength(300 - done);
    expect(rows.filter((r) => r.while_stopped === true || r.reason === 'already_replayed')).toHaveLength(
      drained ? 150 : 0,
    );
  });
});
