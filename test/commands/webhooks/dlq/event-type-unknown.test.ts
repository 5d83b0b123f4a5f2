/**
 * --event-type of a kind that does not exist on the dead-letter queue (attack26a F5): `nope.event`
 * matched nothing, and `replay --dlq`, `dlq ls` and `dlq discard --all` said "Nothing to …", exit 0,
 * while create/update refuse the same value (server 400). A typo in a nightly job replayed nothing,
 * silently. Now refused, exit 2, naming --event-type and the kinds (EVENT_TYPES, one list), nothing
 * changed. Kinds of a platform newer than svc: accepted when the webhook subscribes to them (it can
 * only subscribe to kinds its platform has), or as given with --unlisted-event-type.
 */

import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../../src/api/constants.js';
import type { Webhook } from '../../../../src/api/schemas/webhooks.js';
import { refuseUnknownKind } from '../../../../src/commands/webhooks/dlq/filters.js';
import { UsageError } from '../../../../src/errors.js';
import type { Platform } from '../../../../src/platform/index.js';
import { SEEDED_WEBHOOKS } from '../../../../src/sandbox/delivery/events.js';
import { useSandboxContext } from '../../../helpers/sandbox.js';

const svc = useSandboxContext();
const WEBHOOK = SEEDED_WEBHOOKS.exceptions;
const REFUSAL =
  `error: --event-type "nope.event" must be one of ${EVENT_TYPES.join(', ')}; ` +
  'if the platform sends nope.event (a kind newer than svc), add --unlisted-event-type to filter by it as given\n';

describe('--event-type of a kind that does not exist, on the dead-letter queue', () => {
  it.each([
    [['webhooks', 'replay', WEBHOOK, '--dlq', '--event-type', 'nope.event']],
    [['webhooks', 'replay', WEBHOOK, '--dlq', '--event-type', 'nope.event', '--dry-run']],
    [['webhooks', 'dlq', WEBHOOK, '--event-type', 'nope.event']],
    [['webhooks', 'dlq', 'ls', WEBHOOK, '--event-type', 'nope.event', '--json']],
    [['webhooks', 'dlq', 'discard', WEBHOOK, '--all', '--dry-run', '--event-type', 'nope.event']],
    [['webhooks', 'dlq', 'discard', WEBHOOK, '--all', '--yes', '--event-type', 'nope.event']],
  ])('%j: a usage error naming --event-type and the kinds, exit 2', async (argv) => {
    const r = await svc.run(argv);
    const expected = argv.includes('--json')
      ? [2, '', expect.stringContaining('"code":"usage"')]
      : [2, '', REFUSAL];
    expect([r.code, r.stdout, r.stderr]).toEqual(expected);
  });

  it('--unlisted-event-type takes it as given: nothing matches, and the line says why', async () => {
    const r = await svc.run([
      ...['webhooks', 'replay', WEBHOOK, '--dlq', '--event-type', 'nope.event', '--unlisted-event-type'],
    ]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      `nothing to replay: no queued dead-letter entry matches (${WEBHOOK} does not subscribe to nope.event; it subscribes to exception.sla.breached, exception.created, exception.assigned)\n`,
    ]);
  });

  // The sandbox subscribes a webhook only to the kinds svc lists; a newer platform's webhook is given.
  const newer = { id: 'wh_x', event_types: ['ledger.entry.posted'] } as unknown as Webhook;
  const platform = {} as Platform;
  it('a kind svc does not list that the webhook subscribes to passes (a platform newer than svc)', async () => {
    await expect(refuseUnknownKind(platform, 'wh_x', 'ledger.entry.posted', false, newer)).resolves.toBe(
      undefined,
    );
    await expect(refuseUnknownKind(platform, 'wh_x', 'exception.created', false, newer)).resolves.toBe(
      undefined,
    );
  });

  it("one it does not subscribe to is refused, naming svc's kinds and the webhook's", async () => {
    const refused = refuseUnknownKind(platform, 'wh_x', 'ledger.entry.voided', false, newer);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(
      `--event-type "ledger.entry.voided" must be one of ${EVENT_TYPES.join(', ')}, ledger.entry.posted`,
    );
  });
});
