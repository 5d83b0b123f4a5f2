// Issue 5: bulk replay of 5,000 dead-lettered deliveries against a serial loop of single replays.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, SVC, sandboxEnv, startSandboxProcess } from './lib.mjs';
import { api, createWebhook, startTargetProcess } from './webhook-lib.mjs';

/** Seconds one run of argv takes; throws when it fails. */
function timed(argv, env) {
  const started = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { seconds, stdout: r.stdout };
}

export default async function replay({ entries = 5_000, sample = 100, concurrency = 8 } = {}) {
  const sandbox = await startSandboxProcess();
  // Replays are delivered for real, to a healthy target in its own process, as in production.
  const target = await startTargetProcess();
  try {
    const call = api(sandbox);
    const fill = async () => {
      const webhook = await createWebhook(call, target.url);
      await call('POST', '/_sandbox/webhooks/dead-letters', { webhook_id: webhook.id, count: entries });
      return webhook;
    };
    const env = sandboxEnv(sandbox, {
      SVC_STATE_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-state-')),
      SVC_CACHE_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-cache-')),
    });
    const queued = async (webhook) => (await call('GET', `/v1/webhooks/${webhook.id}/dlq?limit=200`)).total;
    const deliveriesOf = async (webhook) => {
      const ids = [];
      let cursor;
      do {
        const page = await call(
          'GET',
          `/v1/webhooks/${webhook.id}/dlq?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
        );
        ids.push(...page.items.map((e) => e.delivery_id));
        cursor = page.next_cursor;
      } while (cursor);
      return ids;
    };

    // Warm the code cache of `svc webhooks …` as a user's earlier runs would have.
    const warm = await fill();
    const warmIds = await deliveriesOf(warm);
    for (const id of warmIds.slice(0, 3)) timed([...SVC, 'webhooks', 'replay', warm.id, id], env);

    // 1. Bulk: `svc webhooks replay W --dlq`, the whole queue.
    const bulkWebhook = await fill();
    const bulk = timed(
      [
        ...SVC,
        'webhooks',
        'replay',
        bulkWebhook.id,
        '--dlq',
        '--ndjson',
        '--concurrency',
        String(concurrency),
      ],
      env,
    );
    const replayed = bulk.stdout.split('\n').filter((l) => l.includes('"status":"ok"')).length;
    const leftAfterBulk = await queued(bulkWebhook);

    // 2. The strict baseline: the same 5,000 replay requests, one after another, from one
    //    process over one keep-alive connection (no process start-up per entry).
    const serialWebhook = await fill();
    const serialIds = await deliveriesOf(serialWebhook);
    const started = process.hrtime.bigint();
    for (const id of serialIds) {
      await call('POST', `/v1/webhooks/${serialWebhook.id}/deliveries/${id}/replay`, {
        idempotency_key: `bench-serial-${id}`,
      });
    }
    const serialSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const leftAfterSerial = await queued(serialWebhook);

    // 3. What an on-call engineer would otherwise script: `svc webhooks replay W D` once per entry,
    //    timed on a sample and extrapolated to the whole queue.
    const loopWebhook = await fill();
    const loopIds = (await deliveriesOf(loopWebhook)).slice(0, sample);
    const perEntry = median(
      loopIds.map((id) => timed([...SVC, 'webhooks', 'replay', loopWebhook.id, id], env).seconds),
    );
    const loopSeconds = perEntry * entries;

    const vsRequests = serialSeconds / bulk.seconds;
    const vsLoop = loopSeconds / bulk.seconds;
    const n = entries.toLocaleString('en');
    return {
      title: 'Bulk replay from the dead-letter queue (issue 5)',
      what:
        `${n} dead-lettered deliveries (filled with POST /_sandbox/webhooks/dead-letters; sandbox and a healthy target in their own processes, ` +
        `every replay delivered for real). Bulk: \`svc webhooks replay W --dlq --concurrency ${concurrency}\` — one process, listing the queue and replaying as it goes. ` +
        `Serial requests: the same ${n} POST …/replay requests one after another from one process over a keep-alive connection (the strictest loop: no start-up per entry). ` +
        `Serial CLI loop: \`svc webhooks replay W D\` once per entry, median of ${sample} runs × ${n} (the target compares with this loop, what an on-call engineer scripts without bulk replay). ` +
        'Against the serial request loop the gain is bounded by the sandbox itself: one single-threaded process that answers each replay and then delivers it, already busy between the requests of a keep-alive loop, on a 2-core machine shared with the client and the target.',
      rows: [
        {
          metric: `bulk replay of ${n}`,
          value: `${bulk.seconds.toFixed(2)} s (${Math.round(entries / bulk.seconds).toLocaleString('en')}/s)`,
          target: 'informational',
        },
        {
          metric: 'replayed, left in the queue',
          value: `${replayed.toLocaleString('en')}, ${leftAfterBulk} (serial: ${leftAfterSerial})`,
          target: `${n}, 0`,
          pass: replayed === entries && leftAfterBulk === 0 && leftAfterSerial === 0,
        },
        {
          metric: 'vs a serial loop of `svc webhooks replay W D`',
          value: `${(perEntry * 1000).toFixed(0)} ms/entry → ${loopSeconds.toFixed(0)} s → ${vsLoop.toFixed(0)}× faster`,
          target: '≥ 4×',
          pass: vsLoop >= 4,
        },
        {
          metric: 'vs serial single requests (no start-up per entry)',
          value: `${serialSeconds.toFixed(2)} s → ${vsRequests.toFixed(1)}×`,
          target: 'informational: the sandbox, not the client, is the bottleneck',
        },
      ],
    };
  } finally {
    await target.stop();
    await sandbox.stop();
  }
}
