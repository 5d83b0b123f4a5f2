/**
 * `dlq discard --all --dry-run` rows say what would be dropped (exploratory test s8,
 * findings-oncall 10): the delivery, the event kind and the event of each entry, as
 * `replay --dlq --dry-run` rows do, and the same as the real run's rows.
 */

import { describe, expect, it } from 'vitest';
import type { DlqEntry } from '../../../../src/api/schemas/webhooks.js';
import { bulkRunner } from '../../../helpers/bulk.js';
import { ndjson } from '../../../helpers/context.js';
import { call, useSandbox } from '../../../helpers/sandbox.js';
import { admin, createWebhook } from '../../../helpers/webhooks.js';

const sandbox = useSandbox();
const svc = bulkRunner(sandbox);

describe('svc webhooks dlq discard --all --dry-run', () => {
  it('each row names the entry, its delivery, event kind and event, in every mode', async () => {
    const webhook = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook, count: 2 },
    });
    const queued = (await admin(sandbox(), 'GET', `/v1/webhooks/${webhook}/dlq?limit=200`)).body
      .items as DlqEntry[];
    const argv = ['webhooks', 'dlq', 'discard', webhook, '--all', '--concurrency', '1'];
    const dry = await svc.run([...argv, '--dry-run', '--ndjson']);
    expect(dry.code, dry.stderr).toBe(0);
    const rows = queued.map((e) => ({
      dlq_entry_id: e.id,
      entry_id: e.id,
      delivery_id: e.delivery_id,
      event_type: e.event_type,
      event_id: e.event_id,
    }));
    expect(ndjson(dry.stdout)).toEqual(rows.map((row) => ({ plan: 'discard', ...row, dry_run: true })));
    const plain = await svc.run([...argv, '--dry-run']);
    expect(plain.stdout).toBe(
      queued.map((e) => `discard\t${e.id}\t${e.delivery_id}\t${e.event_type}\t\t\n`).join(''),
    );

    const real = await svc.run([...argv, '--yes', '--ndjson']);
    expect(real.code, real.stderr).toBe(0);
    expect(ndjson(real.stdout).map(({ status, discarded_at, ...row }) => row)).toEqual(rows);
  });
});
