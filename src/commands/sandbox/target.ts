import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { quoted } from '../../output/format.js';
import type { TargetFaultState } from '../../platform/sandbox.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';

export interface TargetOptions {
  webhook: string;
  /** undefined: only show the current state. */
  change: { fault: TargetFaultState['fault']; status_code?: number } | undefined;
}

const KINDS = ['timeout', 'refused', 'tls'] as const;

export function parseTarget(webhook: unknown, flags: Record<string, unknown>): TargetOptions {
  const id = nonEmpty('WEBHOOK', webhook);
  if (flags.fail !== undefined && flags.recover === true)
    throw new UsageError('use --fail or --recover, not both');
  if (flags.recover === true) return { webhook: id, change: { fault: 'none' } };
  if (flags.fail === undefined) return { webhook: id, change: undefined };
  const fail = String(flags.fail).trim();
  if ((KINDS as readonly string[]).includes(fail)) {
    return { webhook: id, change: { fault: fail as (typeof KINDS)[number] } };
  }
  const status = /^\d{3}$/.test(fail) ? Number(fail) : Number.NaN;
  if (!(status >= 300 && status <= 599)) {
    throw new UsageError(
      `--fail takes an HTTP status from 300 to 599, or ${KINDS.join(', ')}; got ${quoted(fail)}`,
    );
  }
  return { webhook: id, change: { fault: 'status', status_code: status } };
}

function describe(state: TargetFaultState): string {
  switch (state.fault) {
    case 'none':
      return 'attempts go to the target';
    case 'status':
      return `every attempt fails as if the target answered ${state.status_code}`;
    case 'timeout':
      return 'every attempt fails as if the target never answered (connection_timeout)';
    case 'refused':
      return 'every attempt fails as if the target refused the connection';
    case 'tls':
      return "every attempt fails as if the target's certificate had expired";
  }
}

export async function runTarget(ctx: Context, options: TargetOptions): Promise<void> {
  const sandbox = (await ctx.platform()).sandbox;
  const state = options.change
    ? await sandbox.setTargetFault(options.webhook, options.change)
    : await sandbox.targetFault(options.webhook);
  if (ctx.out.isMachine) return ctx.out.json(state);
  const line = `${state.webhook_id}: ${describe(state)}`;
  if (options.change) ctx.out.success(line);
  else await ctx.out.text(line);
}

export function targetCommand(make: MakeContext): Command {
  return new Command('target')
    .summary("Make a webhook's target fail on purpose, or recover")
    .description(
      "Rehearse the on-call journey: make a webhook's target fail (--fail 503, timeout, refused or\n" +
        'tls) and every attempt fails that way without being sent — classified, retried and\n' +
        'dead-lettered like a real failure, its error saying the sandbox injected it. --recover sends\n' +
        'to the target again. Without a flag, shows the current state. A sandbox control\n' +
        '(PUT /_sandbox/webhooks/{id}/target-fault): it works only against `svc sandbox start`.',
    )
    .argument('<webhook>', 'webhook id')
    .addOption(new Option('--fail <how>', 'an HTTP status (300-599), timeout, refused or tls'))
    .addOption(new Option('--recover', 'send to the target again'))
    .addHelpText(
      'after',
      examples(
        ['svc sandbox target wh_123 --fail 503', 'the target is "down"'],
        [
          'svc sandbox trigger exception.sla.breached --webhook wh_123 --count 3',
          'deliveries that will fail',
        ],
        [
          'svc sandbox target wh_123 --recover',
          'the target is back; its dead-letter queue stays: replay it with svc webhooks replay wh_123 --dlq',
        ],
      ),
    )
    .action(async (webhook: string, flags: Record<string, unknown>, cmd: Command) => {
      const options = parseTarget(webhook, flags);
      await runTarget(await make(cmd), options);
    });
}
