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
import { type JournalDisk, realJournalDisk } from '../../../../src/bulk/journal-disk.js';
import { bulkRunner } from '../../../helpers/bulk.js';
import { ndjson } from '../../../helpers/context.js';
import { useLocalServers } from '../../../helpers/proxy-kit.js';
import { useSandbox } from '../../../helpers/sandbox.js';
import { gate } from '../../../helpers/targets.js';
import { deadLetteredQueue, dlqEntries, journalFiles, timeless } from '../../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001 } });
const svc = bulkRunner(sandbox);
const servers = useLocalServers();

interface Gates {
  /** An entry no page shows (a total that counts more than the pages give). */
  hide?: () => string | undefined;
  /** Awaited before the n-th change (1-based: a POST, a replay or a discard) is passed on. */
  hold?: (n: number) => Promise<void> | undefined;
}

/**
 * Pages of 4 over the sandbox's whole list, the cursor `pp<offset>` counted over the list as it is
 * now; `gates` hide an entry from every page, or hold a change in flight.
 */
async function offsetProxy(gates: Gates = {}): Promise<{ url: string; lists: string[] }> {
  const { hide, hold } = gates;
  const lists: string[] = [];
  let changes = 0;
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
      if (req.method !== 'GET') await hold?.(++changes);
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
    expect(timeless(r.stderr)).toContain('✓ 15 replayed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n');
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toEqual([]);
  });

  it('dlq discard --all discards every entry it counted and says 15', async () => {
    const proxy = await offsetProxy();
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 15);
    const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--yes', '--ndjson'], {
      env: { SVC_BASE_URL: proxy.url },
    });
    expect(r.code).toBe(0);
    const rows = ndjson(r.stdout) as Array<{ status: string; dlq_entry_id: string }>;
    expect(rows.map((row) => row.status)).toEqual(Array(15).fill('ok'));
    expect(new Set(rows.map((row) => row.dlq_entry_id))).toEqual(new Set(entries.map((e) => e.id)));
    expect(timeless(r.stderr)).toBe('✓ 15 discarded in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)\n');
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toEqual([]);
  });

  it('a run whose listings leave out an entry it counted says so, exit 7, and never ✓', async () => {
    let hidden: string | undefined;
    const proxy = await offsetProxy({ hide: () => hidden });
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 6);
    hidden = entries[2]!.id;
    const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--yes', '--ndjson'], {
      env: { SVC_BASE_URL: proxy.url },
    });
    expect(r.code).toBe(7);
    expect(ndjson(r.stdout)).toHaveLength(5);
    const [counts, error] = timeless(r.stderr).trimEnd().split('\n') as [string, string];
    expect(counts).toBe('5 discarded, 1 not started in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)');
    expect(JSON.parse(error).error).toEqual({
      code: 'listing_incomplete',
      message:
        "stopped after 5 of 6: the dead-letter queue's listing left out 1 queued entry of this run twice (its pages moved as entries left it): they may still be queued",
      exit_code: 7,
      hint: expect.stringMatching(
        /^run the same command again with the same profile, logged in as the same user or with the same API key, to resume \(journal \S+\)$/,
      ),
    });
    expect((await dlqEntries(sandbox(), webhook, 'queued')).map((e) => e.id)).toEqual([hidden]);
  });

  /**
   * review15 R15-2: Ctrl-C while the run waits to list the queue again (its listing ended short of
   * the count; nothing more may start, one change in flight). Over 9 entries at concurrency 2 the
   * 4th change is held at the proxy: the second page (offset 4 over the 6 still queued) gives the
   * last two, the listing ends, and the run waits for the held one before listing again. It is
   * stopped then: right after the last entry's journal line, once what svc does without waiting
   * (only promise jobs: no timer, no I/O) has taken it into that wait (setImmediate runs after
   * them). The source ended because the run was stopping, not because the queue was done: svc
   * said `✓ 6 discarded`, exit 0, and removed its journal with 3 of the 9 it counted still queued.
   * Now the run is cut (exit 130, the journal kept) and the same command takes the rest.
   */
  const cutWhileWaiting = async (argv: (webhook: string) => string[], done: string, after = '') => {
    const held = gate();
    const proxy = await offsetProxy({ hold: (n) => (n === 4 ? held.until : undefined) });
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 204 }, 9);
    const env = { SVC_BASE_URL: proxy.url };
    const before = new Set(journalFiles(svc.journals));
    const stop = new AbortController();
    const last = `"key":"${entries.at(-1)!.id}","status":"ok"`;
    const journalDisk: JournalDisk = {
      ...realJournalDisk,
      write(fd, text) {
        realJournalDisk.write(fd, text);
        if (!text.includes(last)) return;
        setImmediate(() => {
          stop.abort();
          held.open();
        });
      },
    };
    const cut = await svc.run([...argv(webhook), '--concurrency', '2', '--yes', '--ndjson'], {
      env,
      signal: stop.signal,
      journalDisk,
    });
    expect(stop.signal.aborted).toBe(true);
    expect(ndjson(cut.stdout).map((row) => row.status)).toEqual(Array(6).fill('ok'));
    const [stopping, counts, error] = timeless(cut.stderr).trimEnd().split('\n') as [string, string, string];
    // Said at the stop: the held change on the wire is let finish (attack21 F5).
    expect(stopping).toBe('stopping: 1 request in flight; interrupt again to stop now');
    expect(counts).toBe(`6 ${done}, 3 not started in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (T)`);
    expect(JSON.parse(error).error).toEqual({
      code: 'interrupted',
      message: 'interrupted after 6 of 9',
      exit_code: 130,
      hint: expect.stringMatching(
        /^run the same command again with the same profile, logged in as the same user or with the same API key, to resume \(journal \S+\)$/,
      ),
    });
    expect(cut.code).toBe(130);
    expect(journalFiles(svc.journals).filter((name) => !before.has(name))).toHaveLength(1);
    expect((await dlqEntries(sandbox(), webhook, 'queued')).map((e) => e.id)).toEqual(
      entries.slice(4, 7).map((e) => e.id),
    );

    const resumed = await svc.run([...argv(webhook), '--yes', '--ndjson'], { env });
    expect(resumed.code).toBe(0);
    const rows = ndjson(resumed.stdout) as Array<{ status: string }>;
    expect(rows.map((row) => row.status)).toEqual([...Array(6).fill('skipped'), ...Array(3).fill('ok')]);
    expect(timeless(resumed.stderr)).toMatch(
      new RegExp(
        `^resuming the run started at \\S+: 6 done, 3 to do \\(journal \\S+\\)\n✓ 3 ${done}, 6 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \\(T\\)\n${after}$`,
      ),
    );
    expect(await dlqEntries(sandbox(), webhook, 'queued')).toEqual([]);
    expect(journalFiles(svc.journals).filter((name) => !before.has(name))).toEqual([]);
  };

  it('dlq discard --all stopped while it waits to list the queue again is cut, exit 130, and resumes', () =>
    cutWhileWaiting((webhook) => ['webhooks', 'dlq', 'discard', webhook, '--all'], 'discarded'));

  it('replay --dlq --no-wait stopped while it waits to list the queue again is cut, exit 130, and resumes', () =>
    cutWhileWaiting(
      (webhook) => ['webhooks', 'replay', webhook, '--dlq', '--no-wait'],
      'replayed',
      'their deliveries were not followed: see how they went with `svc webhooks deliveries \\S+`, or pass --wait\n',
    ));
});
