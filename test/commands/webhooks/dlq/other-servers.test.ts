/**
 * Dead-letter queues as other reasonable servers list them (findings-attack18b #9, #13):
 * - a next page that starts with the page before's last entry (an offset overlap): a drain counted
 *   the repeat against the queue's count and ended an entry short ("✓ 9 replayed", one still
 *   queued, exit 0); entries now count once, so it takes every one;
 * - a listing without `total` (the reference shows no body for it): every dead-letter verb refused
 *   it; `dlq ls` now lists without it and the drains count the queue by listing it.
 * In-process, through a proxy over the sandbox.
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../../helpers/bulk.js';
import { ndjson } from '../../../helpers/context.js';
import { type Exchange, useReshapingProxy } from '../../../helpers/reshaping-proxy.js';
import { useSandbox } from '../../../helpers/sandbox.js';
import { deadLetteredQueue, dlqEntries, timeless } from '../../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001 } });
const svc = bulkRunner(sandbox);
const proxy = useReshapingProxy(sandbox);
const through = () => ({ env: svc.env({ SVC_BASE_URL: proxy().url }) });
const isDlq = (x: { method: string; path: string }) => x.method === 'GET' && /\/dlq(\?|$)/.test(x.path);

/** Pages of at most 4; each page asked with a cursor starts with the last entry of the page before. */
function overlapping(): void {
  let last: unknown;
  proxy().rewrite((method, path) => {
    if (!isDlq({ method, path })) return path;
    const url = new URL(path, 'http://x');
    if (Number(url.searchParams.get('limit') ?? 100) > 4) url.searchParams.set('limit', '4');
    return `${url.pathname}${url.search}`;
  });
  proxy().reshape((x: Exchange) => {
    if (!isDlq(x) || x.status !== 200) return;
    const page = x.body as { items: unknown[] };
    const before = last;
    last = page.items.at(-1) ?? last;
    if (x.path.includes('cursor=') && before !== undefined) page.items.unshift(before);
  });
}

/**
 * Offset pages of 4 (`has_more`, `next_offset`), each page after the first served from one entry
 * before the offset asked: it repeats the last entry of the page before, as an offset over a queue
 * that moved does (review21 F3, F5, review21c F4: a listing that prints prints it once and says so; a drain counts it once).
 */
function overlappingOffsets(): void {
  proxy().rewrite((method, path) => {
    if (!isDlq({ method, path })) return path;
    const url = new URL(path, 'http://x');
    for (const name of ['offset', 'cursor']) url.searchParams.delete(name);
    url.searchParams.set('limit', '200');
    return `${url.pathname}${url.search}`;
  });
  proxy().reshape((x: Exchange) => {
    if (!isDlq(x) || x.status !== 200) return;
    const page = x.body as { items: unknown[]; next_cursor?: unknown } & Record<string, unknown>;
    const offset = Number(new URL(x.path, 'http://x').searchParams.get('offset') ?? 0);
    const from = Math.max(0, offset - 1);
    const all = page.items;
    page.items = all.slice(from, from + 4);
    delete page.next_cursor;
    Object.assign(page, { has_more: from + 4 < all.length, next_offset: from + 4 });
  });
}

function withoutTotal(): void {
  proxy().reshape((x: Exchange) => {
    if (isDlq(x) && x.status === 200) delete (x.body as { total?: number }).total;
  });
}

describe('a dead-letter listing whose pages overlap by one entry', () => {
  it.each([
    [
      'replay',
      ['webhooks', 'replay', '@', '--dlq', '--no-wait', '--yes', '--ndjson'],
      '✓ 10 replayed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n',
    ],
    [
      'discard',
      ['webhooks', 'dlq', 'discard', '@', '--all', '--yes', '--ndjson'],
      '✓ 10 discarded in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n',
    ],
  ])('%s takes every entry once, and the queue is empty', async (_verb, argv, said) => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 10);
    overlapping();
    const r = await svc.run(
      argv.map((a) => (a === '@' ? webhook : a)),
      through(),
    );
    expect([r.code, timeless(r.stderr).split('\n')[0]]).toEqual([0, said.trimEnd()]);
    const rows = ndjson(r.stdout) as Array<{ status: string; dlq_entry_id?: string }>;
    expect(rows.map((row) => row.status)).toEqual(Array(10).fill('ok'));
    expect(new Set(rows.map((row) => row.dlq_entry_id))).toEqual(new Set(entries.map((e) => e.id)));
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toEqual([]);
  });
});

describe('a dead-letter listing by offset whose pages repeat an entry (review21 F3, F5)', () => {
  it.each([
    ['replay', ['webhooks', 'replay', '@', '--dlq', '--no-wait', '--yes', '--ndjson'], 'replayed'],
    ['discard', ['webhooks', 'dlq', 'discard', '@', '--all', '--yes', '--ndjson'], 'discarded'],
  ])('%s counts each entry once and empties the queue', async (_verb, argv, done) => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 10);
    overlappingOffsets();
    const r = await svc.run(
      argv.map((a) => (a === '@' ? webhook : a)),
      through(),
    );
    expect([r.code, timeless(r.stderr).split('\n')[0]]).toEqual([
      0,
      `✓ 10 ${done} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)`,
    ]);
    const rows = ndjson(r.stdout) as Array<{ dlq_entry_id?: string }>;
    expect(rows.map((row) => row.dlq_entry_id).sort()).toEqual(entries.map((e) => e.id).sort());
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toEqual([]);
  });

  it('dlq ls --all, which prints its rows, prints a repeated entry once and says so, exit 0 (review21c F4)', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 6);
    overlappingOffsets();
    const r = await svc.run(['webhooks', 'dlq', 'ls', webhook, '--all', '--ndjson'], through());
    const shown = ndjson(r.stdout) as Array<{ id: string }>;
    expect([r.code, shown.map((e) => e.id), r.stderr]).toEqual([
      0,
      entries.map((e) => e.id),
      'the list changed while svc read it: 1 item seen twice was printed once\n',
    ]);
  });
});

describe('a dead-letter listing without "total"', () => {
  it('dlq ls lists the entries as the sandbox does, and a cut listing says how many were shown', async () => {
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 204 }, 3);
    const direct = await svc.run(['webhooks', 'dlq', 'ls', webhook, '--limit', '2']);
    expect(direct.stderr).toMatch(/^2 of 3 shown; more with: /);
    withoutTotal();
    const r = await svc.run(['webhooks', 'dlq', 'ls', webhook, '--limit', '2'], through());
    expect([r.code, r.stdout]).toEqual([0, direct.stdout]);
    expect(r.stderr).toBe(
      direct.stderr.replace(/^2 of 3 shown/, '2 shown').replace(sandbox().url, proxy().url),
    );
  });

  it.each([
    [
      'replay',
      ['webhooks', 'replay', '@', '--dlq', '--no-wait', '--yes'],
      '✓ 5 replayed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n',
    ],
    [
      'discard',
      ['webhooks', 'dlq', 'discard', '@', '--all', '--yes'],
      '✓ 5 discarded in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n',
    ],
  ])('%s counts the queue by listing it and takes every entry', async (_verb, argv, said) => {
    const { webhook } = await deadLetteredQueue(sandbox(), { status: 204 }, 5);
    withoutTotal();
    const r = await svc.run(
      argv.map((a) => (a === '@' ? webhook : a)),
      through(),
    );
    expect([r.code, timeless(r.stderr).split('\n')[0]]).toEqual([0, said.trimEnd()]);
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toEqual([]);
  });
});
