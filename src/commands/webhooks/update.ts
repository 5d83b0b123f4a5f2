import { Command, Option } from 'commander';
import { changedBetween, changedFields } from '../../api/changed-fields.js';
import { isStopped } from '../../api/channel-holds.js';
import type { EventType } from '../../api/constants.js';
import { normalHttpUrl } from '../../api/loopback.js';
import type { Webhook, WebhookUpdateBody } from '../../api/schemas/webhooks.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { fieldFlags } from '../../output/field-flags.js';
import { andList } from '../../output/format.js';
import { urlInWords } from '../../output/hosts.js';
import { changedIn } from '../changed-in.js';
import { collect, examples, intFlag, type MakeContext } from '../kit.js';
import { type WithOptionalWebhook, withWebhook } from '../pick.js';
import { type ReplacedList, removedFrom } from '../removed-from.js';
import { eventTypesFlag, targetUrl } from './create.js';
import { WEBHOOK_FIELD_FLAGS, warnRotationReason, webhookArg, webhookFields } from './shared.js';

export interface WebhooksUpdateOptions {
  webhook: string;
  change: WebhookUpdateBody;
}

export function parseWebhooksUpdate(
  webhook: unknown,
  flags: Record<string, unknown>,
): WithOptionalWebhook<WebhooksUpdateOptions> {
  if (flags.enable === true && flags.disable === true)
    throw new UsageError('use --enable or --disable, not both');
  const eventTypes = flags.eventType === undefined ? undefined : eventTypesFlag(flags.eventType);
  const maxAttempts = intFlag('--max-attempts', flags.maxAttempts, 1, 20);
  const change: WebhookUpdateBody = {
    ...(flags.url === undefined ? {} : { url: targetUrl(flags.url) }),
    ...(eventTypes ? { event_types: eventTypes as EventType[] } : {}),
    ...(flags.description === undefined ? {} : { description: String(flags.description) }),
    ...(maxAttempts === undefined ? {} : { max_attempts: maxAttempts }),
    ...(flags.enable === true ? { status: 'enabled' as const } : {}),
    ...(flags.disable === true ? { status: 'disabled' as const } : {}),
  };
  if (Object.keys(change).length === 0) {
    throw new UsageError(
      'nothing to change: give --url, --event-type, --description, --max-attempts, --enable or --disable',
    );
  }
  return { webhook: webhookArg(webhook), change };
}

export async function runWebhooksUpdate(ctx: Context, options: WebhooksUpdateOptions): Promise<void> {
  const platform = await ctx.platform();
  const before = await platform.webhooks.get(options.webhook);
  // Stopped by the platform (disabled_reason) is not disabled on request: --disable is sent.
  const disablesStopped = options.change.status === 'disabled' && isStopped(before);
  if (!disablesStopped && changedFields(comparable(before), comparable(options.change)).length === 0) {
    // As `roles update`: nothing is sent, so no audit entry says a change that did not happen.
    await ctx.out.record(before, webhookFields(before));
    if (!ctx.out.isMachine)
      ctx.out.info(`nothing changed: webhook ${before.id} ${unchanged(options.change, before)}`);
    return;
  }
  const webhook = await platform.webhooks.update(options.webhook, options.change);
  await ctx.out.record(webhook, webhookFields(webhook));
  if (!ctx.out.isMachine) said(ctx, before, webhook, options);
  // A secret a gone vendor or key still holds (review18 R18-7): said after the ✓ line, also under --json.
  warnRotationReason(ctx, webhook);
}

/** The ✓ (or "Nothing changed") line of an update sent. */
function said(ctx: Context, before: Webhook, webhook: Webhook, options: WebhooksUpdateOptions): void {
  const disablesStopped = options.change.status === 'disabled' && isStopped(before);
  // What changed is what the answer shows changed: a server may store a value svc sent as one
  // it already had (another spelling of its URL), and then nothing changed.
  const changed = changedBetween(comparable(before), comparable(webhook), options.change);
  if (disablesStopped && webhook.status === 'disabled' && !isStopped(webhook)) {
    const rest = changed.filter((f) => f !== 'status');
    ctx.out.success(
      `updated webhook ${webhook.id}${changedIn(ctx.settings())} (${['status', ...rest].join(', ')}): the platform had stopped it (${before.disabled_reason}); ` +
        'it is now disabled on request, and stays disabled until someone enables it',
    );
  } else if (changed.length === 0) {
    ctx.out.info(`nothing changed: webhook ${webhook.id} ${unchanged(options.change, webhook)}`);
  } else {
    ctx.out.success(
      `updated webhook ${webhook.id}${changedIn(ctx.settings())} (${changed.join(', ')})${removedFrom(before, webhook, LISTS)}`,
    );
  }
}

/** The list --event-type replaces: the kinds it took out are said (attack26a F4), as `oauth update` does. */
const LISTS: readonly ReplacedList<Webhook>[] = [{ key: 'event_types', noun: 'event type' }];

/** A webhook or a change with its URL in the form the platform stores (two spellings compare equal). */
function comparable<T extends { url?: string | undefined }>(value: T): T {
  return value.url === undefined ? value : { ...value, url: normalHttpUrl(value.url) };
}

/** What a change that changes nothing found already true of `webhook`, in words: `is already enabled`. */
function unchanged(change: WebhookUpdateBody, webhook: Webhook): string {
  const facts = Object.keys(change).map((key) => {
    switch (key) {
      case 'url':
        return `already points at ${urlInWords(webhook.url)}`;
      case 'event_types':
        return `already receives exactly ${change.event_types!.join(', ')}`;
      case 'description':
        return 'already has that description';
      case 'max_attempts':
        return `already has max attempts ${webhook.max_attempts}`;
      default:
        return `is already ${webhook.status}`;
    }
  });
  return andList(facts);
}

export function updateCommand(make: MakeContext): Command {
  const command = new Command('update')
    .summary("Change a webhook's target, event kinds, description or status")
    .description(
      'Change a webhook. --event-type replaces the kinds it receives (repeat it for several). Changes\n' +
        'apply to deliveries created afterwards; a disabled webhook receives no new events. --disable\n' +
        'on a webhook the platform stopped (`svc webhooks get` says why) is sent all the same: it is then\n' +
        'disabled on request, and only --enable, by someone who holds its read permissions without an\n' +
        'end date (who then owns it), turns it back on. A webhook created through a third-party\n' +
        "client's token or an API key keeps the signing secret that client or key was given: once it is\n" +
        "gone, svc warns (the webhook's rotation_reason) with the command that rotates it.",
    )
    .argument('[webhook]', 'webhook id (asked for on a terminal)')
    .addOption(new Option('--url <url>', 'a new target URL'))
    .addOption(
      new Option('--event-type <kind>', 'the event kinds it receives (replaces them; repeatable)').argParser(
        collect,
      ),
    )
    .addOption(new Option('--description <text>', 'free text'))
    .addOption(new Option('--max-attempts <n>', 'attempt ceiling of new deliveries, 1-20'))
    .addOption(new Option('--enable', 'receive events again'))
    .addOption(new Option('--disable', 'stop receiving events (deliveries already made continue)'))
    .addHelpText(
      'after',
      examples(
        ['svc webhooks update wh_123 --url https://hooks.example.com/v2', 'point it elsewhere'],
        ['svc webhooks update wh_123 --disable', 'pause it'],
      ),
    )
    .action(async (webhook: string | undefined, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseWebhooksUpdate(webhook, flags);
      const ctx = await make(cmd);
      await runWebhooksUpdate(ctx, await withWebhook(ctx, options));
    });
  return fieldFlags(command, WEBHOOK_FIELD_FLAGS);
}
