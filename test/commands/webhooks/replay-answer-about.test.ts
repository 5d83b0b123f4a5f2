/**
 * attack26b F4: `webhooks replay W D` answered with D itself (the original, exhausted delivery)
 * said "ok D D … ✓ 1 replayed", and with a delivery of another webhook the same; with --wait the
 * error said "the replays were made and their deliveries failed". An answer is a replay of D only
 * when it is a new delivery (its id not D's), of W, replaying D (`replay_of`, when given): else the
 * row's outcome is unknown (exit 7, no ✓), and nothing says a replay was made. Through a proxy
 * that rewrites the sandbox's answer. review26a M1: D itself with its retry counter reset (rule 1:
 * a replay resets it) is the replay: only D still saying its attempts are used up is refused.
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { createWebhook, deadLetteredQueue } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);
const proxy = useReshapingProxy(sandbox);

/** The replay's answer changed by `change` (given the delivery the request replays). */
const replayAnswer = (change: (body: Record<string, unknown>, replayed: string) => void) => ({
  reshape: (answer: Reshaped) => {
    const replay = /\/deliveries\/([^/]+)\/replay$/.exec(answer.path);
    if (answer.method === 'POST' && replay && answer.status < 300)
      change(answer.body as Record<string, unknown>, decodeURIComponent(replay[1]!));
  },
});

describe('a replay answered with what is not a new delivery of W replaying D (attack26b F4)', () => {
  const other = async () => (await createWebhook(sandbox(), 'http://127.0.0.1:9/other')).id;
  it.each([
    [
      'D itself, its attempts still used up',
      async () => (body: Record<string, unknown>, d: string) =>
        Object.assign(body, {
          id: d,
          replay_of: null,
          status: 'failed',
          attempt_count: body.max_attempts,
          next_retry_at: null,
        }),
      'id',
    ],
    [
      'a delivery of another webhook',
      async () => {
        const id = await other();
        return (body: Record<string, unknown>) => Object.assign(body, { webhook_id: id });
      },
      'webhook_id',
    ],
    [
      'a replay of another delivery',
      async () => (body: Record<string, unknown>) => Object.assign(body, { replay_of: 'dlv_another' }),
      'replay_of',
    ],
  ] as const)('%s: the row unknown, exit 7, no ✓, never "replays were made"', async (_, make, field) => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 3);
    const [d1, d2, d3] = entries.map((entry) => entry.delivery_id);
    proxy().set(replayAnswer(await make()));
    const env = { SVC_BASE_URL: proxy().url };
    const refused = (d: string) =>
      `the server's answer to POST /v1/webhooks/${webhook}/deliveries/${d}/replay is about ${field} `;
    // Two named: each row's outcome unknown (exit 7).
    const rows = await svc.run(['webhooks', 'replay', webhook, d1!, d2!, '--no-wait', '--yes', '--ndjson'], {
      env,
    });
    expect(rows.code, rows.stderr).toBe(7);
    const found = ndjson(rows.stdout) as Array<Record<string, unknown> & { error: { message: string } }>;
    // The contract's statuses: an unknown outcome is shown failed, with outcome "unknown".
    expect(found.map((row) => [row.status, row.outcome, row.delivery_id, row.new_delivery_id])).toEqual([
      ['failed', 'unknown', d1, undefined],
      ['failed', 'unknown', d2, undefined],
    ]);
    expect(found[0]!.error.message).toContain(refused(d1!));
    expect(rows.stderr).not.toContain('✓');
    // One named, --wait: the command's error, its outcome unknown (exit 1), nothing followed.
    expect(found[0]!.error.message).toContain('check on the platform whether it was made');
    expect(found[0]!.error.message).not.toContain('most likely');
    const one = await svc.run(['webhooks', 'replay', webhook, d3!, '--wait', '--yes'], { env });
    expect(one.code, one.stderr).toBe(1);
    expect(one.stderr).toContain(`error: ${refused(d3!)}`);
    expect(one.stderr).toContain('may have made the change');
    expect(one.stderr).not.toContain('✓');
    expect(one.stderr).not.toContain('replays were made');
  });
});

describe('a replay answered with D itself, its retry counter reset (review26a M1)', () => {
  it('is the replay: ok, followed by id D, exit 0', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    const d = entries[0]!.delivery_id;
    // The sandbox's new delivery (attempt_count 0, pending), answered as D: rule 1 read literally.
    proxy().set(
      replayAnswer((body, replayed) =>
        Object.assign(body, { id: replayed, replay_of: null, attempt_count: 0 }),
      ),
    );
    const r = await svc.run(['webhooks', 'replay', webhook, d, '--no-wait', '--yes', '--ndjson'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout).filter((row) => 'delivery_id' in row);
    expect(rows.map((row) => [row.status, row.delivery_id, row.new_delivery_id])).toEqual([['ok', d, d]]);
  });
});

// s27 (brief fixgrant2 item 4): what shows D itself is the replay is its counter reset or a retry
// scheduled (rule 1), never an answer saying D is failed: a delivery dead-lettered when its webhook
// was stopped (last_error_code webhook_stopped) has attempts left and is D as it was. An answer
// without counts is refused by the delivery's schema (attempt_count and max_attempts are required).
describe('a replay answered with D itself, not shown renewed', () => {
  /** `svc webhooks replay W D` of one dead-lettered D, its answer changed by `change`. */
  const replayOne = async (change: (body: Record<string, unknown>, replayed: string) => void) => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    const d = entries[0]!.delivery_id;
    proxy().set(replayAnswer(change));
    const r = await svc.run(['webhooks', 'replay', webhook, d, '--no-wait', '--yes', '--ndjson'], {
      env: { SVC_BASE_URL: proxy().url },
    });
    return { r, d, webhook };
  };

  it('status failed with attempts left (its webhook stopped): refused as D itself, outcome unknown, exit 1', async () => {
    const { r, d, webhook } = await replayOne((body, replayed) =>
      Object.assign(body, {
        id: replayed,
        replay_of: null,
        status: 'failed',
        attempt_count: 2,
        max_attempts: 5,
        next_retry_at: null,
        last_error_code: 'webhook_stopped',
      }),
    );
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      message: `the server's answer to POST /v1/webhooks/${webhook}/deliveries/${d}/replay is about id "${d}", the one the request names, not a new one`,
      outcome: 'unknown',
    });
    expect(r.stderr).not.toContain('✓');
  });

  it('no counts: refused by the schema, outcome unknown, exit 1', async () => {
    const { r } = await replayOne((body, replayed) => {
      Object.assign(body, { id: replayed, replay_of: null, status: 'pending', next_retry_at: null });
      delete body.attempt_count;
      delete body.max_attempts;
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('/replay lacks \\"attempt_count\\" (integer)');
    expect(r.stderr).toContain('"outcome":"unknown"');
    expect(r.stderr).not.toContain('✓');
  });

  it('retrying, a retry scheduled, attempts left: the replay, ok, exit 0', async () => {
    const { r, d } = await replayOne((body, replayed) =>
      Object.assign(body, {
        id: replayed,
        replay_of: null,
        status: 'retrying',
        attempt_count: 1,
        next_retry_at: '2099-01-01T00:00:00Z',
      }),
    );
    expect(r.code, r.stderr).toBe(0);
    const rows = ndjson(r.stdout).filter((row) => 'delivery_id' in row);
    expect(rows.map((row) => [row.status, row.delivery_id, row.new_delivery_id])).toEqual([['ok', d, d]]);
  });
});

describe('a replay of D typed in another case, answered with D as it was (review26a L2)', () => {
  it('is refused as D itself, ids compared ignoring case: its outcome unknown, exit 1', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 1);
    const d = entries[0]!.delivery_id;
    proxy().set({
      // A server that takes ids in any case: the sandbox is asked in its own.
      path: (_method, asked) => asked.split(d.toUpperCase()).join(d),
      reshape: (answer: Reshaped) => {
        if (answer.method === 'POST' && /\/replay$/.test(answer.path) && answer.status < 300)
          Object.assign(answer.body as object, {
            id: d,
            replay_of: null,
            status: 'failed',
            attempt_count: (answer.body as { max_attempts: number }).max_attempts,
            next_retry_at: null,
          });
      },
    });
    const r = await svc.run(
      ['webhooks', 'replay', webhook, d.toUpperCase(), '--no-wait', '--yes', '--ndjson'],
      {
        env: { SVC_BASE_URL: proxy().url },
      },
    );
    // One named: the command's error, its outcome unknown (exit 1).
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('the one the request names, not a new one');
    expect(r.stderr).toContain('"outcome":"unknown"');
    expect(r.stderr).not.toContain('✓');
  });
});
