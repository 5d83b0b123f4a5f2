import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import { type WithOptionalWebhook, withWebhook } from '../pick.js';
import { warnRotationReason, webhookArg, webhookFields } from './shared.js';

export interface WebhooksGetOptions {
  webhook: string;
}

export function parseWebhooksGet(webhook: unknown): WithOptionalWebhook<WebhooksGetOptions> {
  return { webhook: webhookArg(webhook) };
}

export async function runWebhooksGet(ctx: Context, options: WebhooksGetOptions): Promise<void> {
  const webhook = await (await ctx.platform()).webhooks.get(options.webhook);
  await ctx.out.record(webhook, webhookFields(webhook));
  warnRotationReason(ctx, webhook);
}

export function getCommand(make: MakeContext): Command {
  return new Command('get')
    .summary('Show one webhook')
    .description(
      'Show a webhook: target URL, event kinds, status, attempt ceiling, and each secret rotated out that\n' +
        'still signs, with when it stops (--json: previous_secrets). No signing secret is ever shown.\n' +
        'Also its owner, who last chose where its data goes, and, when the platform disabled it, why\n' +
        '(the owner lost the permission that reads its data, or the OAuth client or API key it was set up\n' +
        'through is gone). It stays disabled though the owner regains that permission, until\n' +
        '`svc webhooks update WEBHOOK --enable` as someone who holds it without an end date takes it over.\n' +
        'A webhook still signing with the secret an OAuth client or API key that is gone was given (it was\n' +
        'created through it) says so in its "secret at risk" row (--json: rotation_reason), and in one\n' +
        'warning with the command that rotates it.',
    )
    .argument('[webhook]', 'webhook id (asked for on a terminal)')
    .addHelpText(
      'after',
      examples(['svc webhooks get wh_123', 'one webhook'], ['svc webhooks get wh_123 --json', 'as JSON']),
    )
    .action(async (webhook: string | undefined, _flags: unknown, cmd: Command) => {
      const options = parseWebhooksGet(webhook);
      const ctx = await make(cmd);
      await runWebhooksGet(ctx, await withWebhook(ctx, options));
    });
}
