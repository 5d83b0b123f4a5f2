import { Command } from 'commander';
import type { DlqEntry } from '../../../api/schemas/webhooks.js';
import type { Context } from '../../../context.js';
import type { Field } from '../../../output/output.js';
import { examples, type MakeContext, nonEmpty } from '../../kit.js';
import { failureFields, failureRemedy, ofKnownWebhook } from '../shared.js';

export interface DlqGetOptions {
  webhook: string;
  entry: string;
}

export function parseDlqGet(webhook: unknown, entry: unknown): DlqGetOptions {
  return { webhook: nonEmpty('WEBHOOK', webhook), entry: nonEmpty('ENTRY', entry) };
}

export const dlqEntryFields = (e: DlqEntry, remedy: string | undefined): Field[] => [
  ['id', e.id],
  ['webhook', e.webhook_id],
  ['delivery', e.delivery_id],
  ['event', `${e.event_id} (${e.event_type})`],
  ['status', e.status],
  ['attempts', e.attempt_count],
  ['http', e.last_status_code],
  ...failureFields(e, remedy),
  ['dead-lettered', e.dead_lettered_at, 'time'],
  ['replays', e.replay_count],
  ['last replayed', e.last_replayed_at, 'time'],
  ['last replay', e.last_replay_delivery_id],
  ['discarded', e.discarded_at, 'time'],
];

export async function runDlqGet(ctx: Context, options: DlqGetOptions): Promise<void> {
  const platform = await ctx.platform();
  const entry = await ofKnownWebhook(platform, options.webhook, () =>
    platform.webhooks.dlq.get(options.webhook, options.entry),
  );
  // Read for people only: --json/--ndjson print the entry as the platform gave it.
  const remedy = ctx.out.isMachine ? undefined : await failureRemedy(platform, entry);
  await ctx.out.record(entry, dlqEntryFields(entry, remedy));
}

export function getCommand(make: MakeContext): Command {
  return new Command('get')
    .summary('Show one dead-letter queue entry, with the cause and remedy')
    .description(
      'Show an entry of the dead-letter queue: the failed delivery, why it failed and what to do, and\n' +
        'whether it was replayed or discarded.',
    )
    .argument('<webhook>', 'webhook id')
    .argument('<entry>', 'entry id (dlq_…)')
    .addHelpText('after', examples(['svc webhooks dlq get wh_123 dlq_456', 'one entry']))
    .action(async (webhook: string, entry: string, _flags: unknown, cmd: Command) => {
      const options = parseDlqGet(webhook, entry);
      await runDlqGet(await make(cmd), options);
    });
}
