import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import type { Column } from '../../output/output.js';
import { examples, intFlag, type MakeContext, nonEmpty } from '../kit.js';
import { checkSurface, ownFields, type RecordData } from './shared.js';

const COLUMNS: Array<Column<RecordData>> = [
  { header: 'id', value: (r) => r.id, kind: 'id' },
  { header: 'fields', value: (r) => JSON.stringify(ownFields(r)) },
  { header: 'updated', value: (r) => r.updated_at, kind: 'time' },
  { header: 'deleted', value: (r) => (r.soft_delete ? r.deleted_at : null), kind: 'time', optional: true },
];

export async function runRecordsLs(
  ctx: Context,
  surface: string,
  options: { limit: number | undefined; cursor: string | undefined; all: boolean; includeDeleted: boolean },
): Promise<void> {
  const platform = await ctx.platform();
  const query = {
    limit: options.limit,
    cursor: options.cursor,
    include_deleted: options.includeDeleted || undefined,
  };
  if (options.all) {
    await ctx.out.list(platform.records.listAll(surface, query), COLUMNS, {
      empty: `No ${surface} records.`,
    });
    return;
  }
  const data = await platform.records.list(surface, query);
  await ctx.out.list(data.items, COLUMNS, { empty: `No ${surface} records.` });
  if (data.next_cursor && !ctx.out.isMachine)
    ctx.out.info(`More: svc records ls ${surface} --cursor ${data.next_cursor}  (or --all)`);
}

export function lsCommand(make: MakeContext): Command {
  return new Command('ls')
    .alias('list')
    .argument('<surface>', 'surface name, e.g. reconciliations')
    .description('List records of a surface (soft-deleted ones only with --include-deleted)')
    .addOption(new Option('--limit <n>', 'page size, 1-200 (default 50)'))
    .addOption(new Option('--cursor <cursor>', 'start after this cursor'))
    .addOption(new Option('--all', 'every page, streamed'))
    .addOption(new Option('--include-deleted', 'also soft-deleted records not yet purged'))
    .addHelpText(
      'after',
      examples(
        ['svc records ls reconciliations', 'the first page'],
        ['svc records ls exceptions --all --ndjson | jq .id', 'every record, one JSON object per line'],
      ),
    )
    .action(async (surface: string, flags: Record<string, unknown>, cmd: Command) => {
      const name = checkSurface(surface);
      const options = {
        limit: intFlag('--limit', flags.limit, 1, 200),
        cursor: flags.cursor === undefined ? undefined : nonEmpty('--cursor', flags.cursor),
        all: flags.all === true,
        includeDeleted: flags.includeDeleted === true,
      };
      await runRecordsLs(await make(cmd), name, options);
    });
}
