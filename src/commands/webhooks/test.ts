import { Command, Option } from 'commander';
import type { EventType } from '../../api/constants.js';
import type { WebhookDelivery } from '../../api/schemas/webhooks.js';
import { svcCommand, type TargetSettings } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { InterruptedError, SvcError } from '../../errors.js';
import { withEnableHint } from '../../platform/errors.js';
import type { Platform } from '../../platform/index.js';
import { shellWord } from '../../system/shell-words.js';
import { changedIn } from '../changed-in.js';
import { examples, type MakeContext } from '../kit.js';
import { type WithOptionalWebhook, withWebhook } from '../pick.js';
import { deliveryState, unknownStatusText } from './delivery-state.js';
import { remedyNow } from './remedies.js';
import { eventTypeArg, webhookArg } from './shared.js';
import { parseWaitFlags, refuseWaitValue, waitOptions } from './wait-flags.js';

export interface TestOptions {
  webhook: string;
  /** Any kind the server knows: the list grows on the server, not in svc. */
  eventType: string | undefined;
  /** Seconds to wait for the first attempt's outcome; 0: do not wait (--no-wait). */
  waitSeconds: number;
}

const TIMEOUT = { max: 600, dflt: 15 };

export function parseTest(
  webhook: unknown,
  flags: Record<string, unknown>,
  extra: readonly string[] = [],
): WithOptionalWebhook<TestOptions> {
  refuseWaitValue(extra);
  const { wait, waitTimeoutMs } = parseWaitFlags(flags, TIMEOUT);
  return {
    webhook: webhookArg(webhook),
    eventType: flags.eventType === undefined ? undefined : eventTypeArg('--event-type', flags.eventType),
    waitSeconds: wait === false ? 0 : waitTimeoutMs / 1000,
  };
}

const POLL_MS = 200;

export async function runTest(ctx: Context, options: TestOptions): Promise<void> {
  const platform = await ctx.platform();
  const data = await platform.webhooks
    .test(options.webhook, {
      ...(options.eventType ? { event_type: options.eventType as EventType } : {}),
    })
    .catch((error: unknown) => {
      throw withEnableHint(error, options.webhook, platform.svc);
    });
  let delivery: WebhookDelivery = data.delivery;
  const deadline = ctx.clock.now() + options.waitSeconds * 1000;
  // Until its first attempt ends, or it fails without one (the platform stopped the webhook).
  const waiting = (d: WebhookDelivery) => d.attempt_count === 0 && deliveryState(d) !== 'failed';
  while (options.waitSeconds > 0 && waiting(delivery) && ctx.clock.now() < deadline) {
    try {
      await ctx.clock.sleep(POLL_MS, ctx.signal);
    } catch {
      throw new InterruptedError('interrupted while waiting for the test delivery', {
        hint: `follow it with: ${svcCommand(ctx.settings(), `webhooks deliveries ${shellWord(options.webhook)}`)}`,
      });
    }
    delivery = await platform.webhooks.deliveries.get(options.webhook, delivery.id, {}, data.event.id);
  }
  // The failure is known before the record is printed: declared, so a reader gone while it is
  // printed (`| head -1`) ends with it (exit 1, its cause and remedy), not "the change was made".
  const failure = await deliveryFailure(
    platform,
    ctx.settings(),
    options.webhook,
    delivery,
    waiting(delivery),
  );
  ctx.out.declareOutcome(failure);
  await ctx.out.record({ event: data.event, delivery }, [
    ['event', `${data.event.id} (${data.event.type})`],
    ['delivery', delivery.id],
    ['status', delivery.status],
    ['attempts', `${delivery.attempt_count}/${delivery.max_attempts}`],
    ['http', delivery.last_status_code],
    ['error', deliveryState(delivery) === 'delivered' ? null : delivery.last_error],
    ['next retry', delivery.next_retry_at, 'time'],
  ]);
  if (failure) throw failure;
  if (deliveryState(delivery) === 'delivered') {
    const status = delivery.last_status_code === null ? '' : ` (HTTP ${delivery.last_status_code})`;
    ctx.out.success(
      `test event${changedIn(ctx.settings())} delivered on attempt ${delivery.attempt_count}${status}`,
    );
    return;
  }
  const follow = svcCommand(ctx.settings(), `webhooks deliveries ${shellWord(options.webhook)}`);
  ctx.out.info(
    options.waitSeconds === 0
      ? `not waited for its first attempt (--no-wait); follow it with: ${follow}`
      : `no attempt finished within ${options.waitSeconds} s (--wait-timeout); follow it with: ${follow}`,
  );
}

/** The error a test delivery's first attempt ends the command with; undefined: delivered or still waiting. */
async function deliveryFailure(
  platform: Platform,
  settings: TargetSettings,
  webhook: string,
  delivery: WebhookDelivery,
  waiting: boolean,
): Promise<SvcError | undefined> {
  const state = deliveryState(delivery);
  if (state === 'delivered' || waiting) return undefined;
  if (state === 'unknown') {
    // Not a failure, nor a delivery (another server's `succeeded`): said as it came, exit 1.
    return new SvcError(
      'failure',
      `how the test delivery went is not known: ${unknownStatusText(delivery)}`,
      {
        code: 'unknown_status',
        hint: `see it with: ${svcCommand(settings, `webhooks deliveries get ${shellWord(webhook)} ${shellWord(delivery.id)}`)}`,
      },
    );
  }
  const cause = delivery.last_error_code;
  // A stop's reason is the remedy's (remedyNow): said once, with who may enable it and the commands.
  const failed =
    cause === 'webhook_stopped'
      ? `was not sent: webhook ${webhook} was stopped before its first attempt`
      : `failed: ${delivery.last_error ?? 'unknown error'}`;
  return new SvcError('failure', `the test delivery ${failed}`, {
    code: cause ?? 'delivery_failed',
    hint: `${cause ? await remedyNow(platform, webhook, cause, delivery.last_error) : 'check the target'}${delivery.next_retry_at ? '; it will be retried' : ''}`,
  });
}

export function testCommand(make: MakeContext): Command {
  const command = new Command('test')
    .summary('Send a test event and report its first attempt')
    .description(
      'Send a webhook.test event to the webhook (whatever its event kinds) and wait for the first attempt, to\n' +
        'check that the target is reachable and verifies the signature. Exits 1 when the attempt failed, with\n' +
        'the failure cause and its remedy; the delivery is retried like any other. When the platform stops\n' +
        'the webhook before the first attempt, says so at once with why (its disabled_reason), who may\n' +
        'enable it and the commands that send the delivery after all (enable, then replay --dlq).\n\n' +
        '--wait (the default here) and --wait-timeout mean what they mean in `svc webhooks replay`: wait for\n' +
        'the first attempt, at most --wait-timeout seconds; --no-wait returns once the event is created.',
    )
    .argument('[webhook]', 'webhook id')
    .addOption(
      new Option('--event-type <type>', 'send this kind instead of webhook.test (e.g. exception.created)'),
    )
    .allowExcessArguments(true);
  for (const option of waitOptions('wait for the first attempt', 'the default', TIMEOUT))
    command.addOption(option);
  return command
    .addHelpText(
      'after',
      examples(
        ['svc webhooks test wh_123', 'send webhook.test and report the outcome'],
        ['svc webhooks test wh_123 --wait-timeout 60', 'wait up to a minute for a slow target'],
        ['svc webhooks test wh_123 --no-wait --json', 'just create it; print the event and delivery'],
      ),
    )
    .action(async (webhook: string | undefined, flags: Record<string, unknown>, cmd: Command) => {
      // Excess words are allowed so that `--wait 5` (the old seconds) is refused with its remedy.
      const options = parseTest(webhook, flags, cmd.args.slice(1));
      const ctx = await make(cmd);
      await runTest(ctx, await withWebhook(ctx, options));
    });
}
