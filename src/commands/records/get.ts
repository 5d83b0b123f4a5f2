import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import { checkSurface, onSurface, type RecordData, show } from './shared.js';

export async function runRecordsGet(ctx: Context, surface: string, id: string): Promise<void> {
  const platform = await ctx.platform();
  const record: RecordData = await onSurface(ctx, surface, () => platform.records.get(surface, id));
  await show(ctx, record);
}

export function getCommand(make: MakeContext): Command {
  return new Command('get')
    .argument('<surface>', 'surface name')
    .argument('<id>', 'record id')
    .description('Show one record (a soft-deleted one too, until it is purged)')
    .addHelpText('after', examples(['svc records get reconciliations rec_1a2b…', 'one record']))
    .action(async (surface: string, id: string, _flags: unknown, cmd: Command) => {
      const name = checkSurface(surface);
      await runRecordsGet(await make(cmd), name, nonEmpty('ID', id));
    });
}
