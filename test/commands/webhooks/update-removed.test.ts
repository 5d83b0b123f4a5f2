/**
 * `svc webhooks update --event-type` replaces the kinds a webhook receives (attack26a F4): the ✓ line
 * names the kinds it took out, as `oauth update` names the redirect URIs and scopes it removed (one
 * rule, src/commands/removed-from.ts). Someone who learned `roles update --add-permission` reads
 * `--event-type X` as "add X"; the receiver would silently stop getting the others.
 */

import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { admin } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const TENANT = '8ab23c1d-a27b-565a-ad8f-983ecf5fe016';

async function webhook(): Promise<string> {
  const r = await admin(svc.sandbox(), 'POST', '/v1/webhooks', {
    url: 'https://h.example/a',
    event_types: ['exception.created', 'exception.assigned'],
  });
  expect(r.status).toBe(201);
  return r.body.id;
}

describe('svc webhooks update --event-type', () => {
  it('says the event types the replacement removed', async () => {
    const id = await webhook();
    const r = await svc.run(['webhooks', 'update', id, '--event-type', 'exception.resolved']);
    expect([r.code, r.stderr]).toEqual([
      0,
      `✓ updated webhook ${id} in ${TENANT} (event_types); removed the event types exception.created, exception.assigned\n`,
    ]);
    expect(r.stdout).toContain('\nevent types\texception.resolved\n');
  });

  it('one removed kind is singular; a kind kept is not named; adding only removes nothing', async () => {
    const id = await webhook();
    const one = await svc.run([
      ...[
        'webhooks',
        'update',
        id,
        '--event-type',
        'exception.created',
        '--event-type',
        'exception.resolved',
      ],
    ]);
    expect([one.code, one.stderr]).toEqual([
      0,
      `✓ updated webhook ${id} in ${TENANT} (event_types); removed the event type exception.assigned\n`,
    ]);
    const added = await svc.run([
      ...[
        'webhooks',
        'update',
        id,
        '--event-type',
        'exception.created,exception.resolved,exception.assigned',
      ],
    ]);
    expect([added.code, added.stderr]).toEqual([0, `✓ updated webhook ${id} in ${TENANT} (event_types)\n`]);
  });

  it('--json says nothing on stderr', async () => {
    const id = await webhook();
    const r = await svc.run(['webhooks', 'update', id, '--event-type', 'exception.resolved', '--json']);
    expect([r.code, r.stderr, JSON.parse(r.stdout).event_types]).toEqual([0, '', ['exception.resolved']]);
  });
});
