import { describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../../src/sandbox/delivery/events.js';
import type { Sandbox } from '../../../src/sandbox/server.js';
import { call, requestCount, useSandboxContext } from '../../helpers/sandbox.js';

/** The changes (POSTs) the sandbox has answered so far. */
async function postCount(sandbox: Sandbox): Promise<number> {
  const stats = (await call(sandbox, 'GET', '/_sandbox/stats')).body as Record<string, number>;
  return Object.entries(stats).reduce((n, [key, count]) => (key.startsWith('POST ') ? n + count : n), 0);
}

// --wait means one thing in every webhooks verb: follow the new delivery (a boolean), for at most
// --wait-timeout seconds. `replay W DLV --wait 5` once replayed DLV for real and then failed on
// "delivery 5" (exit 7): every named id is checked for its shape before anything is sent.
const svc = useSandboxContext();
const WEBHOOK = SEEDED_WEBHOOKS.exceptions;
const DLV = 'dlv_296173084028730cd13e6759';

describe('--wait across webhooks verbs', () => {
  it('replay: a number after --wait is refused as a delivery id before anything is sent', async () => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['webhooks', 'replay', WEBHOOK, DLV, '--wait', '5']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: 5 is not a delivery id (dlv_…) or a dead-letter entry id (dlq_…); --wait takes no value: to follow each delivery for at most 5 s, pass --wait --wait-timeout 5\n',
    ]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  // review16 R9: with --dlq the same slip was "give delivery ids or --dlq, not both".
  it('replay --dlq: a number after --wait is the old seconds form, not a delivery id', async () => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['webhooks', 'replay', WEBHOOK, '--dlq', '--wait', '5']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: --wait takes no value (5); to follow each replayed delivery for at most 5 s, pass --wait --wait-timeout 5\n',
    ]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  // attack18b 8: the server, not the shape, says what an id is; one it knows neither as a delivery
  // nor as an entry is refused with the others before anything is replayed.
  it('replay: an id of another shape the server does not know is refused before anything is replayed', async () => {
    const before = await postCount(svc.sandbox());
    const r = await svc.run(['webhooks', 'replay', WEBHOOK, DLV, 'evt_123']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      5,
      '',
      `error: evt_123 is neither a delivery nor a dead-letter entry of webhook ${WEBHOOK} (the server knows no such id); nothing was replayed; ` +
        `\`svc webhooks deliveries ${WEBHOOK}\` and \`svc webhooks dlq ls ${WEBHOOK}\` list them\n`,
    ]);
    expect(await postCount(svc.sandbox())).toBe(before);
  });

  it('test: --wait is a switch and --wait-timeout the time, as in replay', async () => {
    const before = await requestCount(svc.sandbox());
    const r = await svc.run(['webhooks', 'test', WEBHOOK, '--wait', '5']);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'error: --wait takes no value (5); to wait for the first attempt for at most 5 s, pass --wait --wait-timeout 5\n',
    ]);
    expect(await requestCount(svc.sandbox())).toBe(before);
  });

  it('test: --no-wait with --wait-timeout is refused like replay, not "given more than once"', async () => {
    const r = await svc.run(['webhooks', 'test', WEBHOOK, '--no-wait', '--wait-timeout', '5']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe('error: --wait-timeout only works with --wait\n');
  });

  it('test: --no-wait says the attempt was not waited for, not "within 0 s"', async () => {
    const r = await svc.run(['webhooks', 'test', WEBHOOK, '--no-wait']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('within 0 s');
    expect(r.stderr).toBe(
      `not waited for its first attempt (--no-wait); follow it with: svc webhooks deliveries ${WEBHOOK}\n`,
    );
  });
});
