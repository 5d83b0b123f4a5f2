import { Command, Option } from 'commander';
import type { DeliveryAttempt, WebhookDeliveryDetail } from '../../../api/schemas/webhooks.js';
import type { Context } from '../../../context.js';
import type { Column, Field } from '../../../output/output.js';
import { examples, type MakeContext, nonEmpty } from '../../kit.js';
import { lastErrorShown, statusText } from '../delivery-state.js';
import { failureFields, failureRemedy, ofKnownWebhook } from '../shared.js';

export interface DeliveriesGetOptions {
  webhook: string;
  delivery: string;
  payload: boolean;
}

export function parseDeliveriesGet(
  webhook: unknown,
  delivery: unknown,
  flags: Record<string, unknown>,
): DeliveriesGetOptions {
  return {
    webhook: nonEmpty('WEBHOOK', webhook),
    delivery: nonEmpty('DELIVERY', delivery),
    payload: flags.payload === true,
  };
}

const ATTEMPT_COLUMNS: Array<Column<DeliveryAttempt>> = [
  { header: 'attempt', value: (a) => a.attempt },
  { header: 'started', value: (a) => a.started_at, kind: 'time' },
  { header: 'http', value: (a) => a.status_code },
  { header: 'error', value: (a) => a.error },
  { header: 'ms', value: (a) => a.duration_ms, optional: true },
  { header: 'signature t', value: (a) => a.signature_timestamp, optional: true },
];

/** A delivery for people; its last error and `remedy` as lastErrorShown says (none for a status svc does not know; a recovered one's says none is needed). */
export function deliveryFields(d: WebhookDeliveryDetail, remedy: string | undefined): Field[] {
  const shown = lastErrorShown(d);
  return [
    ['id', d.id],
    ['webhook', d.webhook_id],
    ['event', `${d.event_id} (${d.event_type})`],
    ['status', statusText(d)],
    ['attempts', `${d.attempt_count}/${d.max_attempts}`],
    ['http', d.last_status_code],
    ...(shown === 'none' ? [] : failureFields(d, remedy)),
    ['next retry', d.next_retry_at, 'time'],
    ['created', d.created_at, 'time'],
    ['first attempt', d.first_attempted_at, 'time'],
    ['last attempt', d.last_attempted_at, 'time'],
    ['delivered', d.delivered_at, 'time'],
    ['replay of', d.replay_of],
    ['recovered by', d.recovered_by],
    ['payload', d.payload_size_bytes === undefined ? undefined : `${d.payload_size_bytes} bytes`],
  ];
}

export async function runDeliveriesGet(ctx: Context, options: DeliveriesGetOptions): Promise<void> {
  const platform = await ctx.platform();
  const { deliveries } = platform.webhooks;
  const read = <T>(call: () => Promise<T>) => ofKnownWebhook(platform, options.webhook, call);
  if (options.payload) {
    // The bytes every attempt signed, unchanged (in a pipe or file), for `svc webhooks verify`.
    await ctx.out.raw(await read(() => deliveries.payload(options.webhook, options.delivery)));
    return;
  }
  const d = await read(() => deliveries.get(options.webhook, options.delivery));
  // Read for people only: --json/--ndjson print the delivery as the platform gave it.
  const remedy =
    ctx.out.isMachine || lastErrorShown(d) === 'none' ? undefined : await failureRemedy(platform, d);
  await ctx.out.record(d, deliveryFields(d, remedy));
  // --json/--ndjson: the delivery object alone carries its attempts.
  if (!ctx.out.isMachine && d.attempts?.length) {
    await ctx.out.text('');
    await ctx.out.list(d.attempts, ATTEMPT_COLUMNS);
  }
}

export function getCommand(make: MakeContext): Command {
  return new Command('get')
    .summary('Show one delivery with its attempts, or its raw payload')
    .description(
      'Show a delivery: its status, why it failed and what to do about it, and every attempt. With\n' +
        '--payload, print instead the exact bytes it sent (the same for every attempt and replay), for\n' +
        "`svc webhooks verify --payload -` or a replay by hand. A status svc does not know (another server's\n" +
        '`succeeded`) is shown "not known to svc", with no error, cause or remedy: its attempts say what\n' +
        'each did.',
    )
    .argument('<webhook>', 'webhook id')
    .argument('<delivery>', 'delivery id (dlv_…)')
    .addOption(new Option('--payload', 'print the raw payload bytes instead'))
    .addHelpText(
      'after',
      examples(
        ['svc webhooks deliveries get wh_123 dlv_456', 'status, cause, remedy and attempts'],
        ['svc webhooks deliveries get wh_123 dlv_456 --payload > body.json', 'the bytes as signed'],
      ),
    )
    .action(async (webhook: string, delivery: string, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseDeliveriesGet(webhook, delivery, flags);
      await runDeliveriesGet(await make(cmd), options);
    });
}
