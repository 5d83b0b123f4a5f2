import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tenantId } from '../../sandbox/seed.js';
import type { Tour } from '../runner.js';

/**
 * On call: deliveries to a receiver that is down are dead-lettered; `listen --webhook` takes the
 * webhook over, the queue is replayed to it, and a saved request verifies.
 */
export async function webhooks(tour: Tour): Promise<void> {
  const { sandbox } = tour;
  const files = dirname(tour.configDir);
  // Straight into the in-process sandbox, not over the network: on Node 24 with
  // NODE_USE_ENV_PROXY=1, fetch() would take even loopback through HTTP_PROXY.
  const send = async (method: 'POST' | 'PUT', path: string, body: unknown, auth = false) => {
    const response = await sandbox.app.inject({
      method,
      url: path,
      headers: {
        'content-type': 'application/json',
        ...(auth
          ? { authorization: `Bearer ${sandbox.adminToken}`, 'x-tenant-id': tenantId('acme-treasury') }
          : {}),
      },
      payload: JSON.stringify(body),
    });
    return response.json() as Record<string, unknown>;
  };
  // The tour cannot wait minutes for retries: the sandbox's retry schedule runs 2,000 times faster.
  await send('PUT', '/_sandbox/webhooks/engine', { time_scale: 0.0005 });
  const created = await send(
    'POST',
    '/v1/webhooks',
    {
      url: 'http://127.0.0.1:9/down',
      event_types: ['exception.sla.breached'],
      description: 'on-call bridge',
      max_attempts: 3,
      idempotency_key: 'tour-webhook',
    },
    true,
  );
  const id = created.id as string;
  const secretFile = join(files, 'whsec.txt');
  writeFileSync(secretFile, created.secret as string, { mode: 0o600 });
  await send('POST', '/_sandbox/webhooks/events', {
    type: 'exception.sla.breached',
    webhook_id: id,
    count: 2,
  });
  await send('POST', '/_sandbox/webhooks/settle', { timeout_ms: 30_000 });

  tour.chapter('On call: failed deliveries, replayed and verified');
  tour.say(
    `Webhook ${id} points at a receiver that is down: two SLA breaches failed every\n` +
      'attempt (retries scaled down here) and went to its dead-letter queue. The cause is in the table:',
  );
  await tour.svc(['webhooks', 'deliveries', id], { tty: true });
  await tour.svc(['webhooks', 'dlq', id], { tty: true });
  tour.say('`listen --webhook` points the webhook here until stopped, and --capture saves what arrives:');
  const captured = join(files, 'captured');
  const listen = await tour.background(
    ['webhooks', 'listen', '--webhook', id, '--port', '0', '--capture', captured],
    {
      ready: 'delivers here',
    },
  );
  let heard: Awaited<ReturnType<typeof listen.stop>>;
  try {
    tour.say('Replay the queue; on a terminal replay waits for each outcome (exit 7 if any failed):');
    await tour.svc(['webhooks', 'replay', id, '--dlq'], { tty: true });
  } finally {
    heard = await listen.stop();
  }
  tour.say('What listen printed, then stopped (Ctrl-C): the webhook has its URL and secret back.');
  tour.show(
    heard.stdout,
    heard.stderr
      .split('\n')
      .filter((line) => /^(✓|warning|error)/.test(line))
      .join('\n'),
  );
  const [first] = readdirSync(captured)
    .filter((name) => name.endsWith('.headers'))
    .sort();
  if (!first) throw new Error('listen --capture saved nothing');
  const saved = join(captured, first.replace(/\.headers$/, ''));
  tour.say("A saved request verifies, byte for byte, with the webhook's own secret:");
  await tour.svc([
    'webhooks',
    'verify',
    '--secret-file',
    secretFile,
    '--header-file',
    `${saved}.headers`,
    '--payload',
    `${saved}.body`,
  ]);
}
