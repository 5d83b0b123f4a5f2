/**
 * `replay --wait` whose replay is made, then the read of its new delivery is refused as every
 * later row would be (review24e H1): the platform stops listening right after the replay (a
 * refused connection), or the caller's webhook.read is revoked (403 insufficient_role). fixw's
 * wider halt let that read's error fail the row (`failed`, no `new_delivery_id`, exit 1) though
 * the replay was made. The row now stays made (`ok`, its new delivery, `follow: unreadable`), and
 * the run stops after it: the rows not started are left to resume.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { bulkRunner, lastJson } from '../../helpers/bulk.js';
import { refusal, useLossyProxy } from '../../helpers/lossy-proxy.js';
import { reservedPort } from '../../helpers/ports.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { pipeOn } from '../../helpers/sandbox-front.js';
import { deadLetteredQueue, replayCounts } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);

/** Set once a replay passed the proxy: the reads of deliveries after it are refused. */
let revoked = false;
const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  before: (method, path) => {
    if (method === 'POST' && path.includes('/replay')) revoked = true;
  },
  refuse: (method, path) =>
    revoked && method === 'GET' && path.includes('/deliveries/')
      ? refusal(403, 'insufficient_role', 'the caller lacks webhook.read')
      : undefined,
});
afterEach(() => {
  revoked = false;
});

/** A forwarder to the sandbox that stops listening once it has passed a replay on. */
let forwarder: Server | undefined;
afterEach(() => new Promise<void>((r) => (forwarder ? forwarder.close(() => r()) : r())));
async function refusingAfterReplay(): Promise<string> {
  const server = createServer((req, res) =>
    pipeOn(sandbox().url, req, res, () => {
      // No new connection is accepted from now: the next read is refused (ECONNREFUSED).
      if (req.method === 'POST' && req.url?.includes('/replay')) server.close();
      return { connection: 'close' };
    }),
  );
  forwarder = server;
  // Below the ephemeral range (reservedPort): once closed, no listen(0) elsewhere is given it.
  const port = await reservedPort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return `http://127.0.0.1:${port}`;
}

const rowsOf = (stdout: string) => JSON.parse(stdout) as Array<Record<string, unknown>>;

describe('replay --wait: the read of a made replay refused', () => {
  it('a refused connection: the row is ok with its new delivery, unreadable; exit 7', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    const env = { SVC_BASE_URL: await refusingAfterReplay(), SVC_MAX_RETRIES: '0' };
    const r = await svc.run(
      ['webhooks', 'replay', webhook, entries[0]!.delivery_id, '--wait', '--yes', '--json'],
      {
        env,
      },
    );
    const [row] = rowsOf(r.stdout);
    expect(row).toMatchObject({ status: 'ok', delivery_id: entries[0]!.delivery_id, follow: 'unreadable' });
    expect(row!.new_delivery_id).toMatch(/^dlv_/);
    expect((row!.follow_error as { code: string }).code).toBe('delivery_unread');
    expect((row!.follow_error as { message: string }).message).toMatch(/ECONNREFUSED/);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).not.toMatch(/failed|stopped after/);
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 1: 1 });
  });

  it('the caller refused (403 insufficient_role): the row stays made, the run stops after it (exit 4)', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 2);
    const env = { SVC_BASE_URL: proxy().url };
    const r = await svc.run(
      ['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1', '--yes', '--json'],
      {
        env,
      },
    );
    const rows = rowsOf(r.stdout);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'ok', follow: 'unreadable' });
    expect(rows[0]!.new_delivery_id).toMatch(/^dlv_/);
    expect((rows[0]!.follow_error as { message: string }).message).toMatch(/the caller lacks webhook\.read/);
    expect(r.code, r.stderr).toBe(4);
    const { error } = lastJson(r.stderr) as { error: { code: string; message: string } };
    expect(error.code).toBe('insufficient_role');
    expect(error.message).toMatch(/^stopped after 1 of 2: the platform refused /);
    // One replay made, the other entry not sent.
    expect(await replayCounts(sandbox(), webhook)).toEqual({ 0: 1, 1: 1 });
    expect(entries).toHaveLength(2);
  });
});
