/**
 * `svc webhooks update` that changes nothing (exploratory test s8, findings-oncall 7): it says so,
 * as `roles update` does, and sends nothing; the sandbox writes no audit entry and keeps
 * updated_at for a PATCH that changes nothing.
 */

import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { admin } from '../../helpers/webhooks.js';

const svc = useSandboxContext();

async function webhook(): Promise<string> {
  const r = await admin(svc.sandbox(), 'POST', '/v1/webhooks', {
    url: 'https://h.example/a',
    description: 'the warehouse',
    event_types: ['exception.created', 'exception.sla.breached'],
    max_attempts: 4,
  });
  expect(r.status).toBe(201);
  return r.body.id;
}
const audit = async (id: string) =>
  (await admin(svc.sandbox(), 'GET', `/v1/audit_trail?target_id=${id}&limit=100`)).body.items.length;
const read = async (id: string) => (await admin(svc.sandbox(), 'GET', `/v1/webhooks/${id}`)).body;

describe('svc webhooks update that changes nothing', () => {
  it.each([
    [['--enable'], 'is already enabled'],
    [['--url', 'https://h.example/a'], 'already points at https://h.example/a'],
    [['--description', 'the warehouse'], 'already has that description'],
    [
      ['--event-type', 'exception.sla.breached', '--event-type', 'exception.created'],
      'already receives exactly exception.sla.breached, exception.created',
    ],
    [['--max-attempts', '4'], 'already has max attempts 4'],
    [['--enable', '--max-attempts', '4'], 'already has max attempts 4 and is already enabled'],
  ])('%j: "nothing changed", exit 0, no audit entry, updated_at kept', async (flags, said) => {
    const id = await webhook();
    const [before, entries] = [await read(id), await audit(id)];
    const r = await svc.run(['webhooks', 'update', id, ...flags]);
    expect([r.code, r.stderr]).toEqual([0, `nothing changed: webhook ${id} ${said}\n`]);
    expect(r.stdout).toMatch(new RegExp(`^id\\t${id}\\n`));
    expect(await read(id)).toEqual(before);
    expect(await audit(id)).toBe(entries);
    const json = await svc.run(['webhooks', 'update', id, ...flags, '--json']);
    expect([json.code, json.stderr, JSON.parse(json.stdout).id]).toEqual([0, '', id]);
  });

  it('a real change among unchanged ones is made and names only what changed', async () => {
    const id = await webhook();
    const r = await svc.run(['webhooks', 'update', id, '--enable', '--description', 'the lake']);
    expect([r.code, r.stderr]).toEqual([
      0,
      `✓ updated webhook ${id} in 8ab23c1d-a27b-565a-ad8f-983ecf5fe016 (description)\n`,
    ]);
    const entry = (await admin(svc.sandbox(), 'GET', `/v1/audit_trail?target_id=${id}&limit=1&order=desc`))
      .body.items[0];
    expect([entry.action, entry.changes]).toEqual(['webhook.updated', ['description']]);
  });

  it('the sandbox: a PATCH that changes nothing writes no audit entry and keeps updated_at', async () => {
    const id = await webhook();
    const [before, entries] = [await read(id), await audit(id)];
    const r = await admin(svc.sandbox(), 'PATCH', `/v1/webhooks/${id}`, {
      status: 'enabled',
      event_types: ['exception.sla.breached', 'exception.created'],
      url: 'https://h.example/a',
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(before);
    expect(await audit(id)).toBe(entries);
  });
});
