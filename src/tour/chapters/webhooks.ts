import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { PRIMARY_TENANT_SLUG, tenantId } from '../../sandbox/seed.js';
import type { Tour } from '../runner.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Issue 5: an event fails, lands in the dead-letter queue, is replayed to a healthy
 * `svc webhooks listen`, and verifies.
 */
export async function webhooks(tour: Tour): Promise<void> {
  const { sandbox } = tour;
  const control = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown>;
  };
  // The tour cannot wait minutes for retries: the sandbox's retry schedule runs 2,000 times faster.
  await control('PUT', '/_sandbox/webhooks/engine', { time_scale: 0.0005 });
  const files = dirname(tour.configDir);

  tour.chapter('Webhooks: a delivery fails, is dead-lettered, replayed, and verified');
  tour.say('Webhook commands act in a tenant; the sandbox seeds two webhooks in Acme Treasury.');
  await tour.svc(['config', 'set', 'tenant', tenantId(PRIMARY_TENANT_SLUG)]);
  await tour.svc(['webhooks', 'ls'], { tty: true });

  const port = await freePort();
  tour.say(
    `A new webhook for a receiver on port ${port} that is not running yet. Its signing secret is shown once:`,
  );
  const created = await tour.svc(['api', 'POST', '/v1/webhooks', '--input', '-'], {
    input: JSON.stringify({
      url: `http://127.0.0.1:${port}/webhooks`,
      event_types: ['exception.sla.breached'],
      description: 'on-call bridge (tour)',
      max_attempts: 3,
    }),
    inputLabel: 'webhook.json',
  });
  const { id, secret } = JSON.parse(created.stdout) as { id: string; secret: string };
  const secretFile = join(files, 'whsec.txt');
  writeFileSync(secretFile, secret, { mode: 0o600 });

  tour.say(
    'An exception breaches its SLA (emitted with the sandbox control POST /_sandbox/webhooks/events). Every attempt\n' +
      'is refused, is retried with backoff (30 s, 1 min, … — scaled down here), and after max_attempts the\n' +
      'delivery is failed and dead-lettered:',
  );
  await control('POST', '/_sandbox/webhooks/events', {
    type: 'exception.sla.breached',
    webhook_id: id,
    count: 2,
  });
  await control('POST', '/_sandbox/webhooks/settle', { timeout_ms: 30_000 });
  await tour.svc(['webhooks', 'deliveries', id], { tty: true });
  await tour.svc(['webhooks', 'dlq', id], { tty: true });

  tour.say(
    `Now the receiver is up: \`svc webhooks listen --port ${port} --secret-file whsec.txt\` (in the background).`,
  );
  const listen = tour.background(['webhooks', 'listen', '--port', String(port), '--secret-file', secretFile]);
  let stopped: Awaited<ReturnType<typeof listen.stop>> | undefined;
  try {
    for (let i = 0; i < 200 && !listen.stderr().includes('listening on'); i++)
      await new Promise((r) => setTimeout(r, 25));
    if (!listen.stderr().includes('listening on'))
      throw new Error(`svc webhooks listen did not start: ${listen.stderr()}`);
    tour.say('Replay the dead-letter queue (a journal makes a re-run skip what is done):');
    await tour.svc(['webhooks', 'replay', id, '--dlq', '--dry-run'], { tty: true });
    await tour.svc(['webhooks', 'replay', id, '--dlq'], { tty: true });
    await control('POST', '/_sandbox/webhooks/settle', { timeout_ms: 30_000 });
    for (let i = 0; i < 200 && listen.stdout().split('\n').length < 3; i++)
      await new Promise((r) => setTimeout(r, 25));
  } finally {
    stopped = await listen.stop();
  }
  const heard = stopped.stdout;
  const said = stopped.stderr;
  tour.say('What `svc webhooks listen` printed: each replayed event arrived with a valid signature.');
  process.stdout.write(`${`${heard}${said}`.trimEnd().replace(/^/gm, '  ')}\n`);
  await tour.svc(['webhooks', 'deliveries', id, '--limit', '2'], { tty: true });

  tour.say(
    'Build your own receiver: sign a payload as the platform does, verify it, and see a changed byte fail (exit 8).',
  );
  const payload = join(files, 'event.json');
  const body =
    '{"id":"evt_tour","type":"exception.sla.breached","created_at":"2026-01-15T09:30:00Z","tenant_id":"t","data":{}}';
  writeFileSync(payload, body);
  writeFileSync(join(files, 'tampered.json'), body.replace('09:30', '09:31'));
  const header = (
    await tour.svc(['webhooks', 'sign', '--secret-file', secretFile, '--payload', payload])
  ).stdout.trim();
  await tour.svc([
    'webhooks',
    'verify',
    '--secret-file',
    secretFile,
    '--header',
    header,
    '--payload',
    payload,
  ]);
  await tour.svc(
    [
      'webhooks',
      'verify',
      '--secret-file',
      secretFile,
      '--header',
      header,
      '--payload',
      join(files, 'tampered.json'),
    ],
    { expect: 8 },
  );
}
