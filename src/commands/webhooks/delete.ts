import { Command } from 'commander';
import type { Context } from '../../context.js';
import { optionalLookup } from '../../errors.js';
import { counted } from '../../output/format.js';
import { urlInWords } from '../../output/hosts.js';
import type { Platform } from '../../platform/index.js';
import { changedIn } from '../changed-in.js';
import { confirmDestructive, deleted, examples, type MakeContext, tenantLabel } from '../kit.js';
import { type WithOptionalWebhook, withWebhook } from '../pick.js';
import { verdict } from '../verdict.js';
import { webhookArg } from './shared.js';

export interface WebhooksDeleteOptions {
  webhook: string;
}

export function parseWebhooksDelete(webhook: unknown): WithOptionalWebhook<WebhooksDeleteOptions> {
  return { webhook: webhookArg(webhook) };
}

export async function runWebhooksDelete(ctx: Context, options: WebhooksDeleteOptions): Promise<void> {
  const platform = await ctx.platform();
  const webhook = await platform.webhooks.get(options.webhook);
  const lost = await queuedLost(platform, webhook.id);
  // The URL is only a label here (the question, the lines after): its secrets masked, as apply's
  // rows show it (README: "Secrets are never in the file"); --json keeps it whole.
  // A host that is not ASCII is named beside its punycode form, the host deliveries go to (hosts.ts).
  const label = `webhook ${webhook.id} (${urlInWords(webhook.url)})`;
  await confirmDestructive(
    ctx,
    async () =>
      `Delete ${label} in ${await tenantLabel(ctx)}? It receives no more events; deliveries still waiting are cancelled${lost ? `; ${lost}` : ''}.`,
    `deleting webhook ${webhook.id}`,
  );
  const data = await deleted(ctx, platform.webhooks.delete(webhook.id), {
    act: 'delete',
    thing: 'the webhook',
    done: 'deleted',
    // Answered without the record (or the answer lost, the webhook found gone): the line still
    // names what the question named, the queued entries no longer replayable.
    subject: `${label}${changedIn(ctx.settings())} is gone${lost ? ` (${lost})` : ''}`,
    target: { id: webhook.id, url: webhook.url },
    noun: 'webhook',
  });
  if (data === undefined) return;
  // The one verdict (verdict.ts): the answer (`id`, `deleted`, `deleted_at`) under `webhook`, and at the top as before.
  if (ctx.out.isMachine) await ctx.out.json(verdict('deleted', 'webhook', data, data));
  else ctx.out.success(`deleted ${label}${changedIn(ctx.settings())}${lost ? `; ${lost}` : ''}`);
}

/**
 * The dead-letter entries still queued, which the delete makes unreplayable, in words; undefined
 * when there are none, or when the queue cannot be read (only to say more).
 */
async function queuedLost(platform: Platform, webhook: string): Promise<string | undefined> {
  const page = await optionalLookup(platform.webhooks.dlq.list(webhook, { status: 'queued', limit: 1 }));
  const total = page?.total ?? 0;
  if (total === 0) return undefined;
  return `its ${counted(total, 'queued dead-letter entry', 'queued dead-letter entries')} can no longer be replayed`;
}

export function deleteCommand(make: MakeContext): Command {
  return new Command('delete')
    .alias('rm')
    .summary('Delete a webhook')
    .description(
      'Delete a webhook: it receives no more events, its deliveries still waiting for an attempt are\n' +
        'cancelled, and its queued dead-letter entries can no longer be replayed (it says how many). Asks first on a terminal, naming the tenant; needs --yes otherwise.\n' +
        'With --json: {id, deleted, deleted_at, outcome: "deleted", webhook: {id, deleted, deleted_at}} (the\n' +
        'answer at the top, as before, and under webhook; null there when no answer gave it).',
    )
    .argument('[webhook]', 'webhook id (asked for on a terminal)')
    .addHelpText('after', examples(['svc webhooks delete wh_123 --yes', 'in a script']))
    .action(async (webhook: string | undefined, _flags: unknown, cmd: Command) => {
      const options = parseWebhooksDelete(webhook);
      const ctx = await make(cmd);
      await runWebhooksDelete(ctx, await withWebhook(ctx, options));
    });
}
