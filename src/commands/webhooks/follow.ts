import type { WebhookDelivery } from '../../api/schemas/webhooks.js';
import type { Context } from '../../context.js';
import type { Platform } from '../../platform/index.js';
import { REMEDIES } from './shared.js';

const POLL_MS = 250;

/** An attempt has finished: delivered, failed for good, or failed once and waiting for a retry. */
const settled = (d: WebhookDelivery) =>
  d.status === 'delivered' || d.status === 'failed' || d.attempt_count > 0;

/**
 * Follows a new delivery until its first attempt has an outcome, `timeoutMs` at most (Ctrl-C
 * stops waiting), and says how it ended: nothing for a delivery, or `status: 'failed'` with the
 * cause and its remedy (the reference's failure-cause table) for one that failed or never settled.
 */
export async function deliveryOutcome(
  ctx: Context,
  platform: Platform,
  webhook: string,
  delivery: WebhookDelivery,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const until = ctx.clock.now() + timeoutMs;
  let current = delivery;
  while (!settled(current) && ctx.clock.now() < until && !ctx.signal.aborted) {
    try {
      await ctx.clock.sleep(POLL_MS, ctx.signal);
    } catch {
      break;
    }
    current = await platform.webhooks.deliveries.get(webhook, current.id);
  }
  const status = { delivery_status: current.status };
  if (current.status === 'delivered') return status;
  if (!settled(current)) {
    return {
      ...status,
      status: 'failed',
      error: {
        code: 'not_settled',
        message: `no attempt finished within ${Math.round(timeoutMs / 1000)} s`,
        remedy: `follow it with: svc webhooks deliveries ${webhook}`,
      },
    };
  }
  const cause = current.last_error_code;
  return {
    ...status,
    status: 'failed',
    error: {
      code: cause ?? 'delivery_failed',
      message: current.last_error ?? `the target answered ${current.last_status_code ?? 'nothing'}`,
      remedy: cause ? REMEDIES[cause] : 'check the target',
      ...(current.last_status_code === null ? {} : { http_status: current.last_status_code }),
      ...(current.next_retry_at ? { next_retry_at: current.next_retry_at } : {}),
    },
  };
}
