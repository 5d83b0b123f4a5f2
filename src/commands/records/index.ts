import { Command, Option } from 'commander';
import { RECORD_OWNED_FIELDS, RESERVED_SURFACES, SURFACE_PATTERN } from '../../api/constants.js';
import type { Me } from '../../api/schemas/me.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { path } from '../../http/path.js';
import type { Column, Field } from '../../output/output.js';
import { readInputBytes } from '../../system/input.js';
import { confirmDestructive, examples, intFlag, type MakeContext, nonEmpty } from '../kit.js';

type RecordData = Record<string, unknown> & {
  id: string;
  created_at?: string;
  updated_at?: string;
  soft_delete?: boolean;
  deleted_at?: string | null;
  purge_at?: string | null;
};

export function checkSurface(raw: string): string {
  const surface = nonEmpty('SURFACE', raw);
  if (!SURFACE_PATTERN.test(surface)) {
    throw new UsageError(
      `invalid surface ${JSON.stringify(surface)}: use lowercase letters, digits and _, e.g. reconciliations`,
    );
  }
  if ((RESERVED_SURFACES as readonly string[]).includes(surface)) {
    throw new UsageError(
      `"${surface}" is not a record surface; it has its own commands (see \`svc --help\`)`,
    );
  }
  return surface;
}

/** --data JSON or --data-file FILE|- : one JSON object. */
export async function readData(
  ctx: Context,
  flags: Record<string, unknown>,
  required: boolean,
): Promise<Record<string, unknown> | undefined> {
  if (flags.data !== undefined && flags.dataFile !== undefined)
    throw new UsageError('--data and --data-file both give the data; use one');
  let text: string;
  let from: string;
  if (flags.data !== undefined) {
    text = String(flags.data);
    from = '--data';
  } else if (flags.dataFile !== undefined) {
    from = `--data-file ${flags.dataFile}`;
    text = (await readInputBytes(String(flags.dataFile), ctx.io.stdin, '--data-file')).toString('utf8');
  } else {
    if (required) throw new UsageError('give the record as --data JSON or --data-file FILE (- for stdin)');
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${from} is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${from} must be a JSON object, e.g. '{"name":"March close"}'`);
  }
  return value as Record<string, unknown>;
}

function ownFields(record: RecordData): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).filter(([k]) => !(RECORD_OWNED_FIELDS as readonly string[]).includes(k)),
  );
}

function recordFields(record: RecordData): Field[] {
  const fields: Field[] = [
    ['id', record.id],
    ['created', record.created_at, 'time'],
    ['updated', record.updated_at, 'time'],
  ];
  if (record.soft_delete) {
    fields.push(['deleted', record.deleted_at, 'time'], ['purged', record.purge_at, 'time']);
  }
  for (const [key, value] of Object.entries(ownFields(record)))
    fields.push([key, typeof value === 'string' ? value : JSON.stringify(value)]);
  return fields;
}

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
  const api = await ctx.api();
  const query = {
    limit: options.limit,
    cursor: options.cursor,
    include_deleted: options.includeDeleted || undefined,
  };
  if (options.all) {
    await ctx.out.list(api.paginate<RecordData>(path`/v1/${surface}`, query), COLUMNS, {
      empty: `No ${surface} records.`,
    });
    return;
  }
  const { data } = await api.get<{ items: RecordData[]; next_cursor: string | null }>(
    path`/v1/${surface}`,
    query,
  );
  await ctx.out.list(data.items, COLUMNS, { empty: `No ${surface} records.` });
  if (data.next_cursor && !ctx.out.isMachine)
    ctx.out.info(`More: svc records ls ${surface} --cursor ${data.next_cursor}  (or --all)`);
}

async function show(ctx: Context, record: RecordData): Promise<void> {
  await ctx.out.record(record, recordFields(record));
}

export async function runRecordsGet(ctx: Context, surface: string, id: string): Promise<void> {
  const api = await ctx.api();
  await show(ctx, (await api.get<RecordData>(path`/v1/${surface}/${id}`)).data);
}

export async function runRecordsCreate(
  ctx: Context,
  surface: string,
  data: Record<string, unknown>,
): Promise<void> {
  const api = await ctx.api();
  const { data: record } = await api.post<RecordData>(path`/v1/${surface}`, data);
  await show(ctx, record);
  if (!ctx.out.isMachine) ctx.out.success(`Created ${surface} record ${record.id}`);
}

export async function runRecordsUpdate(
  ctx: Context,
  surface: string,
  id: string,
  patch: Record<string, unknown>,
): Promise<void> {
  const api = await ctx.api();
  const { data: record } = await api.request<RecordData>({
    method: 'PATCH',
    path: path`/v1/${surface}/${id}`,
    raw: { data: JSON.stringify(patch), contentType: 'application/merge-patch+json' },
  });
  await show(ctx, record);
  if (!ctx.out.isMachine) ctx.out.success(`Updated ${surface} record ${record.id}`);
}

export async function runRecordsDelete(ctx: Context, surface: string, id: string): Promise<void> {
  const api = await ctx.api();
  await confirmDestructive(
    ctx,
    async () => {
      const me = (await api.get<Me>('/v1/me')).data;
      const tenant =
        me.tenants.find((t) => t.id === me.tenant_id)?.display_name ?? me.tenant_id ?? 'this tenant';
      return `Delete ${surface} record ${id} in ${tenant}? It is purged for good after 30 days.`;
    },
    `deleting ${surface} record ${id}`,
  );
  const { data: record } = await api.delete<RecordData>(path`/v1/${surface}/${id}`);
  if (ctx.out.isMachine) return ctx.out.json(record);
  ctx.out.success(
    `Deleted ${surface} record ${record.id}; it is hidden from lists and purged at ${record.purge_at}`,
  );
}

const dataOptions = (command: Command) =>
  command
    .addOption(new Option('--data <json>', 'the fields as a JSON object'))
    .addOption(new Option('--data-file <file>', 'the fields from a JSON file, or - for standard input'));

export default function records(make: MakeContext): Command {
  const group = new Command('records').description(
    'The generic record surface /v1/SURFACE (reconciliations, exceptions, evidence_packs, …): list, get,\n' +
      'create, update (JSON Merge Patch) and soft-delete records (purged 30 days later).',
  );
  group
    .command('ls')
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
  group
    .command('get')
    .argument('<surface>', 'surface name')
    .argument('<id>', 'record id')
    .description('Show one record (a soft-deleted one too, until it is purged)')
    .addHelpText('after', examples(['svc records get reconciliations rec_1a2b…', 'one record']))
    .action(async (surface: string, id: string, _flags: unknown, cmd: Command) => {
      const name = checkSurface(surface);
      await runRecordsGet(await make(cmd), name, nonEmpty('ID', id));
    });
  dataOptions(
    group
      .command('create')
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
  dataOptions(
    group
      .command('update')
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
  group
    .command('delete')
    .alias('rm')
    .argument('<surface>', 'surface name')
    .argument('<id>', 'record id')
    .description(
      'Soft-delete a record: hidden from lists now, purged after 30 days (asks first; --yes when not on a terminal)',
    )
    .addHelpText(
      'after',
      examples(['svc records delete reconciliations rec_1a2b… --yes', 'delete without asking']),
    )
    .action(async (surface: string, id: string, _flags: unknown, cmd: Command) => {
      const name = checkSurface(surface);
      await runRecordsDelete(await make(cmd), name, nonEmpty('ID', id));
    });
  return group;
}
