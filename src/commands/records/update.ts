import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import { checkSurface, dataOptions, onSurface, type RecordData, readData, show } from './shared.js';

export async function runRecordsUpdate(
  ctx: Context,
  surface: string,
  id: string,
  patch: Record<string, unknown>,
): Promise<void> {
  const platform = await ctx.platform();
  const record: RecordData = await onSurface(surface, () => platform.records.update(surface, id, patch));
  await show(ctx, record);
  if (!ctx.out.isMachine) ctx.out.success(`Updated ${surface} record ${record.id}`);
}

export function updateCommand(make: MakeContext): Command {
  return dataOptions(
    new Command('update')
      .argument('<surface>', 'surface name')
      .argument('<id>', 'record id')
      .description('Update a record with a JSON Merge Patch (RFC 7396): fields merge, null removes one'),
  )
    .addHelpText(
      'after',
      examples([
        'svc records update reconciliations rec_1a2b… --data \'{"status":"closed","note":null}\'',
        'set one field, remove another',
      ]),
    )
    .action(async (surface: string, id: string, flags: Record<string, unknown>, cmd: Command) => {
      const name = checkSurface(surface);
      const recordId = nonEmpty('ID', id);
      const ctx = await make(cmd);
      const patch = await readData(ctx, flags, true);
      await runRecordsUpdate(ctx, name, recordId, patch!);
    });
}
