import { Command, Option } from 'commander';
import { profileFlag, svcCommand, TENANT_PLACEHOLDER } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { counted } from '../../output/format.js';
import { withEnableHint } from '../../platform/errors.js';
import { shellWord } from '../../system/shell-words.js';
import { examples, intFlag, type MakeContext, nonEmpty } from '../kit.js';
import { resolveTenant } from '../pick.js';
import { refuseNearMissKind } from '../webhooks/dlq/filters.js';

export interface TriggerOptions {
  eventType: string;
  webhook: string | undefined;
  count: number;
}

export function parseTrigger(eventType: unknown, flags: Record<string, unknown>): TriggerOptions {
  const type = nonEmpty('EVENT_TYPE', eventType);
  if (!/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/.test(type)) {
    throw new UsageError(`${JSON.stringify(type)} is not an event kind (e.g. exception.sla.breached)`);
  }
  refuseNearMissKind(type);
  return {
    eventType: type,
    webhook: flags.webhook === undefined ? undefined : nonEmpty('--webhook', flags.webhook),
    count: intFlag('--count', flags.count, 1, 200_000) ?? 1,
  };
}

export async function runTrigger(ctx: Context, options: TriggerOptions): Promise<void> {
  const platform = await ctx.platform();
  let target: { webhook_id: string } | { tenant_id: string };
  if (options.webhook !== undefined) target = { webhook_id: options.webhook };
  else {
    const ref = ctx.settings().values.tenant;
    if (!ref) {
      throw new UsageError('no tenant to send events in', {
        hint: `pass --webhook W, or --tenant ID (or set SVC_TENANT / \`svc ${profileFlag(ctx.settings())}config set tenant ${TENANT_PLACEHOLDER}\`)`,
      });
    }
    target = { tenant_id: (await resolveTenant(ctx, ref)).id };
  }
  const data = await platform.sandbox
    .emitEvents({ type: options.eventType, count: options.count, ...target })
    .catch((error: unknown) => {
      throw options.webhook === undefined ? error : withEnableHint(error, options.webhook, platform.svc);
    });
  if (ctx.out.isMachine) return ctx.out.json(data);
  await ctx.out.list(data.events, [
    { header: 'event', value: (e) => e.id, kind: 'id' },
    { header: 'type', value: (e) => e.type, kind: 'name' },
    { header: 'deliveries', value: (e) => e.delivery_ids, kind: 'id' },
  ]);
  if (data.truncated)
    ctx.out.info(`(the first ${data.events.length.toLocaleString('en')} events are listed)`);
  const where = options.webhook ?? 'the subscribed webhooks of the tenant';
  if (data.deliveries === 0) {
    ctx.out.warn(
      `${counted(data.count, `${options.eventType} event`)} emitted, but no enabled webhook subscribes to it: nothing will be delivered`,
    );
    return;
  }
  ctx.out.success(
    `${counted(data.count, 'event')} emitted, ${counted(data.deliveries, 'delivery', 'deliveries')} to ${where}; follow them with: ${svcCommand(ctx.settings(), `webhooks deliveries ${options.webhook === undefined ? 'WEBHOOK' : shellWord(options.webhook)}`)}`,
  );
}

export function triggerCommand(make: MakeContext): Command {
  return new Command('trigger')
    .summary('Make the sandbox emit events (as `stripe trigger` does)')
    .description(
      'Make the sandbox emit events of a kind: to one webhook (--webhook, whatever it subscribes to; a\n' +
        'disabled one is refused), or to every enabled webhook of the tenant that subscribes to the kind. Each becomes a real,\n' +
        'signed delivery, retried and dead-lettered like any other. A sandbox control\n' +
        '(POST /_sandbox/webhooks/events): it works only against `svc sandbox start`.',
    )
    .argument('<event-type>', 'the kind, e.g. exception.sla.breached, reconciliation.completed, webhook.test')
    .addOption(new Option('--webhook <id>', 'send to this webhook only'))
    .addOption(new Option('--count <n>', 'how many events, 1-200000 (default 1)'))
    .addHelpText(
      'after',
      examples(
        ['svc sandbox trigger exception.sla.breached', 'one event to every subscribed webhook of the tenant'],
        ['svc sandbox trigger exception.sla.breached --webhook wh_123 --count 20', 'twenty, to one webhook'],
      ),
    )
    .action(async (eventType: string, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseTrigger(eventType, flags);
      await runTrigger(await make(cmd), options);
    });
}
