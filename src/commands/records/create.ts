import { Command } from 'commander';
import type { Context } from '../../context.js';
import type { Platform } from '../../platform/index.js';
import { changedIn } from '../changed-in.js';
import { examples, type MakeContext } from '../kit.js';
import {
  type Created,
  createOnce,
  type EitherRun,
  earlierRunNote,
  goneSince,
  madeNow,
} from '../replayed-creation.js';
import { checkSurface, dataOptions, onSurface, type RecordData, readData, show } from './shared.js';

/**
 * Creates a record under the data's own `idempotency_key` (a string one: the reference's way to
 * make a re-run safe), or one chosen here. The platform answers a repeat of a key with the first
 * run's stored answer: that is not a creation, and the record may have changed or been deleted
 * since, so svc says it is an earlier run's and shows the record as it is now (deleted since:
 * exit 5). Nothing of svc's goes into the record's object: its fields are the user's.
 */
export async function runRecordsCreate(
  ctx: Context,
  surface: string,
  data: Record<string, unknown>,
): Promise<void> {
  const platform = await ctx.platform();
  const given = typeof data.idempotency_key === 'string' ? data.idempotency_key : undefined;
  // A key of another type is sent as given (the server decides), and svc's goes nowhere.
  const own = Object.hasOwn(data, 'idempotency_key') && given === undefined;
  const creation = await onSurface(ctx, surface, () =>
    createOnce(
      given,
      'record',
      (idempotencyKey) => platform.records.create(surface, data, { idempotencyKey }),
      {
        with: (key) =>
          own
            ? 'the same idempotency_key in the data'
            : `${JSON.stringify({ idempotency_key: key }).slice(1, -1)} in the data`,
        included: null,
      },
    ),
  );
  const record: RecordData = creation.mayBeStale
    ? await recordNow(ctx, platform, surface, creation.data, creation.key, creation.unmarked)
    : creation.data;
  if (creation.byEarlierRun) ctx.out.info(earlierRunNote(created(surface, record.id)));
  await show(ctx, record);
  if (!ctx.out.isMachine && !creation.byEarlierRun)
    ctx.out.success(`created ${surface} record ${record.id}${changedIn(ctx.settings())}`);
}

const created = (surface: string, id: string): Created => ({
  what: `${surface} record ${id}`,
  noun: 'record',
  anew: 'to make a new record, give the data another idempotency_key (or none)',
  again: 'the same idempotency_key in the data',
});

/**
 * A replayed creation's record as it is now: soft-deleted or purged since, it is gone (exit 5).
 * An answer that may be this run's own creation (unmarked, or after a lost answer) is read again
 * while a 404 may be a read that lags (readThroughLag), as the creations with a secret are.
 */
async function recordNow(
  ctx: Context,
  platform: Platform,
  surface: string,
  made: RecordData,
  key: string,
  unmarked: EitherRun,
): Promise<RecordData> {
  const gone: Created = { ...created(surface, made.id), unmarked };
  const now = await madeNow(ctx, gone, key, made.created_at, () => platform.records.get(surface, made.id));
  if (now.soft_delete || now.deleted_at) throw goneSince(gone, key, 'deleted');
  return now;
}

export function createCommand(make: MakeContext): Command {
  return dataOptions(
    new Command('create')
      .argument('<surface>', 'surface name')
      .summary(
        'Create a record from a JSON object (an idempotency key is added, so retries never create twice)',
      )
      .description(
        'Create a record from a JSON object. Its idempotency key is the data\'s own "idempotency_key",\n' +
          'or one svc adds, so retries never create twice. Run again with the same idempotency_key\n' +
          '(within 24 hours), it makes no second record: svc says an earlier run created it and shows the\n' +
          'record as it is now, without "Created" (the note on stderr, also with --json, whose output is\n' +
          'the record alone); deleted since: exit 5. When every answer is lost, the error names the key.',
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
