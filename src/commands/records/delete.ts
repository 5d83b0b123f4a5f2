import { Command } from 'commander';
import { RECORD_SURFACES } from '../../api/operations.js';
import { blindNeed } from '../../api/record-acts.js';
import { svcCommand } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { SvcError } from '../../errors.js';
import { ApiError, OutcomeUnknownError } from '../../http/errors.js';
import { type ApiErrorClass, retyped } from '../../platform/errors.js';
import { shellWord } from '../../system/shell-words.js';
import { alreadyGone } from '../already-gone.js';
import { changedIn } from '../changed-in.js';
import { confirmDestructive, deleted, examples, type MakeContext, nonEmpty, tenantLabel } from '../kit.js';
import { verdict } from '../verdict.js';
import { checkSurface, onSurface, type RecordData, unlessUnreadable } from './shared.js';

export async function runRecordsDelete(ctx: Context, surface: string, id: string): Promise<void> {
  const platform = await ctx.platform();
  // The platform's delete of a deleted record answers as if it had deleted it: look first. A
  // caller who may delete it but not read it (write without read) sends the DELETE unread: the
  // platform refuses a missing or deleted id as it refuses the read (review16d D4).
  const before = await unlessUnreadable(onSurface(ctx, surface, () => platform.records.get(surface, id)));
  if (before !== undefined && (before.soft_delete || before.deleted_at)) {
    return alreadyGone(ctx, {
      thing: `${surface} record ${id}`,
      done: 'deleted',
      at: before.deleted_at,
      more: `; it is to be purged at ${before.purge_at ?? 'the end of its 30 days'}`,
      json: verdict('already_deleted', 'record', before),
    });
  }
  await confirmDestructive(
    ctx,
    async () =>
      `Delete ${surface} record ${id} in ${await tenantLabel(ctx)}? It is purged for good after 30 days.`,
    `deleting ${surface} record ${id}`,
  );
  const sent = platform.records.delete(surface, id);
  const record: RecordData | undefined = await deleted(
    ctx,
    before === undefined ? unreadDelete(ctx, sent, surface, id) : sent,
    {
      act: 'delete',
      thing: 'the record',
      done: 'deleted',
      subject: `${surface} record ${id}${changedIn(ctx.settings())} is gone`,
      target: { surface, id },
      noun: 'record',
    },
  );
  if (record === undefined) return;
  if (ctx.out.isMachine) return ctx.out.json(verdict('deleted', 'record', record));
  // The purge is ahead (30 days): "to be purged", never "purged", as `records get` says "purge at".
  const purged = record.purge_at ? ` and to be purged at ${record.purge_at}` : '';
  const unread =
    before === undefined ? ' (you cannot read it: the answer holds only what the delete did)' : '';
  ctx.out.success(
    `deleted ${surface} record ${record.id}${changedIn(ctx.settings())}; it is hidden from lists${purged}${unread}`,
  );
}

/**
 * A DELETE by a caller who cannot read the record (review16f F1): the platform refuses them a
 * deleted id with the one refusal of any change, so after a lost answer that refusal is most
 * likely the lost attempt's doing (a platform that ignores Idempotency-Key on DELETE), never a
 * permission to ask for; and an answer lost for good is one svc cannot check for them. Both are
 * an outcome unknown (exit 1: svc cannot tell it from a refusal of a caller who may not delete).
 */
async function unreadDelete<T>(ctx: Context, sent: Promise<T>, surface: string, id: string): Promise<T> {
  const read = RECORD_SURFACES[surface]?.read ?? 'the read permission';
  // The re-run is the check (review17 F2): a delete that did not happen is made by it (✓), and one
  // that did is refused as a missing or deleted id is (the platform's blind refusal, exit 4).
  const check = `someone who holds ${read} can check with \`${svcCommand(ctx.settings(), `records get ${surface} ${shellWord(id)}`)}\``;
  const hint = `you cannot read ${surface} (${read}), so svc cannot look for you; running the same command again tells: it deletes the record if the lost attempt did not (✓), and if that attempt did, it is refused as a missing or deleted record is (exit 4, "needs one that exists and is not deleted"), which for you means it is most likely deleted; ${check}`;
  try {
    return await sent;
  } catch (error) {
    if (error instanceof OutcomeUnknownError) throw error.withHint(hint);
    // The re-run that hint asks for: its refusal says what it means after a lost answer (the
    // platform's blind refusal of a delete, src/api/record-acts.ts blindNeed, is given only for a
    // record missing or deleted), not another credential to find (session 17).
    if (
      error instanceof ApiError &&
      error.lostAnswer === undefined &&
      error.status === 403 &&
      error.message.startsWith(blindNeed(surface, read, 'delete'))
    ) {
      throw retyped(
        error,
        error.constructor as ApiErrorClass,
        `the platform refuses you this delete only when ${surface} record ${id} is missing or deleted: after an earlier run of this delete whose answer was lost, that run most likely deleted it; ${check}`,
      );
    }
    if (!(error instanceof ApiError && error.lostAnswer !== undefined && error.status === 403)) throw error;
    // `--json` carries what became of the lost attempt (`lost_answer`), the one shape of every error
    // after one (review24f M1), and `outcome: unknown`, as every error about a change that may have
    // been made does (session 25).
    const unknown = new SvcError(
      'failure',
      `the platform's answer to the delete was lost (${error.lostAnswer}) and its retry was refused (HTTP 403${error.code ? ` ${error.code}` : ''}${error.requestId ? `, request ${error.requestId}` : ''}) as a deleted record is refused to a caller who cannot read it; most likely this command deleted it, so the outcome is unknown`,
      { code: 'outcome_unknown', outcome: 'unknown', hint, cause: error },
    );
    throw Object.assign(unknown, { lostAnswer: error.lostAnswer });
  }
}

export function deleteCommand(make: MakeContext): Command {
  return new Command('delete')
    .alias('rm')
    .argument('<surface>', 'surface name')
    .argument('<id>', 'record id')
    .summary(
      'Soft-delete a record: hidden from lists now, purged after 30 days (asks first; --yes when not on a terminal)',
    )
    .description(
      'Soft-delete a record: hidden from lists now, purged after 30 days (asks first; --yes when not on\n' +
        'a terminal). A record deleted already is left as it is ("nothing changed", exit 0). To a caller\n' +
        'who may delete the record but not read it (write without read) the DELETE is sent without a\n' +
        'look first, and the platform refuses a missing or deleted id with the one refusal of its read\n' +
        '(exit 4); the answer holds only what the delete did. Such a delete whose answer was lost, and whose\n' +
        'retry is refused so, most likely deleted it: exit 1, outcome unknown (svc cannot look for them), never\n' +
        'a permission to ask for; running it again tells: it deletes the record if that attempt did not (✓),\n' +
        'else it gets the refusal of a missing or deleted id (exit 4), which then says the record is most likely\n' +
        'deleted. --json prints\n' +
        '{"outcome": "deleted" | "already_deleted", "record": {…}}: svc\'s verdict beside the record, never\n' +
        'among its fields (a record may have a field named "outcome").',
    )
    .addHelpText(
      'after',
      examples(['svc records delete reconciliations rec_1a2b… --yes', 'delete without asking']),
    )
    .action(async (surface: string, id: string, _flags: unknown, cmd: Command) => {
      const name = checkSurface(surface);
      await runRecordsDelete(await make(cmd), name, nonEmpty('ID', id));
    });
}
