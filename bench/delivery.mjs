// Issue 5: the sandbox's delivery engine delivering to a local target, deliveries per second.
import { startSandboxProcess } from './lib.mjs';
import { api, createWebhook, startTargetProcess } from './webhook-lib.mjs';

export default async function delivery({ events = 20_000, warmup = 2_000 } = {}) {
  const sandbox = await startSandboxProcess();
  const target = await startTargetProcess();
  try {
    const call = api(sandbox);
    const webhook = await createWebhook(call, target.url);
    const emit = (count) =>
      call('POST', '/_sandbox/webhooks/events', {
        type: 'exception.sla.breached',
        webhook_id: webhook.id,
        count,
      });
    const settle = () => call('POST', '/_sandbox/webhooks/settle', { timeout_ms: 300_000 });
    await emit(warmup);
    await settle();
    const started = process.hrtime.bigint();
    await emit(events);
    const settled = await settle();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const { summary } = await call('GET', `/v1/webhooks/${webhook.id}/deliveries?limit=1`);
    const received = await target.stop();
    const rate = events / seconds;
    const { settings } = await call('GET', '/_sandbox/webhooks/engine');
    return {
      title: 'Webhook delivery engine (issue 5)',
      what:
        `\`svc sandbox start\` in its own process delivers ${events.toLocaleString('en')} events (emitted in one call to POST /_sandbox/webhooks/events) ` +
        `to a local HTTP target in a third process that answers 204 at once: real signed POSTs over keep-alive connections, ` +
        `at most ${settings.per_webhook_concurrency} in flight for the one webhook (of ${settings.concurrency} across every target). Timed from the emit call until every delivery is settled, after ${warmup.toLocaleString('en')} warm-up deliveries.`,
      rows: [
        {
          metric: 'deliveries per second',
          value: `${Math.round(rate).toLocaleString('en')}/s (${seconds.toFixed(2)} s)`,
          target: '≥ 1,000/s',
          pass: rate >= 1000,
        },
        {
          metric: 'delivered / target received',
          value: `${(summary.delivered - warmup).toLocaleString('en')} / ${(received - warmup).toLocaleString('en')}`,
          target: events.toLocaleString('en'),
          pass: settled.settled && summary.delivered - warmup === events && received - warmup === events,
        },
      ],
    };
  } finally {
    await target.stop().catch(() => {});
    await sandbox.stop();
  }
}
