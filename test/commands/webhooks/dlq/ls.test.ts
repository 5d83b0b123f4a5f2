import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../../helpers/bulk.js';
import { call, useSandbox } from '../../../helpers/sandbox.js';
import { admin, createWebhook } from '../../../helpers/webhooks.js';

const sandbox = useSandbox();
const svc = bulkRunner(sandbox);
let webhook: string;
let ids: string[];

describe('svc webhooks dlq [ls]: --limit is a total, pages are internal', () => {
  it('fills a queue of 450', async () => {
    webhook = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook, count: 450 },
    });
    ids = [];
    let cursor: string | null = null;
    do {
      const page: { items: Array<{ id: string }>; next_cursor: string | null } = (
        await admin(
          sandbox(),
          'GET',
          `/v1/webhooks/${webhook}/dlq?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
        )
      ).body;
      ids.push(...page.items.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(ids).toHaveLength(450);
  });

  it.each([
    [[], 50],
    [['--limit', '7'], 7],
    [['--limit', '250'], 250],
    [['--all'], 450],
    [['--all', '--limit', '300'], 300],
  ])('%j lists the first %i entries, oldest first', async (flags, count) => {
    for (const argv of [
      ['webhooks', 'dlq', webhook],
      ['webhooks', 'dlq', 'ls', webhook],
    ]) {
      const r = await svc.run([...argv, ...flags, '--ndjson']);
      expect(r.code, r.stderr).toBe(0);
      expect(
        r.stdout
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l).id),
      ).toEqual(ids.slice(0, count));
    }
  });

  it('says where to continue; --cursor continues exactly there', async () => {
    const first = await svc.run(['webhooks', 'dlq', webhook, '--limit', '250']);
    const cursor = / --cursor (\S+) {2}\(or --all\)\n$/.exec(first.stderr)?.[1];
    expect(first.stderr).toBe(
      `250 of 450 shown; more with: svc webhooks dlq ${webhook} --cursor ${cursor}  (or --all)\n`,
    );
    // attack27b F8: a later page's count is not where it stands ("100 of 450" said page 1's words).
    const second = await svc.run(['webhooks', 'dlq', webhook, '--cursor', cursor!, '--limit', '100']);
    const next = / --cursor (\S+) {2}\(or --all\)\n$/.exec(second.stderr)?.[1];
    expect(second.stderr).toBe(
      `100 more of 450 shown; more with: svc webhooks dlq ${webhook} --cursor ${next}  (or --all)\n`,
    );
    const rest = await svc.run(['webhooks', 'dlq', webhook, '--cursor', cursor!, '--all', '--ndjson']);
    expect(
      rest.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(ids.slice(250));
  });

  it('--event-type of a kind the webhook does not take matches nothing, and says so', async () => {
    const r = await svc.run(['webhooks', 'dlq', webhook, '--event-type', 'reconciliation.failed', '--json']);
    // stdout is --json's empty answer; stderr says the webhook does not take that kind
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '[]\n',
      `no queued dead-letter entry matches (${webhook} does not subscribe to reconciliation.failed; it subscribes to exception.sla.breached, webhook.test)\n`,
    ]);
    const bad = await svc.run(['webhooks', 'dlq', webhook, '--event-type', 'Not A Kind']);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'error: --event-type takes an event kind such as exception.sla.breached (lowercase words joined by dots), got "Not A Kind"\n',
    ]);
  });

  it.each([['0'], ['x']])('--limit %s is a usage error', async (limit) => {
    const r = await svc.run(['webhooks', 'dlq', webhook, '--limit', limit]);
    expect([r.code, r.stderr]).toEqual([
      2,
      `error: --limit must be an integer from 1 to 10000000, got "${limit}"\n`,
    ]);
  });
});

describe('a typo of the default subcommand', () => {
  // `lst` is taken for the webhook id (ls is the default); the 404 that follows names the verb meant.
  it.each([
    [['webhooks', 'dlq', 'lst'], 'svc webhooks dlq ls'],
    [['webhooks', 'deliveries', 'lst'], 'svc webhooks deliveries ls'],
  ])('svc %j: the 404 says did you mean `%s`?', async (argv, meant) => {
    const r = await svc.run(argv);
    expect([r.code, r.stdout]).toEqual([5, '']);
    expect(r.stderr).toMatch(/^error: webhook \S+ not found \(HTTP 404[^)]*\); /);
    expect(r.stderr).toContain(`; did you mean \`${meant}\`?`);
  });

  it('an id that is no typo of a verb gets no guess', async () => {
    const r = await svc.run(['webhooks', 'dlq', 'wh_nope']);
    expect(r.code).toBe(5);
    expect(r.stderr).not.toContain('did you mean');
  });
});
