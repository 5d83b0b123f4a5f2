/**
 * `webhooks dlq discard` whose every named entry fails (attack24c F6, decided). One named entry is
 * a single change (BulkVerb.single, as `webhooks replay W D`): its row, then its own error and exit
 * code, 5 for an unknown id (a dry run: its counts line, then that error). Two or more named
 * entries are a bulk run: exit 7 when some failed, every one of them included.
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../../helpers/bulk.js';
import { call, useSandbox } from '../../../helpers/sandbox.js';
import { createWebhook } from '../../../helpers/webhooks.js';

const sandbox = useSandbox();
const svc = bulkRunner(sandbox);

async function webhook() {
  const id = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
  await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', { body: { webhook_id: id, count: 1 } });
  return id;
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const gone = (id: string) => `dead-letter queue entry ${id} not found`;

describe('webhooks dlq discard: every entry fails (attack24c F6)', () => {
  it.each([
    ['', [], 'failed'],
    [' --dry-run', ['--dry-run'], 'fail'],
  ])('one unknown entry%s: its row, its error, exit 5', async (_, flags, word) => {
    const w = await webhook();
    const r = await svc.run(['webhooks', 'dlq', 'discard', w, 'dlq_nosuch', '--yes', ...flags]);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe(`${word}\tdlq_nosuch\t\t\t\t${gone('dlq_nosuch')}\n`);
    const err = lines(r.stderr);
    expect(err.filter((l) => l.startsWith('error: '))).toHaveLength(1);
    expect(err.at(-1)).toMatch(
      new RegExp(`^error: ${gone('dlq_nosuch')} \\(HTTP 404, not_found, request req_\\w+\\); see`),
    );
    expect(err.slice(0, -1)).toEqual(
      flags.length
        ? ['dry run: 0 would be discarded, 0 would be skipped, 1 would fail; nothing was changed']
        : [],
    );
  });

  it.each([
    ['', [], '0 discarded, 2 failed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016'],
    [' --dry-run', ['--dry-run'], 'dry run: 0 would be discarded, 0 would be skipped, 2 would fail'],
  ])('two unknown entries%s: a bulk run, exit 7, one error line', async (_, flags, counts) => {
    const w = await webhook();
    const r = await svc.run([
      'webhooks',
      'dlq',
      'discard',
      w,
      'dlq_nosuch',
      'dlq_nosuch2',
      '--yes',
      ...flags,
    ]);
    expect(r.code).toBe(7);
    const [summary, error, ...rest] = lines(r.stderr);
    expect([summary?.replace(/ \([\d.]+ s\)$/, ''), rest]).toEqual([counts, []]);
    expect(error).toMatch(/^error: 2 of 2 items (would fail|failed): dlq_nosuch: /);
  });
});
