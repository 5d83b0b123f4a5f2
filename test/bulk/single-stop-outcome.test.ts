import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../helpers/bulk.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { useSandbox } from '../helpers/sandbox.js';
import { deadLetteredQueue } from '../helpers/webhooks.js';

// Ctrl-C while a single-id verb (`webhooks replay W ID`, `webhooks dlq discard W ID`) waits out a
// Retry-After after its change was answered 503: the command ends with that item's own error, the
// outcome unknown and how to settle it with the same key (`"outcome": "unknown"` in --json,
// README "One named id"), exit 130, not a bulk run's "interrupted after 1 of 1" (review28e M1).
const sandbox = useSandbox({ users: 2 });
const svc = bulkRunner(sandbox);

/** The single verb's change: a replay's POST or a discard's DELETE. */
const change = (method: string, path: string) =>
  (method === 'POST' && path.endsWith('/replay')) || (method === 'DELETE' && path.includes('/dlq/'));

const proxy = useLossyProxy(sandbox, {
  lose: () => false,
  reshape: (method, path) =>
    change(method, path)
      ? {
          status: 503,
          body: JSON.stringify({ error: { code: 'service_unavailable', message: 'try again later' } }),
          headers: { 'retry-after': '30' },
        }
      : undefined,
});

/** `argv` through the proxy, stopped (Ctrl-C) at its first Retry-After wait. */
function stoppedInWait(argv: string[]) {
  const controller = new AbortController();
  const clock = {
    now: () => Date.now(),
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (ms >= 30_000 && !controller.signal.aborted) controller.abort();
      if (signal?.aborted) throw new Error('aborted');
    },
  };
  return svc.run(argv, { clock, signal: controller.signal, env: { SVC_BASE_URL: proxy().url } });
}

const journal = () => {
  const [name] = readdirSync(svc.journals).filter((n) => n.endsWith('.ndjson'));
  return join(svc.journals, name!);
};

describe('a single-id verb stopped in its retry wait', () => {
  it('replay W ID --json: its own error, outcome unknown, how to settle it', async () => {
    const { entries, webhook } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
    const entry = entries[0]!;
    const run = await stoppedInWait([
      'webhooks',
      'replay',
      webhook,
      entry.id,
      '--no-wait',
      '--yes',
      '--json',
    ]);
    expect(run.code).toBe(130);
    const url = `/v1/webhooks/${webhook}/deliveries/${entry.delivery_id}/replay`;
    const lines = run.stderr.trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual({
      error: {
        code: 'interrupted',
        message: `interrupted while waiting 30 s to retry after HTTP 503: POST ${url} was not sent again, so the outcome is unknown: the platform may have made this change`,
        exit_code: 130,
        hint: `run the same command again with the same profile, logged in as the same user or with the same API key, to settle it (journal ${journal()}): it sends the same idempotency key`,
        outcome: 'unknown',
      },
    });
  });

  it('dlq discard W ID: its own error, outcome unknown, how to settle it', async () => {
    const { entries, webhook } = await deadLetteredQueue(sandbox(), { status: 204 }, 1);
    const entry = entries[0]!;
    const run = await stoppedInWait(['webhooks', 'dlq', 'discard', webhook, entry.id, '--yes']);
    expect(run.code).toBe(130);
    const url = `/v1/webhooks/${webhook}/dlq/${entry.id}`;
    expect(run.stderr.trim().split('\n').at(-1)).toBe(
      `error: interrupted while waiting 30 s to retry after HTTP 503: DELETE ${url} was not sent again, so the outcome is unknown: the platform may have made this change; run the same command again with the same profile, logged in as the same user or with the same API key, to settle it (journal ${journal()}): it sends the same idempotency key`,
    );
  });
});
