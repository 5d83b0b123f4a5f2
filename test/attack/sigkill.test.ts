/**
 * Attack class "SIGKILL and re-run": a bulk run killed without warning half-way, then the same
 * command again; the final state must be exact (one grant per row, one replay per entry).
 * Spawned: only a real process can be killed with SIGKILL (no handler runs, nothing is flushed).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assignments, bulkUser, customRole } from '../helpers/bulk.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { sandboxEnv, svc } from '../helpers/svc.js';
import { createWebhook, replayCounts } from '../helpers/webhooks.js';
import { cases, killedAfter } from './lib.js';

const ROWS = cases(1000, 4000);
const ENTRIES = cases(500, 1500);
const sandbox = useSandbox({ users: ROWS });
const env = sandboxEnv(sandbox);

const parse = (text: string) =>
  text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { line: number; status: string; reason?: string; replayed?: boolean });

describe('attack: SIGKILL and run again', () => {
  it(`${ROWS.toLocaleString('en')} grants killed half-way: the same command finishes with exactly one grant per row`, async () => {
    const id = await customRole(sandbox(), 'sigkill');
    const rows = Array.from({ length: ROWS }, (_, i) => `${bulkUser(i + 1)},sigkill,7d,sigkill`);
    const path = join(env.SVC_STATE_DIR!, '..', 'sigkill.csv');
    writeFileSync(path, `user,role,expires_in,justification\n${rows.join('\n')}\n`);
    const before = parse(await killedAfter(env, ['roles', 'assign', '--file', path, '--ndjson'], ROWS / 2));
    expect(before.length).toBeGreaterThanOrEqual(ROWS / 2);
    // The journal, and the locks the killed process left (its own, and the one an svc before
    // session 16 would look at for this command: attack23b F1): its pid is gone, so they do not block.
    const left = readdirSync(join(env.SVC_STATE_DIR!, 'journals'));
    expect(left.map((f) => f.replace(/-[0-9a-f]{16}/, '')).sort()).toEqual([
      'roles-assign.ndjson',
      'roles-assign.ndjson.lock',
      'roles-assign.ndjson.lock',
    ]);

    const again = await svc(['roles', 'assign', '--file', path, '--ndjson'], { env, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(join(env.SVC_STATE_DIR!, 'journals'))).toEqual([]);
    const after = parse(again.stdout);
    expect(after.map((r) => r.line).sort((a, b) => a - b)).toEqual(
      Array.from({ length: ROWS }, (_, i) => i + 2),
    );
    const fromJournal = new Set(after.filter((r) => r.reason === 'journal').map((r) => r.line));
    for (const r of before) expect(fromJournal.has(r.line)).toBe(true);
    // Rows in flight at the kill were answered from the platform's records of the same keys.
    expect(after.every((r) => r.status === 'ok' || r.reason === 'journal')).toBe(true);
    expect(await assignments(sandbox(), id)).toEqual({
      total: ROWS,
      active: ROWS,
      users: ROWS,
      duplicates: 0,
    });
    expect(readdirSync(join(env.SVC_STATE_DIR!, 'journals'))).toEqual([]);
  }, 180_000);

  it(`a dead-letter replay of ${ENTRIES.toLocaleString('en')} killed part-way: the same command replays each remaining entry once`, async () => {
    const webhook = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook, count: ENTRIES },
    });
    await killedAfter(env, ['webhooks', 'replay', webhook, '--dlq', '--ndjson', '--no-wait'], ENTRIES * 0.4);
    const again = await svc(['webhooks', 'replay', webhook, '--dlq', '--ndjson', '--no-wait'], {
      env,
      timeoutMs: 120_000,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 1: ENTRIES });
  }, 120_000);
});
