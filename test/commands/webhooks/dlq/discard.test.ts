import { describe, expect, it } from 'vitest';
import { bulkRunner, confirming, fixedClock } from '../../../helpers/bulk.js';
import { ndjson } from '../../../helpers/context.js';
import { call, useSandbox } from '../../../helpers/sandbox.js';
import { admin, createWebhook, everyDlqEntry } from '../../../helpers/webhooks.js';

const sandbox = useSandbox();
const svc = bulkRunner(sandbox);

interface Entry {
  id: string;
  delivery_id: string;
  event_type: string;
  event_id: string;
  status: string;
  discarded_at: string | null;
}
async function queue(count: number) {
  const webhook = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
  await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', { body: { webhook_id: webhook, count } });
  return { webhook, entries: await entries(webhook) };
}
async function entries(webhook: string, status = 'all'): Promise<Entry[]> {
  return (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook}/dlq?status=${status}&limit=200`)).body.items;
}
describe('svc webhooks dlq discard', () => {
  it.each(['plain', 'json'] as const)('%s: named entries are discarded, one result each', async (mode) => {
    const {
      webhook,
      entries: [a, b],
    } = await queue(3);
    const flags = mode === 'json' ? ['--json'] : [];
    const r = await svc.run(
      ['webhooks', 'dlq', 'discard', webhook, a!.id, b!.id, '--yes', '--concurrency', '1', ...flags],
      {
        clock: fixedClock(),
      },
    );
    expect([r.code, r.stderr]).toEqual([
      0,
      '✓ 2 discarded in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (0.0 s)\n',
    ]);
    const after = await entries(webhook, 'discarded');
    const at = after.map((e) => e.discarded_at!);
    const objects = [a!, b!].map((e, i) => ({
      status: 'ok',
      dlq_entry_id: e.id,
      // The name before session 27, kept beside it for the scripts that read it (review27a F9).
      entry_id: e.id,
      delivery_id: e.delivery_id,
      event_type: e.event_type,
      event_id: e.event_id,
      discarded_at: at[i],
    }));
    expect(r.stdout).toBe(
      mode === 'json'
        ? `[\n${objects.map((o) => JSON.stringify(o)).join(',\n')}\n]\n`
        : objects
            .map((o) => `ok\t${o.dlq_entry_id}\t${o.delivery_id}\t${o.event_type}\t${o.discarded_at}\t\n`)
            .join(''),
    );
    expect((await entries(webhook, 'queued')).map((e) => e.id)).toHaveLength(1);
  });

  it('named entries: the question counts those named that are still queued, and says the rest are skipped (attack29a F6)', async () => {
    const { webhook, entries: listed } = await queue(3);
    const ids = listed.map((e) => e.id);
    expect((await svc.run(['webhooks', 'dlq', 'discard', webhook, ids[0]!, '--yes'])).code).toBe(0);
    const prompter = confirming(false);
    await svc.run(['webhooks', 'dlq', 'discard', webhook, ...ids], { mode: 'table', prompter });
    expect(prompter.asked).toEqual([
      `Discard the 3 dead-letter entries named that are still queued (one discarded, replayed or delivered already is skipped), of ${webhook} in Acme Treasury (acme-treasury)? Their deliveries will not be replayed from the queue.`,
    ]);
  });

  it('asks on a terminal, naming the count and the tenant; refuses without --yes elsewhere', async () => {
    const { webhook } = await queue(4);
    const prompter = confirming(false);
    const no = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all'], { mode: 'table', prompter });
    expect(prompter.asked).toEqual([
      `Discard 4 dead-letter entries of ${webhook} in Acme Treasury (acme-treasury)? Their deliveries will not be replayed from the queue.`,
    ]);
    expect([no.code, no.stderr]).toEqual([2, 'error: cancelled; nothing was changed\n']);
    const script = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all']);
    expect([script.code, script.stderr]).toEqual([
      2,
      `error: discarding dead-letter entries of ${webhook} needs confirmation; pass --yes to confirm non-interactively\n`,
    ]);
    expect(await entries(webhook, 'queued')).toHaveLength(4);
    const yes = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--ndjson'], {
      mode: 'table',
      prompter: confirming(true),
    });
    expect(yes.code).toBe(0);
    expect(ndjson(yes.stdout)).toHaveLength(4);
    expect(await entries(webhook, 'queued')).toEqual([]);
  });

  it('--all with --limit and filters; --dry-run shows what would go and changes nothing', async () => {
    const { webhook } = await queue(250);
    const dry = await svc.run([
      'webhooks',
      'dlq',
      'discard',
      webhook,
      '--all',
      '--limit',
      '210',
      '--dry-run',
      '--ndjson',
    ]);
    expect([dry.code, dry.stderr]).toEqual([
      0,
      'dry run: 210 would be discarded, 0 would be skipped, 0 would fail; nothing was changed\n',
    ]);
    const rows = ndjson(dry.stdout);
    expect(rows.map((x) => x.plan)).toEqual(Array(210).fill('discard'));
    const known = new Set((await everyDlqEntry(sandbox(), webhook)).map((e) => e.id));
    const listed = new Set(rows.map((x) => x.dlq_entry_id));
    expect([listed.size, [...listed].filter((id) => !known.has(id))]).toEqual([210, []]);
    const r = await svc.run([
      'webhooks',
      'dlq',
      'discard',
      webhook,
      '--all',
      '--limit',
      '210',
      '--yes',
      '--ndjson',
    ]);
    expect([r.code, ndjson(r.stdout).length]).toEqual([0, 210]);
    const left = await svc.run([
      'webhooks',
      'dlq',
      'discard',
      webhook,
      '--all',
      '--since',
      '1h',
      '--yes',
      '--json',
    ]);
    expect([left.code, JSON.parse(left.stdout).length]).toEqual([0, 40]);
    const none = await svc.run(['webhooks', 'dlq', 'discard', webhook, '--all', '--yes']);
    expect([none.code, none.stderr]).toEqual([
      0,
      'nothing to discard: no queued dead-letter entry matches\n',
    ]);
  });

  it('named entries discarded already: the dry run and the run both say so, and when; an unknown one fails (exit 5)', async () => {
    const {
      webhook,
      entries: [a, b],
    } = await queue(2);
    const first = await svc.run(['webhooks', 'dlq', 'discard', webhook, a!.id, '--yes', '--ndjson']);
    const discardedAt = JSON.parse(first.stdout.split('\n')[0]!).discarded_at as string;
    const both = ['webhooks', 'dlq', 'discard', webhook, a!.id, b!.id, '--concurrency', '1'];
    const dry = await svc.run([...both, '--dry-run']);
    expect(dry.stdout).toBe(
      `skip\t${a!.id}\t${a!.delivery_id}\t${a!.event_type}\t${discardedAt}\talready discarded, by another run or an earlier attempt\ndiscard\t${b!.id}\t${b!.delivery_id}\t${b!.event_type}\t\t\n`,
    );
    // The platform's discard answers alike whether it discarded the entry now or before.
    const again = await svc.run([...both, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    const [skipped, done] = again.stdout.split('\n');
    expect(skipped).toBe(
      `skipped\t${a!.id}\t${a!.delivery_id}\t${a!.event_type}\t${discardedAt}\talready discarded, by another run or an earlier attempt`,
    );
    expect(done).toMatch(new RegExp(`^ok\\t${b!.id}\\t${b!.delivery_id}\\t${b!.event_type}\\t\\S+\\t$`));
    expect(again.stderr).toContain('1 discarded, 1 skipped');
    const unknown = await svc.run(['webhooks', 'dlq', 'discard', webhook, 'dlq_nope', '--yes']);
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toMatch(/^error: dead-letter queue entry dlq_nope not found/);
  });

  it('a named entry already replayed is not discarded: its event was sent, and the row says as what', async () => {
    const {
      webhook,
      entries: [a],
    } = await queue(1);
    const made = await admin(
      sandbox(),
      'POST',
      `/v1/webhooks/${webhook}/deliveries/${a!.delivery_id}/replay`,
      {},
    );
    const r = await svc.run(['webhooks', 'dlq', 'discard', webhook, a!.id, '--yes']);
    expect([r.code, r.stderr.replace(/ \([\d.]+ s\)/, '')]).toEqual([
      0,
      '✓ 0 discarded, 1 skipped in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n',
    ]);
    expect(r.stdout).toBe(
      `skipped\t${a!.id}\t${a!.delivery_id}\t${a!.event_type}\t\talready replayed as ${made.body.id}, by another run or an earlier attempt\n`,
    );
    const json = await svc.run(['webhooks', 'dlq', 'discard', webhook, a!.id, '--yes', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        status: 'skipped',
        dlq_entry_id: a!.id,
        entry_id: a!.id,
        delivery_id: a!.delivery_id,
        event_type: a!.event_type,
        event_id: a!.event_id,
        reason: 'already_replayed',
        replayed_as: made.body.id,
      },
    ]);
    expect((await entries(webhook, 'replayed')).map((e) => [e.id, e.discarded_at])).toEqual([[a!.id, null]]);
  });

  it.each([
    [[], 'name the entries to discard, or pass --all'],
    [['dlq_a', '--all'], 'give entry ids or --all, not both'],
    [['dlq_a', '--since', '2h'], '--since only works with --all'],
    [['dlq_a', 'dlq_b', 'dlq_a'], 'dlq_a is given twice; give each entry once'],
  ])('%j is a usage error', async (args, message) => {
    const r = await svc.run(['webhooks', 'dlq', 'discard', 'wh_x', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith(`error: ${message}`), r.stderr).toBe(true);
  });

  // attack25a F8: "pass --all", followed, then said "needs a WEBHOOK id": both at once.
  it.each([
    [
      ['webhooks', 'dlq', 'discard'],
      'error: name a webhook and the entries to discard, or a webhook and --all; svc webhooks dlq discard WEBHOOK ENTRY... discards those; svc webhooks dlq discard WEBHOOK --all every queued entry (with filters)\n',
    ],
    [
      ['webhooks', 'replay'],
      'error: name a webhook and the deliveries to replay (WEBHOOK DELIVERY...), or a webhook and --dlq (WEBHOOK --dlq) to replay its dead-letter queue\n',
    ],
  ])('%j with no webhook: one error naming the webhook too', async (argv, stderr) => {
    const r = await svc.run(argv);
    expect([r.code, r.stderr]).toEqual([2, stderr]);
  });
});
