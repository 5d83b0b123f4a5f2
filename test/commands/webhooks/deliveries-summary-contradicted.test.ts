/**
 * attack26b F8: `webhooks deliveries ls` printed the server's counts (`1 delivery: 1 delivered, 0
 * failed, 0 in flight`) over a page of 3 failed deliveries it listed: a total smaller than the
 * deliveries shown cannot be true. Counts the listed deliveries contradict are not printed as the
 * webhook's: one warning says which and how many were listed. Through a proxy that rewrites the
 * sandbox's summary.
 */
import { describe, expect, it } from 'vitest';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const proxy = useReshapingProxy(svc.sandbox);

const lowCounts = (answer: Reshaped) => {
  if (answer.method === 'GET' && /\/deliveries(\?|$)/.test(answer.path))
    (answer.body as { summary: object }).summary = { total: 1, delivered: 1, failed: 0, in_flight: 0 };
};

async function threeFailed(): Promise<string> {
  const webhook = (await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/w')).id;
  await call(svc.sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
    body: { webhook_id: webhook, count: 3 },
  });
  return webhook;
}

const terminal = { tty: { stdout: true, stderr: true }, columns: 200 } as const;

describe('deliveries ls: counts the listed deliveries contradict (attack26b F8)', () => {
  it('on a terminal: one warning, no counts line', async () => {
    const webhook = await threeFailed();
    proxy().set({ reshape: lowCounts });
    const r = await svc.run(['webhooks', 'deliveries', 'ls', webhook], {
      ...terminal,
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      "warning: the server's counts are not shown: they contradict the deliveries it lists (total 1, 3 listed; failed 0, 3 listed)\n",
    );
    expect(r.stdout).not.toContain('1 delivery');
    expect(r.stdout.match(/dlv_/g)).toHaveLength(3);
  });

  it('in a pipe: the rows alone, as every list (no counts, so nothing to contradict; attack26a F12)', async () => {
    const webhook = await threeFailed();
    proxy().set({ reshape: lowCounts });
    const r = await svc.run(['webhooks', 'deliveries', 'ls', webhook], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout.match(/^dlv_/gm)).toHaveLength(3);
  });

  it('a later page contradicting the counts printed above it: said after the list', async () => {
    const webhook = await threeFailed();
    proxy().set({
      reshape: (answer) => {
        if (answer.method === 'GET' && /\/deliveries\?/.test(answer.path))
          (answer.body as { summary: object }).summary = { total: 2, delivered: 0, failed: 2, in_flight: 0 };
      },
      // Pages of two: the first holds the counts, the second contradicts them.
      path: (_method, path) => path.replace(/limit=\d+/, 'limit=2'),
    });
    const r = await svc.run(['webhooks', 'deliveries', 'ls', webhook, '--all'], {
      ...terminal,
      env: { SVC_BASE_URL: proxy().url },
    });
    expect([r.code, r.stderr]).toEqual([
      0,
      "warning: the server's counts above, read with the first page, are fewer than the deliveries listed (total 2, 3 listed; failed 2, 3 listed): deliveries were made or changed while svc read the pages, or the counts are wrong\n",
    ]);
    expect(r.stdout.split('\n')[0]).toBe('2 deliveries: 0 delivered, 2 failed, 0 in flight');
    expect(r.stdout.match(/dlv_/g)).toHaveLength(3);
  });

  it('counts that hold head the table on a terminal; a pipe gets the rows alone', async () => {
    const webhook = await threeFailed();
    const tty = await svc.run(['webhooks', 'deliveries', 'ls', webhook], terminal);
    expect([tty.code, tty.stderr]).toEqual([0, '']);
    expect(tty.stdout.split('\n')[0]).toBe('3 deliveries: 0 delivered, 3 failed, 0 in flight');
    const piped = await svc.run(['webhooks', 'deliveries', 'ls', webhook]);
    expect([piped.code, piped.stderr]).toEqual([0, '']);
    expect(piped.stdout.match(/^dlv_/gm)).toHaveLength(3);
  });
});
