// Over 300 lines: `webhooks replay` in-process against one sandbox and its targets, one behaviour
// per test with its exact output; resumes, races and follows have files of their own.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DlqEntry } from '../../../src/api/schemas/webhooks.js';
import type { Clock } from '../../../src/context.js';
import { verifySignature } from '../../../src/webhooks/signature.js';
import { bulkRunner, fixedClock, lastJson } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandbox } from '../../helpers/sandbox.js';
import { startTarget } from '../../helpers/targets.js';
import { admin, createWebhook, emit, settle } from '../../helpers/webhooks.js';

// Every target here answers at once, so the platform's own 10 s: with 500 ms, a stall of the event
// loop the targets, the sandbox and svc share (a loaded machine) dead-lettered replays as new
// entries, which the counts of other tests took for a replay that came back (seen twice).
const REQUEST_TIMEOUT_MS = 10_000;
const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: REQUEST_TIMEOUT_MS } });
const svc = bulkRunner(sandbox);
const EVENT = 'exception.sla.breached';
const REMEDY_5XX = 'the target had an internal error: check its logs';

/** A dead-letter entry as the API answers it. */
type Entry = DlqEntry;

/** A webhook whose target answers `status`, with `count` dead-lettered deliveries (history only). */
async function queue(status: number, count: number, extra: Record<string, unknown> = {}) {
  const target = await startTarget(() => ({ status, body: status >= 400 ? 'down' : 'ok' }));
  const webhook = await createWebhook(sandbox(), target.url, extra);
  await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
    body: { webhook_id: webhook.id, count },
  });
  return { webhook: webhook.id, secret: webhook.secret, target, entries: await entries(webhook.id) };
}
async function entries(webhook: string, status = 'all'): Promise<Entry[]> {
  const all: Entry[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: Entry[]; next_cursor: string | null } = (
      await admin(
        sandbox(),
        'GET',
        `/v1/webhooks/${webhook}/dlq?status=${status}&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      )
    ).body;
    all.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}
/**
 * The queue after replay runs over `queued` (its entries before them): how many times each of those
 * was replayed, and every other entry now in it. Such an entry may only be a replay the runs made
 * (`rows`, their result rows) that was dead-lettered itself: the targets answer at once, but they,
 * the sandbox and svc share one event loop, and a loaded machine can stall it past the request
 * timeout on every attempt. It is then a timed-out replay, queued, not replayed again: TIMED_OUT_REPLAY.
 */
async function afterReplays(webhook: string, queued: Entry[], rows: Array<Record<string, unknown>>) {
  const after = await entries(webhook);
  const listed = new Set(queued.map((e) => e.id));
  const made = new Set(rows.map((row) => row.new_delivery_id));
  return {
    replayCounts: after.filter((e) => listed.has(e.id)).map((e) => [e.id, e.replay_count]),
    others: after
      .filter((e) => !listed.has(e.id))
      .map((e) => ({
        made_by_the_runs: made.has(e.delivery_id),
        status: e.status,
        replay_count: e.replay_count,
        last_error: e.last_error,
      })),
  };
}
const TIMED_OUT_REPLAY = {
  made_by_the_runs: true,
  status: 'queued',
  replay_count: 0,
  last_error: `connection_timeout: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`,
};
const replayedAs = async (webhook: string) =>
  new Map((await entries(webhook)).map((e) => [e.delivery_id, e.last_replay_delivery_id]));

describe('svc webhooks replay WEBHOOK ID...: one shape in every mode', () => {
  it.each(['table', 'plain', 'json', 'ndjson'] as const)(
    '%s: a delivery id and a dead-letter entry id',
    async (mode) => {
      const {
        webhook,
        entries: [a, b],
      } = await queue(204, 2);
      const flags = mode === 'json' || mode === 'ndjson' ? [`--${mode}`] : [];
      const r = await svc.run(
        ['webhooks', 'replay', webhook, a!.delivery_id, b!.id, '--no-wait', '--concurrency', '1', ...flags],
        {
          clock: fixedClock(),
          mode: mode === 'table' ? 'table' : 'plain',
        },
      );
      expect(r.stderr).toBe(
        `✓ 2 replayed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (0.0 s)\ntheir deliveries were not followed: see how they went with \`svc webhooks deliveries ${webhook}\`, or pass --wait\n`,
      );
      expect(r.code).toBe(0);
      const made = await replayedAs(webhook);
      const [na, nb] = [made.get(a!.delivery_id)!, made.get(b!.delivery_id)!];
      expect([na, nb]).toEqual([expect.stringMatching(/^dlv_/), expect.stringMatching(/^dlv_/)]);
      const objects = [
        {
          status: 'ok',
          delivery_id: a!.delivery_id,
          new_delivery_id: na,
          event_type: EVENT,
          event_id: a!.event_id,
        },
        {
          status: 'ok',
          delivery_id: b!.delivery_id,
          dlq_entry_id: b!.id,
          new_delivery_id: nb,
          event_type: EVENT,
          event_id: b!.event_id,
        },
      ];
      const expected = {
        table:
          'RESULT  DELIVERY                      NEW DELIVERY                  EVENT                   OUTCOME  DETAIL\n' +
          `ok      ${a!.delivery_id}  ${na}  ${EVENT}  -        -\n` +
          `ok      ${b!.delivery_id}  ${nb}  ${EVENT}  -        -\n`,
        plain: `ok\t${a!.delivery_id}\t${na}\t${EVENT}\t\t\nok\t${b!.delivery_id}\t${nb}\t${EVENT}\t\t\n`,
        json: `[\n${objects.map((o) => JSON.stringify(o)).join(',\n')}\n]\n`,
        ndjson: objects.map((o) => `${JSON.stringify(o)}\n`).join(''),
      }[mode];
      expect(r.stdout).toBe(expected);
    },
  );

  it('one id is an array of one with --json; an unknown one is that error (exit 5), with nothing left behind', async () => {
    const {
      webhook,
      entries: [a],
    } = await queue(204, 1);
    const one = await svc.run(['webhooks', 'replay', webhook, a!.id, '--json', '--no-wait']);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual([
      {
        status: 'ok',
        delivery_id: a!.delivery_id,
        dlq_entry_id: a!.id,
        new_delivery_id: (await replayedAs(webhook)).get(a!.delivery_id),
        event_type: EVENT,
        event_id: a!.event_id,
      },
    ]);
    const unknown = await svc.run(['webhooks', 'replay', webhook, 'dlv_nope', '--no-wait']);
    expect([unknown.code, unknown.stdout]).toEqual([
      5,
      'failed\tdlv_nope\t\t\t\tdelivery dlv_nope not found\n',
    ]);
    expect(unknown.stderr).toMatch(
      /^error: delivery dlv_nope not found \(HTTP 404, not_found, request req_[0-9a-f]+\); see `svc webhooks deliveries ls wh_[0-9a-f]{24}` for its deliveries\n$/,
    );
    expect(existsSync(svc.journals) ? readdirSync(svc.journals) : []).toEqual([]);
  });
});

describe('svc webhooks replay --wait: the outcome, not just the replay', () => {
  it('against a target that is still down: exit 7, each failure named with its cause and remedy', async () => {
    const {
      webhook,
      entries: [a, b],
    } = await queue(500, 2, { max_attempts: 1 });
    const r = await svc.run(
      ['webhooks', 'replay', webhook, a!.delivery_id, b!.delivery_id, '--wait', '--concurrency', '1'],
      {
        clock: fixedClock(),
      },
    );
    const made = await replayedAs(webhook);
    const [na, nb] = [made.get(a!.delivery_id)!, made.get(b!.delivery_id)!];
    const error = '5xx_server_error: the target answered 500 Internal Server Error: down';
    expect(r.stdout).toBe(
      `failed\t${a!.delivery_id}\t${na}\t${EVENT}\tfailed\t${error}; ${REMEDY_5XX}\n` +
        `failed\t${b!.delivery_id}\t${nb}\t${EVENT}\tfailed\t${error}; ${REMEDY_5XX}\n`,
    );
    expect(r.stderr).toBe(
      '0 replayed and delivered, 2 failed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (0.0 s)\n' +
        `error: 2 of 2 items failed: ${na} 5xx_server_error (${REMEDY_5XX}); ${nb} 5xx_server_error (${REMEDY_5XX}); ` +
        `the replays were made and their deliveries failed: 2 are dead-lettered: once the target is fixed, replay exactly those with \`svc webhooks replay ${webhook} ${na} ${nb}\`; --ndjson prints one result per item\n`,
    );
    expect(r.code).toBe(7);
  });

  it('against a healthy target: exit 0 once every new delivery is delivered', async () => {
    const {
      webhook,
      entries: [a, b],
    } = await queue(204, 2);
    const r = await svc.run(['webhooks', 'replay', webhook, a!.id, b!.id, '--wait', '--ndjson'], {
      clock: fixedClock(),
    });
    expect([r.code, r.stderr]).toEqual([
      0,
      '✓ 2 replayed and delivered in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (0.0 s)\n',
    ]);
    expect(ndjson(r.stdout).map((x) => [x.status, x.delivery_status])).toEqual([
      ['ok', 'delivered'],
      ['ok', 'delivered'],
    ]);
  });

  it('waits by default on a terminal, not in a pipe', async () => {
    const {
      webhook,
      entries: [a, b],
    } = await queue(204, 2);
    const tty = await svc.run(['webhooks', 'replay', webhook, a!.id], { clock: fixedClock(), mode: 'table' });
    expect([tty.code, tty.stderr]).toEqual([
      0,
      '✓ 1 replayed and delivered in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (0.0 s)\n',
    ]);
    expect(tty.stdout).toContain(' delivered ');
    const piped = await svc.run(['webhooks', 'replay', webhook, b!.id], { clock: fixedClock() });
    expect(piped.stderr).toMatch(
      /^✓ 1 replayed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 \(0\.0 s\)\ntheir deliveries were not followed/,
    );
  });

  it('gives up following after --wait-timeout: the replay was made, its outcome unknown (exit 7)', async () => {
    const {
      webhook,
      entries: [a],
    } = await queue(204, 1);
    let ms = Date.now();
    const leaping: Clock = { now: () => (ms += 1000) };
    const r = await svc.run(
      ['webhooks', 'replay', webhook, a!.id, '--wait', '--wait-timeout', '1', '--json'],
      { clock: leaping },
    );
    // Not a failure (oncall13 F4): the replay was made, its outcome is not known yet.
    expect(r.code).toBe(7);
    const [row] = JSON.parse(r.stdout);
    expect(row).toMatchObject({
      status: 'ok',
      new_delivery_id: expect.stringMatching(/^dlv_/),
      delivery_status: 'pending',
      follow: 'not_settled',
      follow_error: { code: 'not_settled', message: 'no attempt finished within 1 s' },
    });
    expect(row.error).toBeUndefined();
    expect(lastJson(r.stderr).error).toMatchObject({
      code: 'not_followed',
      message: '1 replay was made, but how its delivery went is not known: 1 not settled within 1 s',
      hint: `run the same command again to follow it (nothing is replayed twice), or \`svc webhooks deliveries ${webhook}\``,
    });
    // Owed its follow: the same command follows it (a journal kept; this one's ends here).
    const kept = readdirSync(svc.journals);
    expect(kept).toHaveLength(1);
    rmSync(join(svc.journals, kept[0]!));
  });

  it.each([
    [['--no-wait', '--wait-timeout', '5'], '--wait-timeout only works with --wait'],
    [['--limit', '5'], '--limit only works with --dlq'],
    [['--since', '2h'], '--since only works with --dlq'],
    [['dlv_y', 'dlv_x'], 'dlv_x is given twice; give each delivery or entry once'],
  ])('%j is a usage error', async (flags, message) => {
    const r = await svc.run(['webhooks', 'replay', 'wh_x', 'dlv_x', ...flags]);
    expect([r.code, r.stderr]).toEqual([2, `error: ${message}\n`]);
  });
});

describe('svc webhooks replay --dlq', () => {
  it('works on the queue as it was when it started: replays that fail again are not replayed by the same run', async () => {
    // 210 entries (two pages): each replay fails at once and is dead-lettered again, behind them.
    const { webhook } = await queue(500, 210, { max_attempts: 1 });
    const r = await svc.run([
      'webhooks',
      'replay',
      webhook,
      '--dlq',
      '--ndjson',
      '--concurrency',
      '8',
      '--no-wait',
    ]);
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/^✓ 210 replayed in /)]);
    expect(ndjson(r.stdout)).toHaveLength(210);
    await settle(sandbox());
    const all = await entries(webhook);
    expect(all.filter((e) => e.replay_count === 1)).toHaveLength(210);
    expect(all.filter((e) => e.status === 'queued')).toHaveLength(210);
  });

  it('--limit is a total; --dry-run lists what would be replayed and changes nothing', async () => {
    const { webhook } = await queue(204, 250);
    const dry = await svc.run([
      'webhooks',
      'replay',
      webhook,
      '--dlq',
      '--limit',
      '220',
      '--dry-run',
      '--ndjson',
    ]);
    expect([dry.code, dry.stderr]).toEqual([
      0,
      'dry run: 220 would be replayed (whether they are delivered is known only when they are sent), 0 would be skipped, 0 would fail; nothing was changed\n',
    ]);
    const rows = ndjson(dry.stdout);
    expect(rows.map((x) => x.plan)).toEqual(Array(220).fill('replay'));
    const known = new Set((await entries(webhook)).map((e) => e.id));
    const listed = new Set(rows.map((x) => x.dlq_entry_id));
    expect([listed.size, [...listed].filter((id) => !known.has(id))]).toEqual([220, []]);
    expect((await entries(webhook, 'queued')).length).toBe(250);
    const r = await svc.run([
      'webhooks',
      'replay',
      webhook,
      '--dlq',
      '--limit',
      '220',
      '--no-wait',
      '--ndjson',
    ]);
    expect([r.code, ndjson(r.stdout).length]).toEqual([0, 220]);
    expect((await entries(webhook, 'queued')).length).toBe(30);
    const rest = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--no-wait', '--json']);
    expect([rest.code, JSON.parse(rest.stdout).length]).toEqual([0, 30]);
    const none = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--no-wait', '--json']);
    expect([none.code, none.stdout, none.stderr]).toEqual([
      0,
      '[]\n',
      'nothing to replay: no queued dead-letter entry matches\n',
    ]);
  });

  it('some replays answered 500: exit 7, their outcome unknown; the same command resumes and replays each entry once', async () => {
    const { webhook, entries: queued } = await queue(204, 30);
    // Half of the requests fail with 500 before the handler: GETs are retried, POSTs are not, and
    // a 500 to a POST leaves its outcome unknown (svc cannot tell it came before the change).
    await call(sandbox(), 'PUT', '/_sandbox/faults', {
      body: { fail_rate: 0.5, fail_status: 500, phase: 'before', seed: 42, retry_after: null },
    });
    let first: Awaited<ReturnType<typeof svc.run>>;
    try {
      first = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--ndjson', '--no-wait'], {
        env: { SVC_MAX_RETRIES: '12' },
      });
    } finally {
      await call(sandbox(), 'PUT', '/_sandbox/faults', { body: { fail_rate: 0 } });
    }
    const failed = ndjson(first.stdout).filter((x) => x.status === 'failed');
    expect(first.code).toBe(7);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed[0].error).toMatchObject({ status: 500 });
    expect(failed.filter((x) => x.outcome !== 'unknown')).toEqual([]);
    expect(first.stderr).toMatch(
      /run the same command again with the same profile, logged in as the same user or with the same API key, to settle them \(journal .+webhooks-replay-[0-9a-f]{16}\.ndjson\)/,
    );
    const second = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--ndjson', '--no-wait']);
    expect(second.code, second.stderr).toBe(0);
    // What the first run did is a journal row (review s8: done entries had left the queue, so no row).
    const resumed = ndjson(second.stdout);
    expect(resumed).toHaveLength(30);
    expect(resumed.filter((x) => x.status === 'ok')).toHaveLength(failed.length);
    expect(resumed.filter((x) => x.reason === 'journal')).toHaveLength(30 - failed.length);
    const after = await afterReplays(webhook, queued, [...ndjson(first.stdout), ...ndjson(second.stdout)]);
    expect(after.replayCounts).toEqual(queued.map((e) => [e.id, 1]));
    expect(after.others).toEqual(after.others.map(() => TIMED_OUT_REPLAY));
    expect(readdirSync(svc.journals)).toEqual([]);
  });

  it('Ctrl-C: in-flight replays finish, exit 130; the same command completes the run, each entry once', async () => {
    const { webhook, entries: queued } = await queue(204, 400);
    const controller = new AbortController();
    const running = svc.run(
      ['webhooks', 'replay', webhook, '--dlq', '--ndjson', '--concurrency', '2', '--no-wait'],
      {
        signal: controller.signal,
      },
    );
    while ((await entries(webhook, 'replayed')).length < 20) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const r = await running;
    expect(r.code).toBe(130);
    const error = JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!).error;
    expect(`${error.message}; ${error.hint}`).toMatch(
      /^interrupted after [\d,]+ of 400; run the same command again with the same profile, logged in as the same user or with the same API key, to resume/,
    );
    const done = ndjson(r.stdout).length;
    expect((await entries(webhook, 'replayed')).length).toBe(done);
    const rest = await svc.run(['webhooks', 'replay', webhook, '--dlq', '--ndjson', '--no-wait']);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toMatch(
      new RegExp(`^resuming the run started at \\S+: ${done} done, ${400 - done} to do `),
    );
    const resumed = ndjson(rest.stdout);
    expect(resumed.filter((x) => x.status === 'ok')).toHaveLength(400 - done);
    expect(resumed.filter((x) => x.reason === 'journal')).toHaveLength(done);
    const after = await afterReplays(webhook, queued, [...ndjson(r.stdout), ...ndjson(rest.stdout)]);
    expect(after.replayCounts).toEqual(queued.map((e) => [e.id, 1]));
    expect(after.others).toEqual(after.others.map(() => TIMED_OUT_REPLAY));
  });

  it('a replay sends the original bytes, freshly signed, and the target verifies them', async () => {
    const down = await startTarget(() => ({ status: 500 }));
    const webhook = await createWebhook(sandbox(), down.url, { max_attempts: 2 });
    await emit(sandbox(), webhook.id, 5);
    await settle(sandbox());
    const originals = new Map(down.received.map((r) => [r.headers['x-svc-event-id'] as string, r.body]));
    expect(originals.size).toBe(5);
    const healthy = await startTarget(() => ({ status: 202 }));
    expect((await admin(sandbox(), 'PATCH', `/v1/webhooks/${webhook.id}`, { url: healthy.url })).status).toBe(
      200,
    );
    const r = await svc.run(['webhooks', 'replay', webhook.id, '--dlq', '--wait', '--ndjson']);
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/^✓ 5 replayed and delivered in /)]);
    expect(healthy.received).toHaveLength(5);
    for (const got of healthy.received) {
      expect(got.body.equals(originals.get(got.headers['x-svc-event-id'] as string)!)).toBe(true);
      const header = got.headers['x-svc-signature'] as string;
      const t = Number(/t=(\d+)/.exec(header)![1]);
      expect(verifySignature(got.body, header, webhook.secret, { nowSeconds: t }).valid).toBe(true);
      expect(got.headers['x-svc-delivery-attempt']).toBe('1');
    }
  });
});
