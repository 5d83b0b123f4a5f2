import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import { auditFields } from './shared.js';

export interface AuditGetOptions {
  id: string;
}

export function parseAuditGet(id: unknown): AuditGetOptions {
  return { id: nonEmpty('ID', id) };
}

export async function runAuditGet(ctx: Context, options: AuditGetOptions): Promise<void> {
  const entry = await (await ctx.platform()).audit.get(options.id);
  await ctx.out.record(entry, auditFields(entry));
}

export function getCommand(make: MakeContext): Command {
  return new Command('get')
    .summary('Show one audit-trail entry')
    .description(
      'Show an audit-trail entry by its id: the audit_trail_id a grant or revocation printed, or an id\n' +
        'from `svc audit ls`.',
    )
    .argument('<id>', 'entry id (aud_…)')
    .addHelpText('after', examples(['svc audit get aud_0123', 'who granted what, when, and why']))
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const options = parseAuditGet(id);
      await runAuditGet(await make(cmd), options);
    });
}
