import { Command } from 'commander';
import type { Context } from '../../context.js';
import { confirmDestructive, deleted, examples, type MakeContext, nonEmpty, tenantLabel } from '../kit.js';
import { checkSurface, onSurface, type RecordData, unlessUnreadable } from './shared.js';

export async function runRecordsDelete(ctx: Context, surface: string, id: string): Promise<void> {
  const platform = await ctx.platform();
  // The platform's delete of a deleted record answers as if it had deleted it: look first. A
  // caller who may delete it but not read it (write without read) sends the DELETE unread: the
  // platform refuses a missing or deleted id as it refuses the read (review16d D4).
  const before = await unlessUnreadable(onSurface(ctx, surface, () => platform.records.get(surface, id)));
  if (before !== undefined && (before.soft_delete || before.deleted_at)) {
    if (ctx.out.isMachine) return ctx.out.json(verdict('already_deleted', before));
    ctx.out.info(
      `Nothing changed: ${surface} record ${id} was deleted already, at ${before.deleted_at ?? 'an unknown time'}; it is to be purged at ${before.purge_at ?? 'the end of its 30 days'}.`,
    );
    return;
  }
  await confirmDestructive(
    ctx,
    async () =>
      `Delete ${surface} record ${id} in ${await tenantLabel(ctx)}? It is purged for good after 30 days.`,
    `deleting ${surface} record ${id}`,
  );
  const record: RecordData | undefined = await deleted(ctx, platform.records.delete(surface, id), {
    act: 'delete',
    thing: 'the record',
    done: 'deleted',
    subject: `${surface} record ${id} is gone`,
    target: { surface, id },
  });
  if (record === undefined) return;
  if (ctx.out.isMachine) return ctx.out.json(verdict('deleted', record));
  // The purge is ahead (30 days): "to be purged", never "purged", as `records get` says "purge at".
  const purged = record.purge_at ? ` and to be purged at ${record.purge_at}` : '';
  const unread =
    before === undefined ? ' (you cannot read it: the answer holds only what the delete did)' : '';
  ctx.out.success(`Deleted ${surface} record ${record.id}; it is hidden from lists${purged}${unread}`);
}

/**
 * svc's verdict beside the record, never among its fields: a record's fields are the user's (one
 * may be named `outcome`), so `{...record, outcome}` could say "already_deleted" of a record this
 * run deleted, or hide the record's own value. One shape whatever the verdict.
 */
const verdict = (outcome: 'deleted' | 'already_deleted', record: RecordData) => ({ outcome, record });

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
        'a terminal). A record deleted already is left as it is ("Nothing changed", exit 0). To a caller\n' +
        'who may delete the record but not read it (write without read) the DELETE is sent without a\n' +
        'look first, and the platform refuses a missing or deleted id with the one refusal of its read\n' +
        '(exit 4); the answer holds only what the delete did. --json prints\n' +
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
