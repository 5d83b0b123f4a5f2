/**
 * `webhooks replay WEBHOOK ID` against a server whose ids have another shape than dlv_/dlq_ (the
 * reference: `id` "string"; attack18b 8): the ids svc itself lists are replayed by name, the
 * server deciding what each one is (an entry its queue knows, else a delivery).
 */
import { describe, expect, it } from 'vitest';
import { bulkRunner } from '../../helpers/bulk.js';
import { ndjson } from '../../helpers/context.js';
import { type Reshaped, useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { deadLetteredQueue, dlqEntries } from '../../helpers/webhooks.js';

const sandbox = useSandbox({ webhooks: { timeScale: 0.0001, requestTimeoutMs: 10_000 } });
const svc = bulkRunner(sandbox);
const proxy = useReshapingProxy(sandbox);

/** Another server's ids: del-… for deliveries, dle-… for dead-letter entries (mapped back on the way in). */
const otherIds = {
  reshape: (answer: Reshaped) => {
    if (typeof answer.body === 'object')
      answer.body = JSON.parse(JSON.stringify(answer.body).replace(/dlv_/g, 'del-').replace(/dlq_/g, 'dle-'));
  },
  path: (_method: string, path: string) => back(path),
  body: (text: string) => back(text),
};
function back(text: string): string {
  return text.replace(/del-/g, 'dlv_').replace(/dle-/g, 'dlq_');
}
const other = (id: string) => id.replace(/^dlv_/, 'del-').replace(/^dlq_/, 'dle-');

describe('ids of another shape', () => {
  it('an entry and a delivery named as the server lists them are replayed, each as what it is', async () => {
    const { webhook, entries } = await deadLetteredQueue(sandbox(), { status: 200 }, 2);
    const [byEntry, byDelivery] = entries;
    proxy().set(otherIds);
    const r = await svc.run(
      [
        'webhooks',
        'replay',
        webhook,
        other(byEntry!.id),
        other(byDelivery!.delivery_id),
        '--no-wait',
        '--yes',
        '--ndjson',
      ],
      { env: { SVC_BASE_URL: proxy().url } },
    );
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const rows = ndjson(r.stdout);
    expect(rows).toEqual([
      expect.objectContaining({
        status: 'ok',
        delivery_id: other(byEntry!.delivery_id),
        dlq_entry_id: other(byEntry!.id),
        new_delivery_id: expect.stringMatching(/^del-/),
      }),
      expect.objectContaining({
        status: 'ok',
        delivery_id: other(byDelivery!.delivery_id),
        new_delivery_id: expect.stringMatching(/^del-/),
      }),
    ]);
    // Both left the queue as replayed: the delivery was replayed as its entry, each once.
    expect((await dlqEntries(sandbox(), webhook, 'replayed')).map((e) => e.id).sort()).toEqual(
      [byEntry!.id, byDelivery!.id].sort(),
    );
  });
});
