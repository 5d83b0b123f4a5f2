/**
 * `svc webhooks delete` says what is lost with the webhook (exploratory test s8, findings-oncall
 * 10): the dead-letter entries still queued, whose events can no longer be replayed.
 */

import { describe, expect, it } from 'vitest';
import { bulkRunner, confirming } from '../../helpers/bulk.js';
import { useNoContentDeletes } from '../../helpers/lossy-proxy.js';
import { call, useSandbox } from '../../helpers/sandbox.js';
import { createWebhook } from '../../helpers/webhooks.js';

const sandbox = useSandbox();
const svc = bulkRunner(sandbox);
const noContent = useNoContentDeletes(sandbox);

describe('svc webhooks delete', () => {
  it('names the queued dead-letter entries in its question and in what it did', async () => {
    const webhook = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook, count: 2 },
    });
    const prompter = confirming(false);
    const no = await svc.run(['webhooks', 'delete', webhook], { mode: 'table', prompter });
    expect(no.code).not.toBe(0);
    expect(prompter.asked).toEqual([
      `Delete webhook ${webhook} (http://127.0.0.1:9/none) in Acme Treasury (acme-treasury)? It receives no more events; deliveries still waiting are cancelled; its 2 queued dead-letter entries can no longer be replayed.`,
    ]);
    const yes = await svc.run(['webhooks', 'delete', webhook, '--yes']);
    expect([yes.code, yes.stderr]).toEqual([
      0,
      `✓ deleted webhook ${webhook} (http://127.0.0.1:9/none) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016; its 2 queued dead-letter entries can no longer be replayed\n`,
    ]);
  });

  it('says nothing of the queue when it is empty', async () => {
    const webhook = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
    const yes = await svc.run(['webhooks', 'delete', webhook, '--yes']);
    expect([yes.code, yes.stderr]).toEqual([
      0,
      `✓ deleted webhook ${webhook} (http://127.0.0.1:9/none) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016\n`,
    ]);
  });

  it('answered 204 without a body: its ✓ line still names the queued entries it made unreplayable', async () => {
    const webhook = (await createWebhook(sandbox(), 'http://127.0.0.1:9/none')).id;
    await call(sandbox(), 'POST', '/_sandbox/webhooks/dead-letters', {
      body: { webhook_id: webhook, count: 2 },
    });
    const yes = await svc.run(['webhooks', 'delete', webhook, '--yes'], {
      env: { SVC_BASE_URL: noContent().url },
    });
    expect([yes.code, yes.stdout, yes.stderr]).toEqual([
      0,
      '',
      `✓ webhook ${webhook} (http://127.0.0.1:9/none) in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 is gone (its 2 queued dead-letter entries can no longer be replayed): the server answered HTTP 204 without a body, which says it was deleted\n`,
    ]);
  });
});
