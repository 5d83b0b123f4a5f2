import { describe, expect, it } from 'vitest';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { deadLetteredQueue, dlqEntries } from '../../helpers/webhooks.js';

// A discarded dead-letter entry stays discarded when its delivery is replayed by its dlv_ id (a new
// delivery, the operator's explicit choice): it stays listed under --status discarded, and its
// dlq_ id stays refused (exit 6, the dry run too), as docs/cli.md promises (s15 dryrun15 F4: it
// became "replayed", dropped out of the discarded listing, and its dlq_ id then replayed, exit 0).
const svc = useSandboxContext();

describe("svc webhooks replay of a discarded entry's delivery by id", () => {
  it('sends it, and the entry stays discarded: listed so, its dlq_ id still refused (exit 6)', async () => {
    const { webhook, entries } = await deadLetteredQueue(svc.sandbox(), { status: 500 }, 1);
    const [entry] = entries;
    const discarded = await svc.run(['webhooks', 'dlq', 'discard', webhook, entry!.id, '--yes']);
    expect(discarded.code, discarded.stderr).toBe(0);

    const byDelivery = await svc.run([
      'webhooks',
      'replay',
      webhook,
      entry!.delivery_id,
      '--no-wait',
      '--json',
    ]);
    expect(byDelivery.code, byDelivery.stderr).toBe(0);

    const listed = await dlqEntries(svc.sandbox(), webhook, 'discarded');
    expect(listed.map((e) => [e.id, e.status])).toEqual([[entry!.id, 'discarded']]);
    const shown = await svc.run(['webhooks', 'dlq', webhook, '--status', 'discarded', '--json']);
    expect(JSON.parse(shown.stdout).map((e: { id: string }) => e.id)).toEqual([entry!.id]);

    for (const dry of [['--dry-run'], []]) {
      const again = await svc.run(['webhooks', 'replay', webhook, entry!.id, '--no-wait', ...dry]);
      expect(again.code, again.stdout).toBe(6);
      expect(again.stdout).toContain('an entry leaves the queue once, so it is not replayed');
      expect(again.stderr).toContain(`dead-letter entry ${entry!.id} was discarded`);
    }
  });
});
