import { median, startSandboxProcess } from './lib.mjs';
import { api, createWebhook, startTargetScript } from './webhook-lib.mjs';

// A target in its own process: `hang` never answers (and holds every connection); `record`
// answers 204 and remembers when each event arrived (Date.now(), the same clock as the bench).
const TARGET = `
const http = require('node:http');
const mode = process.argv[1];
const arrived = {};
const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    if (mode === 'hang') return;
    arrived[req.headers['x-svc-event-id']] ??= Date.now();
    res.writeHead(204);
    res.end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n'));
process.on('SIGINT', () => { process.stderr.write(JSON.stringify(arrived)); process.exit(0); });
`;

function startTarget(mode) {
  return startTargetScript(TARGET, [mode], '/hooks', (output) => (output ? JSON.parse(output) : {}));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** One run: a fresh sandbox; 640 deliveries to the hanging webhook, then healthy events every `everyMs`. */
async function run({ stuck, healthyEvents, everyMs }) {
  const sandbox = await startSandboxProcess();
  const hanging = await startTarget('hang');
  const healthy = await startTarget('record');
  try {
    const call = api(sandbox);
    const { items } = await call('GET', '/v1/tenants');
    const other = items.find((t) => t.slug === 'acme-labs');
    const inTenant = (tenant) => async (method, path, body) =>
      api({ ...sandbox, tenant })(method, path, body);
    const hangingHook = await createWebhook(call, hanging.url);
    const sameTenantHook = await createWebhook(call, `${healthy.url}/same-tenant`);
    const otherTenantHook = await createWebhook(inTenant(other.id), `${healthy.url}/other-tenant`);
    const emit = (webhookId) =>
      call('POST', '/_sandbox/webhooks/events', { type: 'exception.sla.breached', webhook_id: webhookId });

    await call('POST', '/_sandbox/webhooks/events', {
      type: 'exception.sla.breached',
      webhook_id: hangingHook.id,
      count: stuck,
    });
    const sent = new Map();
    for (let i = 0; i < healthyEvents; i++) {
      const hook = i % 2 ? sameTenantHook : otherTenantHook;
      const at = Date.now();
      const { events } = await emit(hook.id);
      sent.set(events[0].id, at);
      await sleep(everyMs);
    }
    await sleep(1_000);
    const { settings, stats } = await call('GET', '/_sandbox/webhooks/engine');
    const arrived = await healthy.stop();
    const latencies = [...sent].map(([id, at]) =>
      arrived[id] === undefined ? Number.POSITIVE_INFINITY : arrived[id] - at,
    );
    return { latencies, settings, stats };
  } finally {
    await healthy.stop().catch(() => {});
    await hanging.stop().catch(() => {});
    await sandbox.stop();
  }
}

export default async function fairness({ runs = 3, stuck = 640, healthyEvents = 240, everyMs = 50 } = {}) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await run({ stuck, healthyEvents, everyMs }));
  const p99s = results.map((r) => percentile(r.latencies, 99));
  const p50s = results.map((r) => percentile(r.latencies, 50));
  const delivered = results.map((r) => r.latencies.filter(Number.isFinite).length);
  const { settings } = results[0];
  const p99 = median(p99s);
  const fmt = (ms) => (Number.isFinite(ms) ? `${Math.round(ms)} ms` : 'never');
  return {
    title: 'Fair delivery (issue 10)',
    what:
      `\`svc sandbox start\` in its own process (defaults: ${settings.concurrency} attempts in flight, at most ${settings.per_webhook_concurrency} per webhook ` +
      `and ${settings.per_tenant_concurrency} per tenant, ${settings.request_timeout_ms / 1000} s attempt timeout). ${stuck} deliveries are emitted to a webhook ` +
      `whose target (its own process) accepts connections and never answers; then ${healthyEvents} events, one every ${everyMs} ms ` +
      `(${((healthyEvents * everyMs) / 1000).toFixed(0)} s, across an attempt timeout of the hanging ones), alternate between a healthy webhook in the same tenant and one in ` +
      `another tenant, whose target (a third process) answers 204 and notes when each event arrives. Latency: from the emit call to the ` +
      `target's receipt. ${runs} runs, a fresh sandbox each; the figure is the median of the runs' p99s.`,
    rows: [
      {
        metric: 'healthy delivery latency p99 (median of runs)',
        value: `${fmt(p99)} (runs: ${p99s.map(fmt).join(', ')})`,
        target: '≤ 1 s',
        pass: p99 <= 1000,
      },
      {
        metric: 'healthy delivery latency p50 (median of runs)',
        value: fmt(median(p50s)),
        target: 'informational',
      },
      {
        metric: 'healthy events delivered',
        value: delivered.map((n) => `${n}/${healthyEvents}`).join(', '),
        target: `${healthyEvents} in every run`,
        pass: delivered.every((n) => n === healthyEvents),
      },
    ],
  };
}
