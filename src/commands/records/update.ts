import { Command } from 'commander';
import { RECORD_OWNED_FIELDS } from '../../api/constants.js';
import { holdsPatchMember, sameAsTheyCame } from '../../api/numbers-as-they-came.js';
import { commandLine } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { SvcError } from '../../errors.js';
import { shellWord } from '../../system/shell-words.js';
import { examples, type MakeContext, nonEmpty } from '../kit.js';
import {
  checkSurface,
  dataOptions,
  deletedRecordHint,
  onSurface,
  ownFields,
  type RecordData,
  readData,
  show,
  unlessUnreadable,
} from './shared.js';

export async function runRecordsUpdate(
  ctx: Context,
  surface: string,
  id: string,
  patch: Record<string, unknown>,
): Promise<void> {
  const platform = await ctx.platform();
  // As `webhooks update`: a patch that changes nothing is not sent, so updated_at keeps its time.
  const before = await unlessUnreadable(onSurface(ctx, surface, () => platform.records.get(surface, id)));
  // A caller who may change the record but not read it (exception.assign alone): the platform
  // judges the patch (a deleted or missing record, or one that changes nothing, is refused) and
  // answers only what was sent.
  if (before === undefined) return sendUnread(ctx, surface, id, patch);
  // The platform refuses any PATCH of a soft-deleted record (409 record_deleted), no-ops too:
  // "Nothing changed" would tell a script its fields are in place on a record that is gone.
  if (before.soft_delete || before.deleted_at) {
    const since = before.deleted_at ? ` (since ${before.deleted_at})` : '';
    throw new SvcError('conflict', `${surface} record ${before.id} is deleted${since}; nothing was sent`, {
      code: 'record_deleted',
      hint: deletedRecordHint(commandLine(ctx.settings()), surface),
    });
  }
  if (!changes(before, patch)) {
    await show(ctx, before);
    if (!ctx.out.isMachine) ctx.out.info(nothingChanged(surface, before.id, patch));
    return;
  }
  const record: RecordData = await onSurface(ctx, surface, () => platform.records.update(surface, id, patch));
  await show(ctx, record);
  // The answer is the record as it now is: one that does not hold the patch is not "Updated" or
  // "already has those fields" (a server that ignored or rounded a value).
  const missing = notHeld(record, patch);
  if (missing.length > 0) {
    const get = commandLine(ctx.settings())(`records get ${shellWord(surface)} ${shellWord(record.id)}`);
    ctx.out.warn(
      `the platform answered the update, but its ${surface} record ${record.id} does not hold the patch for ${missing.join(', ')}; check it with \`${get}\``,
    );
    return;
  }
  if (ctx.out.isMachine) return;
  // What changed is what the answer shows: a server may have found nothing to change either.
  if (sameFields(record, before) && record.updated_at === before.updated_at) {
    ctx.out.info(nothingChanged(surface, record.id, patch));
  } else {
    ctx.out.success(`Updated ${surface} record ${record.id}`);
  }
}

/** The patch of a record the caller cannot read: sent as it is, the answer (what was sent) printed. */
async function sendUnread(ctx: Context, surface: string, id: string, patch: Record<string, unknown>) {
  const platform = await ctx.platform();
  const record: RecordData = await onSurface(ctx, surface, () => platform.records.update(surface, id, patch));
  await show(ctx, record);
  // The answer is what was sent, as sent (null: removed), not the record as it now is.
  const missing = Object.keys(patch).filter(
    (key) => !IGNORED.includes(key) && JSON.stringify(record[key]) !== JSON.stringify(patch[key]),
  );
  if (missing.length > 0) {
    ctx.out.warn(
      `the platform answered the update, but its answer for ${surface} record ${record.id} does not hold the patch for ${missing.join(', ')}`,
    );
    return;
  }
  if (!ctx.out.isMachine) {
    ctx.out.success(
      `Updated ${surface} record ${record.id} (you cannot read it: the answer holds only what you sent)`,
    );
  }
}

/**
 * Whether a merge patch would change the record: a field of the platform's named in it always
 * counts (the server decides; the sandbox refuses it); the record's own fields by RFC 7396.
 */
function changes(record: RecordData, patch: Record<string, unknown>): boolean {
  const owned = Object.keys(patch).some((key) => (RECORD_OWNED_FIELDS as readonly string[]).includes(key));
  return owned || notHeld(record, patch).length > 0;
}

/**
 * The record's own fields the patch would change. Numbers are compared by the exact value of the
 * text the platform wrote: 100.50 holds a patch of 100.5, 1.000000000000000001 does not hold 1.
 */
function notHeld(record: RecordData, patch: Record<string, unknown>): string[] {
  const own = ownFields(record);
  return Object.keys(patch).filter(
    (key) =>
      !(RECORD_OWNED_FIELDS as readonly string[]).includes(key) &&
      !IGNORED.includes(key) &&
      !holdsPatchMember(own, patch, key),
  );
}

/**
 * Members of a patch the platform ignores, never stored (an idempotency_key: the PATCH's own key
 * travels in the Idempotency-Key header), so no answer holds them and none is a change: no warning
 * for their absence (review16d D7).
 */
const IGNORED: readonly string[] = ['idempotency_key'];

/** The same own fields, every number compared by the exact value of its text. */
function sameFields(a: RecordData, b: RecordData): boolean {
  return sameAsTheyCame({ own: ownFields(a) }, { own: ownFields(b) }, 'own');
}

function nothingChanged(surface: string, id: string, patch: Record<string, unknown>): string {
  return Object.keys(patch).length === 0
    ? `Nothing changed: the patch {} names no field; ${surface} record ${id} is as it was.`
    : `Nothing changed: ${surface} record ${id} already has those fields.`;
}

export function updateCommand(make: MakeContext): Command {
  return dataOptions(
    new Command('update')
      .argument('<surface>', 'surface name')
      .argument('<id>', 'record id')
      .description(
        'Update a record with a JSON Merge Patch (RFC 7396): fields merge, null removes one; a patch that\n' +
          'changes nothing is not sent ("Nothing changed"; numbers are compared by the exact value the\n' +
          'platform wrote: 100.50 is 100.5, 1.000000000000000001 is not 1); an answer that does not hold the patch gets a warning; a soft-deleted record\n' +
          'cannot be changed (exit 6). To a caller who may change the record but not read it (e.g. exception.assign\n' +
          'alone) the patch is sent as it is and the platform answers only what was sent; it judges such a patch\n' +
          'on what it sends, each member as a change of it whatever the record holds (status or kind: every\n' +
          "kind's resolve permission), so a refusal never tells what the record held",
      ),
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
