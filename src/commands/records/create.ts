import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, type MakeContext } from '../kit.js';
import { checkSurface, dataOptions, onSurface, type RecordData, readData, show } from './shared.js';

export async function runRecordsCreate(
  ctx: Context,
  surface: string,
  data: Record<string, unknown>,
): Promise<void> {
  const platform = await ctx.platform();
  const record: RecordData = await onSurface(ctx, surface, () => platform.records.create(surface, data));
  await show(ctx, record);
  if (!ctx.out.isMachine) ctx.out.success(`Created ${surface} record ${record.id}`);
}

export function createCommand(make: MakeContext): Command {
  return dataOptions(
    new Command('create')
      .argument('<surface>', 'surface name')
      .description(
        'Create a record from a JSON object (an idempotency key is added, so retries never create twice)',
      ),
  )
    .addHelpText(
      'after',
      examples(
        [
          'svc records create reconciliations --data \'{"name":"March close","currency":"EUR"}\'',
          'from a JSON string',
        ],
        ['svc records create exceptions --data-file exception.json', 'from a file'],
      ),
    )
    .action(async (surface: string, flags: Record<string, unknown>, cmd: Command) => {
      const name = checkSurface(surface);
      const ctx = await make(cmd);
      const data = await readData(ctx, flags, true);
      await runRecordsCreate(ctx, name, data!);
    });
}
