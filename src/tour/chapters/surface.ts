import type { Tour } from '../runner.js';

/** Issue 6: tenant API keys and the generic record surface. */
export async function surface(tour: Tour): Promise<void> {
  tour.chapter('API keys and records');
  tour.say('A read-only key for a dashboard, shown once; it works at once as a bearer credential:');
  const created = await tour.svc([
    'tenants',
    'api-keys',
    'create',
    'acme-treasury',
    '--kind',
    'publishable',
    '--name',
    'dashboards',
    '--json',
  ]);
  const key = (JSON.parse(created.stdout) as { key: string }).key;
  await tour.svc(['me'], { env: { SVC_TOKEN: key }, tty: true });
  tour.say(
    'A record surface (/v1/reconciliations, /v1/exceptions, …): create, patch with a JSON Merge Patch, soft-delete:',
  );
  const record = await tour.svc([
    'records',
    'create',
    'reconciliations',
    '--data',
    '{"name":"March close","currency":"EUR","status":"open"}',
    '--json',
  ]);
  const id = (JSON.parse(record.stdout) as { id: string }).id;
  await tour.svc(['records', 'update', 'reconciliations', id, '--data', '{"status":"closed"}'], {
    tty: true,
  });
  await tour.svc(['records', 'delete', 'reconciliations', id, '--yes']);
  await tour.svc(['records', 'ls', 'reconciliations', '--include-deleted'], { tty: true });
}
