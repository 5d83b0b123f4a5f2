import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { useLossyProxy } from '../../helpers/lossy-proxy.js';
import { call, useSandbox } from '../../helpers/sandbox.js';
import { startTarget } from '../../helpers/targets.js';
import { createWebhook, everyDlqEntry, replayCounts } from '../../helpers/webhooks.js';

/**
 * Runs over one dead-letter queue at the same time (two admins, two state directories or
 * journals): every entry leaves the queue once, and each run says truthfully what happened to it.
 */
// The target answers at once, so the delivery timeout stays the platform's 10 s: it shares one event
// loop with the sandbox and svc, and with a short timeout a stall of that loop on a loaded machine
// dead-letters a replay as a new entry, which the counts below would take for a second replay.
const sandbox = useSandbox({ webhooks: { timeScale: 0.0001 } });
const svc = bulkRunner(sandbox);
/** A platform that refuses fields it does not know, dlq_entry_id among them. */
const strict = useLossyProxy(sandbox, {
  lose: () => false,
  refuse: (method, path, body) =>
    method === 'POST' && path.endsWith('/replay') && body.includes('dlq_entry_id')
      ? {
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              message: 'unknown field',
              details: [{ field: 'dlq_entry_id', message: 'is not a field of this request' }],
            },
          },
        }
      : undefined,
});

type Row = Record<string, unknown> & { status: string; dlq_entry_id?: string };

async function queue(count: number): Promise<string> {
  const target = await startTarget(() => ({ status: 204 }));
  const webhook = (await createWebhook(sandbox(), target.url)).id;
  await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', { body: { webhook_id: webhook, count } });
  return webhook;
}
async function entryStatus(webhook: string): Promise<Map<string, Record<string, unknown>>> {
  const entries = await everyDlqEntry(sandbox(), webhook);
  return new Map(entries.map((e) => [e.id, e as unknown as Record<string, unknown>]));
}
/** Every /v1 request waits `ms` first, so runs started together list the queue before either changes it. */
async function withLatency<T>(ms: number, run: () => Promise<T>): Promise<T> {
  await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { latency_ms: ms } });
  try {
    return await run();
  } finally {
    await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { latency_ms: 0 } });
  }
}
const replay = (webhook: string, journal: string, signal?: AbortSignal) =>
  svc.run(
    [
      'webhooks',
      'replay',
      webhook,
      '--dlq',
      '--ndjson',
      '--no-wait',
      '--concurrency',
      '4',
      '--journal',
      join(svc.dir, journal),
    ],
    signal ? { signal } : {},
  );
const discard = (webhook: string, journal: string) =>
  svc.run([
    'webhooks',
    'dlq',
    'discard',
    webhook,
    '--all',
    '--yes',
    '--ndjson',
    // Twice the replay run's: the discard run overtakes it, so each wins some entries.
    '--concurrency',
    '8',
    '--journal',
    join(svc.dir, journal),
  ]);
const ok = (rows: Row[]) => rows.filter((r) => r.status === 'ok');
/** The summary line without its time, and without the tenant it names (asserted: fixw, review25b L4). */
const summary = (stderr: string) => {
  const line = stderr.split('\n')[0]!.replace(/ \([\d.]+ s\)$/, '');
  expect(line).toMatch(TENANT_NAMED);
  return line.replace(TENANT_NAMED, '');
};
const TENANT_NAMED = / in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016$/;

describe('two `replay --dlq` runs over the same queue at once', () => {
  it('replay each entry once; the run that comes second says so on the row and in its summary', async () => {
    const webhook = await queue(150);
    const [a, b] = await withLatency(20, () => Promise.all([replay(webhook, 'a'), replay(webhook, 'b')]));
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    const [rowsA, rowsB] = [ndjson(a.stdout) as Row[], ndjson(b.stdout) as Row[]];
    expect(ok(rowsA).length + ok(rowsB).length).toBe(150);
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 1: 150 });
    const entries = await entryStatus(webhook);
    for (const [mine, theirs] of [
      [rowsA, rowsB],
      [rowsB, rowsA],
    ] as const) {
      for (const row of mine.filter((r) => r.status !== 'ok')) {
        const entry = entries.get(row.dlq_entry_id!)!;
        expect(row).toMatchObject({
          status: 'skipped',
          reason: 'already_replayed',
          replayed_as: entry.last_replay_delivery_id,
        });
        expect(theirs.find((r) => r.dlq_entry_id === row.dlq_entry_id)).toMatchObject({
          status: 'ok',
          new_delivery_id: entry.last_replay_delivery_id,
        });
      }
    }
    for (const [r, rows] of [
      [a, rowsA],
      [b, rowsB],
    ] as const) {
      const skipped = rows.length - ok(rows).length;
      expect(summary(r.stderr)).toBe(
        skipped ? `✓ ${ok(rows).length} replayed, ${skipped} skipped` : `✓ ${ok(rows).length} replayed`,
      );
      if (skipped) {
        expect(r.stderr).toContain(
          `${skipped} of these had left the queue since this run listed them (replayed, discarded or delivered by another run, or by an attempt of this one whose answer was lost); each is on its row, and none was replayed twice\n`,
        );
      }
    }
  });

  it('after an interruption: the resumed run and another admin’s run at once still replay each entry once', async () => {
    const webhook = await queue(300);
    const controller = new AbortController();
    const first = replay(webhook, 'c', controller.signal);
    while ([...(await entryStatus(webhook)).values()].filter((e) => e.status === 'replayed').length < 20) {
      await new Promise((r) => setTimeout(r, 5));
    }
    controller.abort();
    const interrupted = await first;
    expect(interrupted.code).toBe(130);
    const [resumed, other] = await withLatency(10, () =>
      Promise.all([replay(webhook, 'c'), replay(webhook, 'd')]),
    );
    expect([resumed.code, other.code], resumed.stderr + other.stderr).toEqual([0, 0]);
    const done = [interrupted, resumed, other].map((r) => ok(ndjson(r.stdout) as Row[]).length);
    expect(done[0]! + done[1]! + done[2]!).toBe(300);
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 1: 300 });
  });
});

describe('`dlq discard --all` racing `replay --dlq`', () => {
  it('each entry is either replayed or discarded, and each run says which of its rows the other took', async () => {
    const webhook = await queue(150);
    const [r, d] = await withLatency(20, () => Promise.all([replay(webhook, 'e'), discard(webhook, 'f')]));
    expect([r.code, d.code], r.stderr + d.stderr).toEqual([0, 0]);
    const replayed = new Map((ndjson(r.stdout) as Row[]).map((row) => [row.dlq_entry_id!, row]));
    const discarded = new Map((ndjson(d.stdout) as Row[]).map((row) => [row.dlq_entry_id!, row]));
    const entries = await entryStatus(webhook);
    expect(entries.size).toBe(150);
    let replays = 0;
    for (const [id, entry] of entries) {
      const [rr, dr] = [replayed.get(id), discarded.get(id)];
      if (entry.status === 'replayed') {
        replays++;
        expect(rr).toMatchObject({ status: 'ok', new_delivery_id: entry.last_replay_delivery_id });
        expect(entry.discarded_at).toBeNull();
        if (dr) {
          expect(dr).toMatchObject({
            status: 'skipped',
            reason: 'already_replayed',
            replayed_as: entry.last_replay_delivery_id,
          });
        }
      } else {
        expect(entry.status).toBe('discarded');
        expect(dr).toMatchObject({ status: 'ok', discarded_at: entry.discarded_at });
        if (rr) {
          expect(rr).toMatchObject({
            status: 'skipped',
            reason: 'already_discarded',
            discarded_at: entry.discarded_at,
          });
          expect(rr.new_delivery_id).toBeUndefined();
        }
      }
    }
    expect(ok([...replayed.values()]).length).toBe(replays);
    expect(ok([...discarded.values()]).length).toBe(150 - replays);
    const counted = (rows: Map<string, Row>) => [
      ok([...rows.values()]).length,
      rows.size - ok([...rows.values()]).length,
    ];
    const [rOk, rSkipped] = counted(replayed);
    const [dOk, dSkipped] = counted(discarded);
    expect(summary(r.stderr)).toBe(rSkipped ? `✓ ${rOk} replayed, ${rSkipped} skipped` : `✓ ${rOk} replayed`);
    expect(summary(d.stderr)).toBe(
      dSkipped ? `✓ ${dOk} discarded, ${dSkipped} skipped` : `✓ ${dOk} discarded`,
    );
    expect(await replayCounts(sandbox(), webhook)).toEqual(
      replays === 150 ? { 1: 150 } : replays === 0 ? { 0: 150 } : { 0: 150 - replays, 1: replays },
    );
  });
});

describe('a platform without dlq_entry_id', () => {
  it('refusing the field gets plain replays: each entry replayed once, exit 0', async () => {
    const webhook = await queue(5);
    const r = await svc.run(
      ['webhooks', 'replay', webhook, '--dlq', '--ndjson', '--no-wait', '--concurrency', '1'],
      { env: { SVC_BASE_URL: strict().url } },
    );
    expect([r.code, summary(r.stderr)]).toEqual([0, '✓ 5 replayed']);
    expect(ok(ndjson(r.stdout) as Row[])).toHaveLength(5);
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 1: 5 });
  });
});
