import { Command, Option } from 'commander';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { jsonCellText } from '../../output/format.js';
import type { Column } from '../../output/output.js';
import { InvalidCursorError, retyped } from '../../platform/errors.js';
import { shellWord } from '../../system/shell-words.js';
import { examples, type MakeContext } from '../kit.js';
import { Listing, type ListingOptions, listingOptions, parseListing } from '../listing.js';
import { checkSurface, onSurface, ownFields, type RecordData } from './shared.js';

/** The largest page GET /v1/{surface} gives. */
const RECORD_PAGE_MAX = 200;

const COLUMNS: Array<Column<RecordData>> = [
  { header: 'id', value: (r) => r.id, kind: 'id' },
  { header: 'fields', value: (r) => jsonCellText(ownFields(r)) },
  { header: 'updated', value: (r) => r.updated_at, kind: 'time' },
  { header: 'deleted', value: (r) => (r.soft_delete ? r.deleted_at : null), kind: 'time', optional: true },
];

export async function runRecordsLs(
  ctx: Context,
  surface: string,
  options: ListingOptions & { includeDeleted: boolean },
): Promise<void> {
  const platform = await ctx.platform();
  const listing = new Listing<RecordData>(options, RECORD_PAGE_MAX);
  const records = listing.items((page) =>
    platform.records.list(surface, { include_deleted: options.includeDeleted || undefined, ...page }),
  );
  const line = (words: string) => svcCommand(ctx.settings(), words);
  const command = line(
    `records ls ${shellWord(surface)}${options.includeDeleted ? ' --include-deleted' : ''}`,
  );
  try {
    await onSurface(ctx, surface, () =>
      ctx.out.list(records, COLUMNS, { empty: `no records in ${surface}` }),
    );
  } catch (error) {
    throw withCursorHint(error, surface, line, command, options.cursor);
  }
  listing.hintMore(ctx, command);
}

/**
 * A --cursor refused for another surface or tenant (the sandbox's details say which: `belongs to
 * /v1/rules`, `belongs to another tenant`): the fix in svc's commands, where the server's message
 * names API calls for every client. Any other refusal, or another server's, passes as it is.
 */
function withCursorHint(
  error: unknown,
  surface: string,
  line: (words: string) => string,
  command: string,
  cursor: string | undefined,
): unknown {
  if (!(error instanceof InvalidCursorError) || cursor === undefined || error.hint) return error;
  const first = Array.isArray(error.details)
    ? (error.details[0] as Record<string, unknown> | undefined)
    : undefined;
  const said = first?.field === 'cursor' && typeof first.message === 'string' ? first.message : '';
  const fromStart = `list ${surface} from the start with \`${command}\``;
  const other = /^belongs to \/v1\/([a-z][a-z0-9_]*)$/.exec(said)?.[1];
  if (other !== undefined && other !== surface) {
    return retyped(
      error,
      InvalidCursorError,
      `it is a cursor of ${other} records: continue with \`${line(`records ls ${other} --cursor ${shellWord(cursor)}`)}\`, or ${fromStart}`,
    );
  }
  if (said === 'belongs to another tenant') {
    return retyped(error, InvalidCursorError, `use it with the --tenant it came from, or ${fromStart}`);
  }
  return error;
}

export function lsCommand(make: MakeContext): Command {
  const command = new Command('ls')
    .alias('list')
    .argument('<surface>', 'surface name, e.g. reconciliations')
    .description('List records of a surface (soft-deleted ones only with --include-deleted)');
  for (const option of listingOptions('records')) command.addOption(option);
  return command
    .addOption(new Option('--include-deleted', 'also soft-deleted records not yet purged'))
    .addHelpText(
      'after',
      examples(
        ['svc records ls reconciliations', 'the first 50'],
        ['svc records ls exceptions --all --ndjson | jq .id', 'every record, one JSON object per line'],
      ),
    )
    .action(async (surface: string, flags: Record<string, unknown>, cmd: Command) => {
      const name = checkSurface(surface);
      const options = { ...parseListing(flags), includeDeleted: flags.includeDeleted === true };
      await runRecordsLs(await make(cmd), name, options);
    });
}
