import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandbox } from '../../helpers/sandbox.js';
import { startTarget } from '../../helpers/targets.js';
import { createWebhook, everyDlqEntry } from '../../helpers/webhooks.js';

/**
 * Two `replay --dlq` runs of one principal (a shared on-call token, or one admin in two terminals
 * with their own state directories) at once, over a network that loses requests before they reach
 * the platform (the sandbox's 503s, phase before: a faulted request changes nothing). A retry of
 * one run must never take the other run's replay for its own: each run claims only the replays it
 * made, and the other's are skipped rows saying so.
 */
const sandbox = useSandbox({ webhooks: { timeScale: 0.0001 } });
const svc = bulkRunner(sandbox);

type Row = Record<string, unknown> & { status: string; dlq_entry_id?: string; new_delivery_id?: string };

async function replayedEntries(webhook: string): Promise<Map<string, string>> {
  const made = new Map<string, string>();
  for (const e of await everyDlqEntry(sandbox(), webhook)) {
    expect(e.replay_count, `entry ${e.id} replayed more than once`).toBeLessThanOrEqual(1);
    if (e.status === 'replayed') made.set(e.id, e.last_replay_delivery_id as string);
  }
  return made;
}

describe('two `replay --dlq` runs of the same principal, requests lost before they reach the platform', () => {
  it('each run claims only its own replays: the counts add up to the replays made, none claimed twice', async () => {
    const target = await startTarget(() => ({ status: 204 }));
    const webhook = (await createWebhook(sandbox(), target.url)).id;
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook, count: 120 },
    });
    const replay = (journal: string) =>
      svc.run(
        [
          'webhooks',
          'replay',
          webhook,
          '--dlq',
          '--ndjson',
          '--no-wait',
          '--concurrency',
          '8',
          '--journal',
          join(svc.dir, journal),
        ],
        // Enough retries that every request gets through in the end: the race is the point.
        { env: { SVC_MAX_RETRIES: '20' } },
      );
    await call(sandbox(), 'PUT', '/_sandbox/faults', {
      body: { fail_rate: 0.3, phase: 'before', retry_after: '0' },
    });
    let runs: Awaited<ReturnType<typeof replay>>[];
    try {
      runs = await Promise.all([replay('a'), replay('d')]);
    } finally {
      await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { fail_rate: 0 } });
    }
    const [a, d] = runs;
    expect([a!.code, d!.code], a!.stderr + d!.stderr).toEqual([0, 0]);
    const [rowsA, rowsD] = [ndjson(a!.stdout) as Row[], ndjson(d!.stdout) as Row[]];
    const made = await replayedEntries(webhook);
    expect(made.size).toBe(120);
    const claims = new Map<string, string[]>();
    for (const [name, rows] of [
      ['A', rowsA],
      ['D', rowsD],
    ] as const) {
      // A run that lists the queue after the other replayed some has fewer rows: one per entry at most.
      expect(new Set(rows.map((r) => r.dlq_entry_id)).size).toBe(rows.length);
      for (const row of rows) {
        const as = made.get(row.dlq_entry_id!);
        if (row.status === 'ok') {
          expect(row.new_delivery_id).toBe(as);
          claims.set(as!, [...(claims.get(as!) ?? []), name]);
        } else {
          expect(row).toMatchObject({ status: 'skipped', reason: 'already_replayed', replayed_as: as });
        }
      }
    }
    const both = [...claims].filter(([, by]) => by.length > 1).map(([id]) => id);
    expect(both, 'deliveries claimed by both runs').toEqual([]);
    expect(claims.size).toBe(120);
    const okA = rowsA.filter((r) => r.status === 'ok').length;
    const okD = rowsD.filter((r) => r.status === 'ok').length;
    expect(okA + okD).toBe(120);
    for (const [run, ok] of [
      [a!, okA],
      [d!, okD],
    ] as const) {
      const line = run.stderr
        .split('\n')
        .find((l) => / \([\d.]+ s\)$/.test(l))!
        .replace(/ \([\d.]+ s\)$/, '');
      // The tenant the summary names (fixw, review25b L4).
      expect(line).toMatch(/ in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016$/);
      const summary = line.replace(/ in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016$/, '');
      const rows = ndjson(run.stdout).length;
      expect(summary).toBe(ok === rows ? `✓ ${ok} replayed` : `✓ ${ok} replayed, ${rows - ok} skipped`);
    }
  });
});
