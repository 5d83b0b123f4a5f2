import { Command } from 'commander';
import { RECORD_OWNED_FIELDS } from '../../api/constants.js';
import { holdsPatchMember, sameAsTheyCame, withNumbersOf } from '../../api/numbers-as-they-came.js';
import { sameInstant } from '../../api/time.js';
import { commandLine } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { SvcError, UsageError } from '../../errors.js';
import { quoted, someNames } from '../../output/format.js';
import { shellWord } from '../../system/shell-words.js';
import { changedIn } from '../changed-in.js';
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
  given: Record<string, unknown>,
): Promise<void> {
  let patch = given;
  const platform = await ctx.platform();
  // As `webhooks update`: a patch that changes nothing is not sent, so updated_at keeps its time.
  const before = await unlessUnreadable(onSurface(ctx, surface, () => platform.records.get(surface, id)));
  // A caller who may change the record but not read it (exception.assign alone): the platform
  // judges the patch (a deleted or missing record, or one that changes nothing, is refused) and
  // answers only what was sent.
  if (before === undefined) return sendUnread(ctx, surface, id, patch);
  // The platform refuses any PATCH of a soft-deleted record (409 record_deleted), no-ops too:
  // "nothing changed" would tell a script its fields are in place on a record that is gone.
  if (before.soft_delete || before.deleted_at) {
    const since = before.deleted_at ? ` (since ${before.deleted_at})` : '';
    throw new SvcError('conflict', `${surface} record ${before.id} is deleted${since}; nothing was sent`, {
      code: 'record_deleted',
      hint: deletedRecordHint(commandLine(ctx.settings()), surface),
    });
  }
  patch = withoutOwnFields(ctx, surface, before, patch);
  if (!changes(before, patch)) {
    await show(ctx, before);
    if (!ctx.out.isMachine) ctx.out.info(nothingChanged(surface, before.id, given));
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
    ctx.out.success(`updated ${surface} record ${record.id}${changedIn(ctx.settings())}`);
  }
}

/**
 * The patch without the fields the platform owns that hold the record's own values: what `svc
 * records get --json` printed, edited and piped back (attack20 F1). Setting a field to what it
 * holds changes nothing, so they are left out (said on stderr); one that holds another value is
 * refused before anything is sent. A copy whose `updated_at` differs is stale: sending it would
 * undo the change made since, so the way out is to read the record again, never to drop the
 * field that showed it (review20c F6); a copy of another record (`id`) is read again the same way.
 * `updated_at` is the only staleness guard: the reference offers no conditional PATCH (ETag,
 * If-Match, version), and its times are whole seconds, so a change made in the same second as the
 * record's last one is not seen (review20c F4): the note says so rather than call the copy current.
 */
function withoutOwnFields(
  ctx: Context,
  surface: string,
  record: RecordData,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const owned = Object.keys(patch).filter((key) => (RECORD_OWNED_FIELDS as readonly string[]).includes(key));
  if (owned.length === 0) return patch;
  const differ = owned.filter((key) => !sameOwnValue(patch[key], record[key] ?? null));
  if (differ.length > 0) throw ownFieldsDiffer(ctx, surface, record, patch, differ);
  // A copy sends only what it changes from the record as svc just read it: a field it holds as the
  // record does is left out, so another operator's change to it made after that read (before this
  // PATCH lands) is not undone by the copy's old value (attack28b F5).
  const own = ownFields(record);
  const same = Object.keys(patch).filter(
    (key) => !owned.includes(key) && !IGNORED.includes(key) && holdsPatchMember(own, patch, key),
  );
  if (!ctx.out.isMachine)
    ctx.out.info(
      `note: left out of the patch the fields the platform owns, which match the record's: ${owned.join(', ')}${
        same.length
          ? `, and the ${same.length === 1 ? 'field' : `${same.length} fields`} the copy holds as the record does`
          : ''
      }${owned.includes('updated_at') ? `; ${SAME_SECOND}` : ''}`,
    );
  // The copy keeps its numbers as written (100.50 stays 100.50: attack27b F1).
  return withNumbersOf(
    patch,
    Object.fromEntries(Object.entries(patch).filter(([key]) => !owned.includes(key) && !same.includes(key))),
  );
}

/**
 * A platform-owned field of the copy as the record holds it: the same JSON, or the same instant
 * written otherwise (`…:00Z` and `…:00.000Z`, `+00:00`: review20d D8), as times are compared everywhere.
 */
function sameOwnValue(copy: unknown, held: unknown): boolean {
  if (typeof copy === 'string' && typeof held === 'string') return sameInstant(copy, held);
  return JSON.stringify(copy) === JSON.stringify(held);
}

/** What a matching updated_at does not tell (review20c F4): said with every copy sent. */
const SAME_SECOND =
  "updated_at is compared to the second: a change made by someone else in the same second as the record's last one, before svc read it, is not seen, and the copy would undo it (a field whose copy differs from the record is sent)";

/** The refusal of a patch whose platform-owned fields differ from the record's (review20c F6). */
function ownFieldsDiffer(
  ctx: Context,
  surface: string,
  record: RecordData,
  patch: Record<string, unknown>,
  differ: string[],
): UsageError {
  const get = commandLine(ctx.settings())(`records get ${shellWord(surface)} ${shellWord(record.id)} --json`);
  const readAgain = `read the record again (\`${get}\`) and make the edit on that copy`;
  if (differ.includes('id')) {
    return new UsageError(
      `the patch is a copy of another record (id ${quoted(patch.id)}, not ${quoted(record.id)}): the fields the platform owns cannot be set; nothing was sent`,
      { code: 'read_only_fields', hint: readAgain },
    );
  }
  if (differ.includes('updated_at')) {
    return new UsageError(
      `${surface} record ${record.id} changed since this copy was read: its updated_at is ${quoted(record.updated_at ?? null)}, the copy's ${quoted(patch.updated_at)}; sending the copy would undo that change, so nothing was sent`,
      {
        code: 'read_only_fields',
        hint: `${readAgain}; leaving updated_at out of this copy would send the old values`,
      },
    );
  }
  const said = differ.map(
    (key) => `${key} ${quoted(patch[key])} (the record holds ${quoted(record[key] ?? null)})`,
  );
  return new UsageError(
    `the patch sets fields the platform owns, which the record holds otherwise: ${someNames(said)}; nothing was sent`,
    {
      code: 'read_only_fields',
      hint: `they cannot be set: drop them (jq 'del(${differ.map((key) => `.${key}`).join(', ')})'), or ${readAgain}`,
    },
  );
}

/** The patch of a record the caller cannot read: sent as it is, the answer (what was sent) printed. */
async function sendUnread(ctx: Context, surface: string, id: string, patch: Record<string, unknown>) {
  const platform = await ctx.platform();
  const record: RecordData = await onSurface(ctx, surface, () => platform.records.update(surface, id, patch));
  await show(ctx, record);
  // The answer is what was sent, as sent (null: removed), not the record as it now is.
  const missing = Object.keys(patch).filter(
    (key) => !IGNORED.includes(key) && !sameAsTheyCame(record, patch, key),
  );
  if (missing.length > 0) {
    ctx.out.warn(
      `the platform answered the update, but its answer for ${surface} record ${record.id} does not hold the patch for ${missing.join(', ')}`,
    );
    return;
  }
  if (!ctx.out.isMachine) {
    ctx.out.success(
      `updated ${surface} record ${record.id}${changedIn(ctx.settings())} (you cannot read it: the answer holds only what you sent)`,
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
    ? `nothing changed: the patch {} names no field; ${surface} record ${id} is as it was`
    : `nothing changed: ${surface} record ${id} already has those fields`;
}

export function updateCommand(make: MakeContext): Command {
  return dataOptions(
    new Command('update')
      .argument('<surface>', 'surface name')
      .argument('<id>', 'record id')
      .description(
        'Update a record with a JSON Merge Patch (RFC 7396): fields merge, null removes one; a patch that\n' +
          'changes nothing is not sent ("nothing changed"; numbers are compared by the exact value the\n' +
          'platform wrote: 100.50 is 100.5, 1.000000000000000001 is not 1); an answer that does not hold the patch gets a warning; a soft-deleted record\n' +
          'cannot be changed (exit 6). To a caller who may change the record but not read it (e.g. exception.assign\n' +
          'alone) the patch is sent as it is and the platform answers only what was sent; it judges such a patch\n' +
          'on what it sends, each member as a change of it whatever the record holds (status or kind: every\n' +
          "kind's resolve permission), so a refusal never tells what the record held",
      ),
  )
    .addHelpText(
      'after',
      examples(
        [
          'svc records update reconciliations rec_1a2b… --data \'{"status":"closed","note":null}\'',
          'set one field, remove another',
        ],
        [
          'svc records get exceptions rec_1a2b… --json | jq \'.title = "edited"\' | svc records update exceptions rec_1a2b… --data-file -',
          "edit what get printed: the platform's own fields (id, updated_at, …) are left out while they match the record's; a copy whose updated_at differs is refused (read it again), but updated_at is to the second: a change made by someone else in the same second is undone by the copy",
        ],
      ),
    )
    .action(async (surface: string, id: string, flags: Record<string, unknown>, cmd: Command) => {
      const name = checkSurface(surface);
      const recordId = nonEmpty('ID', id);
      const ctx = await make(cmd);
      const patch = await readData(ctx, flags, true);
      await runRecordsUpdate(ctx, name, recordId, patch!);
    });
}
