import { describe, expect, it } from 'vitest';
import type { Webhook } from '../../../src/api/schemas/webhooks.js';
import { Remedies } from '../../../src/commands/webhooks/remedies.js';
import { bareCommandLine } from '../../../src/config/settings.js';
import type { Platform } from '../../../src/platform/index.js';

// Session 14 open list: remedyNow read the webhook once per failed row, so a replay run of 500
// rows cancelled by a stop read it 500 times. One Remedies per run reads each webhook once.
function platformReading(webhooks: Record<string, Partial<Webhook>>) {
  const reads: string[] = [];
  const platform = {
    svc: bareCommandLine,
    webhooks: {
      get: async (id: string) => {
        reads.push(id);
        return { id, ...webhooks[id] } as Webhook;
      },
    },
  } as unknown as Platform;
  return { platform, reads };
}

describe('Remedies: the remedy of a stopped webhook, read once per webhook for a run', () => {
  it('reads each webhook once however many failed rows ask, and only for webhook_stopped', async () => {
    const { platform, reads } = platformReading({
      wh_a: { status: 'disabled', disabled_reason: 'its owner usr_x no longer holds exception.read' },
      wh_b: { status: 'enabled' },
    });
    const remedies = new Remedies(platform);
    const a = await Promise.all([1, 2, 3].map(() => remedies.now('wh_a', 'webhook_stopped')));
    await remedies.now('wh_a', 'webhook_stopped');
    const b = await remedies.now('wh_b', 'webhook_stopped');
    await remedies.now('wh_b', '5xx_server_error');
    expect(reads).toEqual(['wh_a', 'wh_b']);
    expect(new Set(a).size).toBe(1);
    expect(a[0]).toMatch(/^the platform stopped webhook wh_a, so the attempt was not made: its owner usr_x/);
    expect(b).toMatch(
      /^the platform had stopped webhook wh_b, so the attempt was not made; it is enabled again/,
    );
  });
});
