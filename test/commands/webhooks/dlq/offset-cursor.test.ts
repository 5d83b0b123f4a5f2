/**
 * A server whose dead-letter cursor is an offset into the live queue (findings peers14 F1): each
 * entry replayed or discarded leaves the `status=queued` list, so the page at offset 4 skips the
 * 4 entries that moved up. svc read the count first (15) and then did only what the pages gave
 * ("✓ 8 replayed", exit 0, 7 still queued). A drain now checks again from the start once the
 * listing ends (nothing in flight) and does the entries of the run it finds still queued, so the
 * queue is empty and the counts are those it counted.
 */
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../../helpers/bulk.js';
import { ndjson } from '../../../helpers/context.js';
import { useLocalServers } from '../../../helpers/proxy-kit.js';
import { useSandbox } from '../../../helpers/sandbox.js';
import { deadLetteredQueue, dlqEntries, timeless } from '../../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001 } });
const svc = bulkRunner(sandbox);
const servers = useLocalServers();

/**
 * Pages of 4 over the sandbox's whole list, the cursor `pp<offset>` counted over the list as it is
 * now; `hide` is an entry no page shows (a total that counts more than the pages give).
 */
async function offsetProxy(hide?: () => string | undefined): Promise<{ url: string; lists: string[] }> {
  const lists: string[] = [];
  const port = await servers.listen(
    createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || ['host', 'connection', 'content-length'].includes(name)) continue;
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, body: string) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body);
      };
      if (req.method === 'GET' && url.pathname.endsWith('/dlq')) {
        lists.push(url.search);
        const offset = Number(url.searchParams.get('cursor')?.slice(2) ?? 0);
        url.searchParams.delete('cursor');
        url.searchParams.set('limit', '200');
        const up = await fetch(`${sandbox().url}${url.pathname}${url.search}`, { headers });
        const page = (await up.json()) as { items: unknown[] };
        if (up.status !== 200) return send(up.status, JSON.stringify(page));
        const all = page.items.filter((e) => (e as { id: string }).id !== hide?.());
        const next = offset + 4 < all.length ? `pp${offset + 4}` : null;
        return send(
          200,
          JSON.stringify({ ...page, items: all.slice(offset, offset + 4), next_cursor: next }),
        );
      }
      const body = Buffer.concat(chunks);
      const up = await fetch(`${sandbox().url}${req.url}`, {
        method: req.method ?? 'GET',
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      send(up.status, await up.text());
    }),
  );
  return { url: `http://127.0.0.1:${port}`, lists };
}

describe('a dead-letter queue whose cursor is an offset into the live queue', () => {
  it('replay --dlq replays every entry it counted, none twice, and says 15', async () => {
    const proxy = await offsetProxy();
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 15);
    expect(entries).toHaveLength(15);
    const r = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--no-wait', '--ndjson', '--yes'], {
      env: { SVC_BASE_URL: proxy.url },
    });
    expect(r.code).toBe(0);
    const rows = ndjson(r.stdout) as Array<{ status: string; dlq_entry_id: string }>;
    expect(rows.map((row) => row.status)).toEqual(Array(15).fill('ok'));
    expect(new Set(rows.map((row) => row.dlq_entry_id))).toEqual(new Set(entries.map((e) => e.id)));
    expect(timeless(r.stderr)).toContain('✓ 15 replayed in T\n');
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toEqual([]);
  });

  it('dlq discard --all discards every entry it counted and says 15', async () => {
    const proxy = await offsetProxy();
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 15);
    const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--yes', '--ndjson'], {
      env: { SVC_BASE_URL: proxy.url },
    });
    expect(r.code).toBe(0);
    const rows = ndjson(r.stdout) as Array<{ status: string; entry_id: string }>;
    expect(rows.map((row) => row.status)).toEqual(Array(15).fill('ok'));
    expect(new Set(rows.map((row) => row.entry_id))).toEqual(new Set(entries.map((e) => e.id)));
    expect(timeless(r.stderr)).toBe('✓ 15 discarded in T\n');
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toEqual([]);
  });

  it('a run whose listings leave out an entry it counted says so, exit 7, and never ✓', async () => {
    let hidden: string | undefined;
    const proxy = await offsetProxy(() => hidden);
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 6);
    hidden = entries[2]!.id;
    const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--yes', '--ndjson'], {
      env: { SVC_BASE_URL: proxy.url },
    });
    expect(r.code).toBe(7);
    expect(ndjson(r.stdout)).toHaveLength(5);
    const [counts, error] = timeless(r.stderr).trimEnd().split('\n') as [string, string];
    expect(counts).toBe('5 discarded, 1 not started in T');
    expect(JSON.parse(error).error).toEqual({
      code: 'listing_incomplete',
      message:
        "stopped after 5 of 6: the dead-letter queue's listing left out 1 queued entry of this run twice (its pages moved as entries left it): they may still be queued",
      exit_code: 7,
      hint: expect.stringMatching(/^run the same command again to resume \(journal \S+\)$/),
    });
    expect((await dlqEntries(sandbox(), webhook, 'queued')).map((e) => e.id)).toEqual([hidden]);
  });
});
