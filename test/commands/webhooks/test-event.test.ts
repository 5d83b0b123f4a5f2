import { describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../../src/sandbox/delivery/events.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

// svc webhooks test --event-type: event kinds are open-ended (the server's list grows), so svc
// checks only the shape and lets the server say which kinds it knows.
const svc = useSandboxContext();
const WEBHOOK = SEEDED_WEBHOOKS.exceptions;

describe('svc webhooks test --event-type', () => {
  it('sends a kind svc has no list of to the server, which names the problem', async () => {
    const r = await svc.run(['webhooks', 'test', WEBHOOK, '--event-type', 'ledger.closed', '--no-wait']);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(
      /^error: event_type must be equal to one of the allowed values: exception\.sla\.breached, [a-z., _]+, webhook\.test \(HTTP 400, invalid_request, request req_\w+\)$/,
    );
    expect(r.code).toBe(2);
  });

  it('refuses what is not an event kind before sending anything', async () => {
    const r = await svc.run(['webhooks', 'test', WEBHOOK, '--event-type', 'Not A Kind', '--no-wait']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: --event-type "Not A Kind" is not an event kind (e.g. exception.sla.breached)\n',
    ]);
  });

  it('sends a known kind', async () => {
    const r = await svc.run([
      'webhooks',
      'test',
      WEBHOOK,
      '--event-type',
      'exception.created',
      '--no-wait',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).event.type).toBe('exception.created');
  });
});
