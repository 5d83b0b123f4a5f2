/**
 * What `svc webhooks replay` says is true: after failed replays, the hint says what the new
 * deliveries' state allows (the platform retries them, or replay exactly these ids); a dry run
 * of one id exits as the real run would; a delivery named with its own dead-letter entry is
 * refused like a repeated id; replaying an event already delivered says so.
 */

import { describe, expect, it } from 'vitest';
import type { DlqEntry } from '../../../src/api/schemas/webhooks.js';
import { bulkRunner, fixedClock, lastJson } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { call, useSandbox } from '../../helpers/sandbox.js';
import { startTarget, type Target } from '../../helpers/targets.js';
import { ANSWERED_TIMEOUT_MS, admin, createWebhook } from '../../helpers/webhooks.js';

// Every target here answers: the request timeout is far above need (ANSWERED_TIMEOUT_MS).
// Fast retries: a failed replay of a webhook with max_attempts 1 is dead-lettered at once.
const fast = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: ANSWERED_TIMEOUT_MS } });
// The documented schedule: a failed first attempt is retried 30 s later, so it stays `retrying`.
const slow = useSandbox({ webhooks: { timeScale: 1, requestTimeoutMs: ANSWERED_TIMEOUT_MS } });
const svc = bulkRunner(fast);
const svcSlow = bulkRunner(slow);

/** A dead-letter entry as the API answers it. */
type Entry = DlqEntry;

/** A webhook whose target answers as `answer` says, with `count` dead-lettered deliveries. */
async function queue(
  sandbox: typeof fast,
  status: { value: number },
  count: number,
  extra: Record<string, unknown> = {},
): Promise<{ webhook: string; target: Target; entries: Entry[] }> {
  const target = await startTarget(() => ({ status: status.value }));
  const webhook = await createWebhook(sandbox(), target.url, extra);
  await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
    body: { webhook_id: webhook.id, count },
  });
  const entries = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook.id}/dlq?status=all&limit=200`)).body
    .items as Entry[];
  return { webhook: webhook.id, target, entries };
}

describe('the hint after failed replays says what is true of the new deliveries', () => {
  it('dead-lettered again: replay exactly those ids (a few listed, how many more), and doing so works', async () => {
    const status = { value: 500 };
    const { webhook, target } = await queue(fast, status, 7, { max_attempts: 1 });
    const r = await svc.run(
      ['webhooks', 'replay', webhook, '--dlq', '--wait', '--concurrency', '1', '--ndjson'],
      {
        clock: fixedClock(),
      },
    );
    expect(r.code).toBe(7);
    const made = ndjson(r.stdout).map((row) => row.new_delivery_id as string);
    expect(made).toHaveLength(7);
    const hint = r.stderr.trimEnd().split('\n').at(-1)!;
    expect(hint).toContain(
      `the replays were made and their deliveries failed: 7 are dead-lettered: once the target is fixed, replay exactly those with \`svc webhooks replay ${webhook} ${made.slice(0, 5).join(' ')}\` (and 2 more: the new delivery of each failed row)`,
    );
    expect(hint).not.toContain('run the command again');

    status.value = 200;
    const again = await svc.run(['webhooks', 'replay', webhook, ...made, '--wait'], { clock: fixedClock() });
    expect([again.code, again.stderr]).toEqual([
      0,
      '✓ 7 replayed and delivered in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (0.0 s)\n',
    ]);
    const summary = (await admin(fast(), 'GET', `/v1/webhooks/${webhook}/deliveries?limit=1`)).body.summary;
    expect(summary).toMatchObject({ failed: 0, recovered: 14, delivered: 7 });
    await target.close();
  });

  it('retrying: the platform retries them by itself (and when); how to follow them; no "run the command again"', async () => {
    const status = { value: 503 };
    const { webhook, target } = await queue(slow, status, 2);
    const r = await svcSlow.run(['webhooks', 'replay', webhook, '--dlq', '--wait', '--ndjson'], {
      clock: fixedClock(),
    });
    expect(r.code).toBe(7);
    const rows = ndjson(r.stdout);
    expect(rows.map((row) => row.delivery_status)).toEqual(['retrying', 'retrying']);
    const next = rows.map((row) => row.error.next_retry_at as string).sort()[0];
    // --ndjson: the error is one JSON object, the last line of stderr.
    const { error } = JSON.parse(r.stderr.trimEnd().split('\n').at(-1)!);
    // The replays were made: not "nothing done" (review27a F5).
    expect(error).toEqual({
      code: 'partial_failure',
      exit_code: 7,
      message:
        `2 of 2 items failed: ${rows[0].new_delivery_id} 5xx_server_error (the target had an internal error: check its logs); ` +
        `${rows[1].new_delivery_id} 5xx_server_error (the target had an internal error: check its logs)`,
      hint:
        `the replays were made and their deliveries failed: 2 are retrying: the platform retries them by itself (next attempt at ${next}); ` +
        `follow them with \`svc webhooks deliveries ${webhook} --status in_flight\``,
    });
    await target.close();
  });
});

describe('--dry-run of one id exits as the real run would', () => {
  it('not found: 5 in both; in progress: 6 in both', async () => {
    const status = { value: 503 };
    const { webhook, target, entries } = await queue(slow, status, 1);
    for (const dry of [['--dry-run'], []]) {
      const missing = await svcSlow.run([
        'webhooks',
        'replay',
        webhook,
        'dlv_nonexistent',
        '--no-wait',
        ...dry,
      ]);
      expect(missing.code, `${dry} ${missing.stderr}`).toBe(5);
      const discard = await svcSlow.run([
        'webhooks',
        'dlq',
        'discard',
        webhook,
        'dlq_nonexistent',
        '--yes',
        ...dry,
      ]);
      expect(discard.code, `${dry} ${discard.stderr}`).toBe(5);
    }
    // A replay whose first attempt failed is retrying for 30 s: replaying it again is refused.
    const made = await svcSlow.run(['webhooks', 'replay', webhook, entries[0]!.id, '--wait', '--json']);
    const busy = JSON.parse(made.stdout)[0].new_delivery_id as string;
    const dry = await svcSlow.run(['webhooks', 'replay', webhook, busy, '--no-wait', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(6);
    expect(dry.stderr).toContain(`delivery ${busy} is still retrying`);
    const real = await svcSlow.run(['webhooks', 'replay', webhook, busy, '--no-wait']);
    expect(real.code, real.stderr).toBe(6);
    await target.close();
  });
});

describe('one delivery named twice, once by its dead-letter entry', () => {
  it('is refused like a repeated id (exit 2, naming both), and nothing is replayed', async () => {
    const { webhook, target, entries } = await queue(fast, { value: 204 }, 1);
    const [e] = entries;
    const r = await svc.run(['webhooks', 'replay', webhook, e!.delivery_id, e!.id, '--no-wait']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `error: ${e!.delivery_id} and ${e!.id} name the same delivery (${e!.id} is its dead-letter entry); give one of them\n`,
    ]);
    const after = (await admin(fast(), 'GET', `/v1/webhooks/${webhook}/dlq/${e!.id}`)).body;
    expect(after).toMatchObject({ status: 'queued', replay_count: 0 });
    expect(target.received).toHaveLength(0);
    await target.close();
  });
});

describe('replaying an event already delivered', () => {
  it('still replays, with a note on the row and one warning on stderr', async () => {
    const { webhook, target, entries } = await queue(fast, { value: 204 }, 1);
    const [e] = entries;
    const first = await svc.run(['webhooks', 'replay', webhook, e!.delivery_id, '--wait', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const deliveredBy = JSON.parse(first.stdout)[0].new_delivery_id as string;
    expect(JSON.parse(first.stdout)[0].note).toBeUndefined();

    // The original (now recovered), its entry (replayed) and the delivery that delivered it.
    const again = await svc.run(['webhooks', 'replay', webhook, e!.delivery_id, '--no-wait', '--ndjson']);
    expect(again.code, again.stderr).toBe(0);
    expect(ndjson(again.stdout)[0]).toMatchObject({
      status: 'ok',
      delivery_id: e!.delivery_id,
      note: 'already_delivered',
      delivered_by: deliveredBy,
    });

    const human = await svc.run(['webhooks', 'replay', webhook, e!.id, '--no-wait'], { clock: fixedClock() });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr.split('\n')[0]).toBe(
      `warning: ${e!.id} was already delivered (by ${deliveredBy}): replaying sends its event again`,
    );
    expect(human.stdout).toContain(`already delivered by ${deliveredBy}; sent again`);

    const two = await svc.run(['webhooks', 'replay', webhook, deliveredBy, e!.delivery_id, '--no-wait'], {
      clock: fixedClock(),
    });
    expect(two.stderr.match(/warning:/g)).toHaveLength(1);
    expect(two.stderr.split('\n')[0]).toBe(
      `warning: 2 of these were already delivered or replayed (${deliveredBy}, ${e!.delivery_id}): replaying sends their events again`,
    );
    await target.close();
  });
});

// Exploratory test s6 (findings-review-platform 3): a delivery named by its own id (dlv_…) whose
// dead-letter entry was replayed already got no note and no warning; only its dlq_… id did.
describe('replaying a delivery whose dead-letter entry was replayed already, named by its delivery id', () => {
  it.each(['table', 'plain', 'json', 'ndjson'] as const)(
    '%s: the same already_replayed note and warning as its entry id gets',
    async (mode) => {
      const { webhook, target, entries } = await queue(fast, { value: 500 }, 1, { max_attempts: 1 });
      const [e] = entries;
      const first = await svc.run(['webhooks', 'replay', webhook, e!.id, '--no-wait', '--json']);
      expect(first.code, first.stderr).toBe(0);
      const as = JSON.parse(first.stdout)[0].new_delivery_id as string;
      const entry = (await admin(fast(), 'GET', `/v1/webhooks/${webhook}/dlq/${e!.id}`)).body;
      expect([entry.status, entry.last_replay_delivery_id]).toEqual(['replayed', as]);

      const flags = mode === 'json' || mode === 'ndjson' ? [`--${mode}`] : [];
      const r = await svc.run(['webhooks', 'replay', webhook, e!.delivery_id, '--no-wait', ...flags], {
        clock: fixedClock(),
        mode: mode === 'table' ? 'table' : 'plain',
      });
      expect(r.code, r.stderr).toBe(0);
      const made = (await admin(fast(), 'GET', `/v1/webhooks/${webhook}/dlq/${e!.id}`)).body
        .last_replay_delivery_id as string;
      expect(made).not.toBe(as);
      const row = {
        status: 'ok',
        delivery_id: e!.delivery_id,
        new_delivery_id: made,
        event_type: e!.event_type,
        event_id: e!.event_id,
        note: 'already_replayed',
        replayed_as: as,
      };
      const warning = `warning: ${e!.delivery_id} was already replayed (as ${as}): replaying sends its event again\n`;
      const after = `✓ 1 replayed in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (0.0 s)\ntheir deliveries were not followed: see how they went with \`svc webhooks deliveries ${webhook}\`, or pass --wait\n`;
      const expected = {
        table: {
          stdout:
            // 160 columns: the event's name gives way to the note.
            'RESULT  DELIVERY                      NEW DELIVERY                  EVENT                  OUTCOME  DETAIL\n' +
            `ok      ${e!.delivery_id}  ${made}  exception.sla.breach…  -        already replayed as ${as}; sent again\n`,
          stderr: warning + after,
        },
        plain: {
          stdout: `ok\t${e!.delivery_id}\t${made}\t${e!.event_type}\t\talready replayed as ${as}; sent again\n`,
          stderr: warning + after,
        },
        json: { stdout: `[\n${JSON.stringify(row)}\n]\n`, stderr: after },
        ndjson: { stdout: `${JSON.stringify(row)}\n`, stderr: after },
      }[mode];
      expect({ stdout: r.stdout, stderr: r.stderr }).toEqual(expected);
      await target.close();
    },
  );
});

// Exploratory test s8 (attacker 3): a discarded entry named by its own dlq_ id was replayed
// silently (svc replayed its delivery without dlq_entry_id), so it left the queue twice. A named
// entry that is queued is replayed as that entry (the platform's once-only rule applies); one
// discarded is refused with its state (exit 6) in the dry run and the real run alike, sending
// nothing; its delivery, named by its own id, is still replayed (the operator's choice).
describe('a named dead-letter entry leaves the queue once', () => {
  it('a discarded one is refused (exit 6, dry run too), nothing sent; its delivery id still replays', async () => {
    const { webhook, target, entries } = await queue(fast, { value: 204 }, 1);
    const [e] = entries;
    const discarded = await svc.run(['webhooks', 'dlq', 'discard', webhook, e!.id, '--yes']);
    expect(discarded.code, discarded.stderr).toBe(0);
    const { discarded_at } = (await admin(fast(), 'GET', `/v1/webhooks/${webhook}/dlq/${e!.id}`)).body;
    const refusal = `error: dead-letter entry ${e!.id} was discarded at ${discarded_at}: an entry leaves the queue once, so it is not replayed; to send its event anyway, replay its delivery by id: svc webhooks replay ${webhook} ${e!.delivery_id}\n`;
    for (const dry of [['--dry-run'], []]) {
      const r = await svc.run(['webhooks', 'replay', webhook, e!.id, '--no-wait', ...dry], {
        clock: fixedClock(),
      });
      const said = refusal.slice('error: '.length).split('; to send')[0];
      const summary = dry.length
        ? 'dry run: 0 would be replayed (whether they are delivered is known only when they are sent), 0 would be skipped, 1 would fail; nothing was changed\n'
        : '';
      expect([r.code, r.stdout, r.stderr]).toEqual([
        6,
        `${dry.length ? 'fail' : 'failed'}\t${e!.delivery_id}\t\t\t\t${said}\n`,
        summary + refusal,
      ]);
    }
    const json = await svc.run(['webhooks', 'replay', webhook, e!.id, '--no-wait', '--json']);
    expect([json.code, lastJson(json.stderr).error.code]).toEqual([6, 'dlq_entry_not_queued']);
    const after = (await admin(fast(), 'GET', `/v1/webhooks/${webhook}/dlq/${e!.id}`)).body;
    expect([after.status, after.replay_count, after.discarded_at]).toEqual(['discarded', 0, discarded_at]);
    expect(target.received).toHaveLength(0);

    const byDelivery = await svc.run(['webhooks', 'replay', webhook, e!.delivery_id, '--no-wait', '--json']);
    expect(byDelivery.code, byDelivery.stderr).toBe(0);
    await target.close();
  });

  it('a queued one is replayed as that entry (dlq_entry_id)', async () => {
    const { webhook, target, entries } = await queue(fast, { value: 204 }, 1);
    const [e] = entries;
    const r = await svc.run(['webhooks', 'replay', webhook, e!.id, '--no-wait', '--json', '--debug']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`> {"dlq_entry_id":"${e!.id}",`);
    const after = (await admin(fast(), 'GET', `/v1/webhooks/${webhook}/dlq/${e!.id}`)).body;
    expect([after.status, after.last_replay_delivery_id]).toEqual([
      'replayed',
      JSON.parse(r.stdout)[0].new_delivery_id,
    ]);
    await target.close();
  });
});
