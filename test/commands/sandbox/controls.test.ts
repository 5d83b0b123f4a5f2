import { describe, expect, it } from 'vitest';
import { SEEDED_WEBHOOKS } from '../../../src/sandbox/delivery/events.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';

// svc sandbox trigger | target (issue 13): emit events and fail a target without curl.
const svc = useSandboxContext({ webhooks: { timeScale: 0.0005, requestTimeoutMs: 300 } });
const W = SEEDED_WEBHOOKS.exceptions;

describe('svc sandbox trigger', () => {
  it('emits to every subscribed webhook of the tenant, or to one webhook', async () => {
    const tenant = await svc.run(['sandbox', 'trigger', 'exception.created', '--count', '2']);
    expect(tenant.code, tenant.stderr).toBe(0);
    const rows = tenant.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toEqual([
      [expect.stringMatching(/^evt_/), 'exception.created', expect.stringMatching(/^dlv_/)],
      [expect.stringMatching(/^evt_/), 'exception.created', expect.stringMatching(/^dlv_/)],
    ]);
    expect(tenant.stderr).toBe(
      '✓ 2 events emitted, 2 deliveries to the subscribed webhooks of the tenant; follow them with: svc webhooks deliveries WEBHOOK\n',
    );
    const one = await svc.run(['sandbox', 'trigger', 'webhook.test', '--webhook', W, '--json']);
    expect(JSON.parse(one.stdout)).toMatchObject({ count: 1, deliveries: 1, truncated: false });
  });

  it('warns when no webhook subscribes to the kind: nothing will be delivered', async () => {
    const r = await svc.run(['sandbox', 'trigger', 'exception.resolved']);
    expect([r.code, r.stderr]).toEqual([
      0,
      'warning: 1 exception.resolved event emitted, but no enabled webhook subscribes to it: nothing will be delivered\n',
    ]);
  });

  it.each([
    [
      ['sandbox', 'trigger', 'Not A Kind'],
      2,
      'error: "Not A Kind" is not an event kind (e.g. exception.sla.breached)\n',
    ],
    [
      ['sandbox', 'trigger', 'webhook.test', '--count', '0'],
      2,
      'error: --count must be an integer from 1 to 200000, got "0"\n',
    ],
    [
      ['sandbox', 'trigger', 'webhook.test', '--webhook', 'wh_nope'],
      5,
      /^error: webhook wh_nope not found \(HTTP 404/,
    ],
    // a typo of a kind the sandbox emits: the one meant, before anything is sent (journey15 F6)
    [
      ['sandbox', 'trigger', 'exception.sla.breachd', '--webhook', W],
      2,
      'error: exception.sla.breachd is not an event kind the platform sends (did you mean exception.sla.breached?)\n',
    ],
    [
      ['sandbox', 'trigger', 'made.up', '--webhook', W],
      2,
      /^error: type must be equal to one of the allowed values/,
    ],
  ])('%j exits %i', async (argv, code, stderr) => {
    const r = await svc.run(argv as string[]);
    expect(r.code).toBe(code);
    if (typeof stderr === 'string') expect(r.stderr).toBe(stderr);
    else expect(r.stderr).toMatch(stderr);
  });
});

describe('svc sandbox target', () => {
  it('shows, sets and clears a target fault', async () => {
    const shown = await svc.run(['sandbox', 'target', W]);
    expect([shown.code, shown.stdout]).toEqual([0, `${W}: attempts go to the target\n`]);
    for (const [how, said] of [
      ['502', 'every attempt fails as if the target answered 502'],
      ['timeout', 'every attempt fails as if the target never answered (connection_timeout)'],
      ['refused', 'every attempt fails as if the target refused the connection'],
      ['tls', "every attempt fails as if the target's certificate had expired"],
    ]) {
      const r = await svc.run(['sandbox', 'target', W, '--fail', how!]);
      expect([r.code, r.stderr]).toEqual([0, `✓ ${W}: ${said}\n`]);
    }
    const state = await call(svc.sandbox(), 'GET', `/_sandbox/webhooks/${W}/target-fault`);
    expect(state.body).toEqual({ webhook_id: W, fault: 'tls', status_code: null });
    const json = await svc.run(['sandbox', 'target', W, '--recover', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ webhook_id: W, fault: 'none', status_code: null });
  });

  it.each([
    [
      ['sandbox', 'target', W, '--fail', '200'],
      2,
      'error: --fail takes an HTTP status from 300 to 599, or timeout, refused, tls; got "200"\n',
    ],
    [['sandbox', 'target', W, '--fail', '503', '--recover'], 2, 'error: use --fail or --recover, not both\n'],
    [['sandbox', 'target', 'wh_nope', '--fail', '503'], 5, /^error: webhook wh_nope not found/],
  ])('%j exits %i', async (argv, code, stderr) => {
    const r = await svc.run(argv as string[]);
    expect(r.code).toBe(code);
    if (typeof stderr === 'string') expect(r.stderr).toBe(stderr);
    else expect(r.stderr).toMatch(stderr);
  });
});
