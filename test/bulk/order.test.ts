import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BulkItem, BulkResult } from '../../src/bulk/item.js';
import { Journal } from '../../src/bulk/journal.js';
import { runItems } from '../../src/bulk/runner.js';
import { ApiError } from '../../src/http/errors.js';
import { tempDir } from '../helpers/temp.js';

// Dependencies and phases of the one bulk operation (issue 14: svc apply creates a role before
// its grants, and deletes only after every creation).
const never = new AbortController().signal;
const now = () => Date.parse('2026-01-15T09:30:00Z');
const refused = () => new ApiError({ status: 400, code: 'invalid_request', message: 'no', requestId: 'r' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Step = { name: string; fail?: boolean; ms?: number; stops?: boolean };
const item = (
  name: string,
  extra: Partial<BulkItem<Step>> = {},
  data: Partial<Step> = {},
): BulkItem<Step> => ({ key: name, data: { name, ...data }, ...extra });

async function run(list: Array<BulkItem<Step>>, options: { concurrency?: number; journal?: Journal } = {}) {
  const events: string[] = [];
  // Ctrl-C, while an item marked `stops` is in flight.
  const ctrlC = new AbortController();
  const results: BulkResult[] = [];
  const summary = await runItems<Step>({
    items: list,
    concurrency: options.concurrency ?? 8,
    runId: 'run',
    stop: list.some((i) => i.data.stops) ? ctrlC.signal : never,
    now,
    journal: options.journal,
    work: async ({ data }) => {
      events.push(`start ${data.name}`);
      if (data.stops) ctrlC.abort();
      await sleep(data.ms ?? 5);
      events.push(`end ${data.name}`);
      if (data.fail) throw refused();
      return {};
    },
    onResult: (r) => {
      results.push(r);
    },
  });
  return { events, results, summary };
}

describe('bulk order: dependencies', () => {
  it('a failed item stops what depends on it (directly or not) and nothing else', async () => {
    const { results, summary, events } = await run([
      item('role-a', { needed: true }, { fail: true }),
      item('role-b', { needed: true }),
      item('grant-a1', { after: ['role-a'], needed: true }),
      item('grant-b1', { after: ['role-b'] }),
      item('after-grant-a1', { after: ['grant-a1'] }),
      item('independent'),
    ]);
    const status = Object.fromEntries(results.map((r) => [r.key, r.status]));
    expect(status).toEqual({
      'role-a': 'failed',
      'role-b': 'ok',
      'grant-a1': 'failed',
      'grant-b1': 'ok',
      'after-grant-a1': 'failed',
      independent: 'ok',
    });
    expect(results.find((r) => r.key === 'grant-a1')?.error).toEqual({
      code: 'dependency_failed',
      message: 'not attempted: role-a failed',
      depends_on: 'role-a',
    });
    expect(results.find((r) => r.key === 'after-grant-a1')?.error?.depends_on).toBe('grant-a1');
    expect(events).not.toContain('start grant-a1');
    expect(events).not.toContain('start after-grant-a1');
    expect(summary).toMatchObject({ total: 6, ok: 3, failed: 3, blocked: 2, refused: 1, unsettled: 3 });
  });

  it('a dependent waits for what it needs even when both are in flight together', async () => {
    const { events } = await run([
      item('slow', { needed: true }, { ms: 30 }),
      item('needs-slow', { after: ['slow'] }),
    ]);
    expect(events).toEqual(['start slow', 'end slow', 'start needs-slow', 'end needs-slow']);
  });

  it('a dependency done by the run this one resumes counts as done', async () => {
    const path = join(tempDir('svc-order-'), 'j.ndjson');
    const first = Journal.load(path, 'op', now);
    first.start();
    first.record('role-a', { id: 'role_1' });
    const journal = Journal.load(path, 'op', now);
    const { results } = await run(
      [item('role-a', { needed: true }, { fail: true }), item('grant', { after: ['role-a'] })],
      {
        journal,
      },
    );
    expect(results.map((r) => [r.key, r.status, r.reason])).toEqual([
      ['role-a', 'skipped', 'journal'],
      ['grant', 'ok', undefined],
    ]);
  });
});

describe('bulk order: phases', () => {
  it('no item of a later phase starts before every earlier one has finished', async () => {
    const { events } = await run([
      item('create-1', { phase: 1 }, { ms: 20 }),
      item('create-2', { phase: 1 }, { ms: 5 }),
      item('delete-1', { phase: 2 }, { ms: 5 }),
      item('delete-2', { phase: 2 }, { ms: 5 }),
    ]);
    const lastCreation = Math.max(events.indexOf('end create-1'), events.indexOf('end create-2'));
    const firstDeletion = Math.min(events.indexOf('start delete-1'), events.indexOf('start delete-2'));
    expect(lastCreation).toBeLessThan(firstDeletion);
    // Within a phase, items still run side by side.
    expect(events.indexOf('start create-2')).toBeLessThan(events.indexOf('end create-1'));
  });

  it('a stop while the first phase runs leaves the later items unstarted, and the run cut (however few they are)', async () => {
    // Fewer items after the barrier than workers: one worker's pull found the source's end.
    const { events, summary } = await run([
      item('role', { phase: 1 }, { stops: true }),
      item('grant-1', { phase: 2 }),
      item('grant-2', { phase: 2 }),
    ]);
    expect(events).toEqual(['start role', 'end role']);
    expect([summary.stopped, summary.total, summary.ok]).toEqual([true, 1, 1]);
  });

  it('a failure in an earlier phase does not stop a later one', async () => {
    const { results } = await run([
      item('create', { phase: 1 }, { fail: true }),
      item('delete', { phase: 2 }),
    ]);
    expect(results.map((r) => [r.key, r.status])).toEqual([
      ['create', 'failed'],
      ['delete', 'ok'],
    ]);
  });
});
