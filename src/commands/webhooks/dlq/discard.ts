// Over 300 lines (333): `dlq discard` is one bulk verb — its flags, the entries it takes (ids or
// --all under filters, a snapshot of the queue), the question naming what goes and in which tenant,
// and the run's summary — and each part reads the others' state; split, each would pass it around.
import { Command, Option } from 'commander';
import type { CallerAuthority } from '../../../api/caller-authority.js';
import type { DlqEntry } from '../../../api/schemas/webhooks.js';
import type { BulkItem, Worker } from '../../../bulk/item.js';
import type { Journal } from '../../../bulk/journal.js';
import { type BulkVerb, runBulkOperation } from '../../../bulk/operation.js';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { counted } from '../../../output/format.js';
import type { Column } from '../../../output/output.js';
import { withConcurrency } from '../../../system/command-scope.js';
import { type BulkFlags, onlyWith, parseBulkFlags, withBulkFlags } from '../../bulk-flags.js';
import { changedIn } from '../../changed-in.js';
import { confirmDestructive, examples, type MakeContext, nonEmpty, tenantLabel } from '../../kit.js';
import { type WithOptionalWebhook, withWebhook } from '../../pick.js';
import { callerAuthority, refusedItem, UNCHECKED_HOLDINGS } from '../caller.js';
import { webhookArg } from '../shared.js';
import { attemptShared } from './attempt-shared.js';
import {
  type DlqFilterFlags,
  dlqRunScope,
  filterOptions,
  refuseRepeatedIds,
  refuseUnknownKind,
  unsubscribedNote,
} from './filters.js';
import { entryFields, type LeftQueue, leftText, type Planned, whereNow, whyGone } from './left.js';
import { QueueSnapshot, withLaterNoted } from './queue.js';

export interface DiscardOptions extends BulkFlags {
  webhook: string;
  /** Entry ids (dlq_…); empty with --all. */
  entries: string[];
  all: boolean;
  /** --since/--until durations count from the run's anchor (QueueSnapshot.forRun). */
  filters: DlqFilterFlags;
  filterFlags: Array<string | undefined>;
  limit: number | undefined;
  /** --unlisted-event-type: --event-type is taken as given (refuseUnknownKind). */
  unlistedEventType: boolean;
}

export function parseDiscard(
  webhook: unknown,
  entries: unknown[],
  flags: Record<string, unknown>,
): WithOptionalWebhook<DiscardOptions> {
  const all = flags.all === true;
  const named = entries.map((e) => nonEmpty('ENTRY', e));
  // Nothing named, not even the webhook: both halves at once, not "pass --all" and then "needs a
  // WEBHOOK id" (attack25a F8).
  if (!all && named.length === 0 && webhook === undefined) {
    throw new UsageError('name a webhook and the entries to discard, or a webhook and --all', {
      hint: 'svc webhooks dlq discard WEBHOOK ENTRY... discards those; svc webhooks dlq discard WEBHOOK --all every queued entry (with filters)',
    });
  }
  if (all === named.length > 0) {
    throw new UsageError(
      all ? 'give entry ids or --all, not both' : 'name the entries to discard, or pass --all',
      {
        hint: 'svc webhooks dlq discard WEBHOOK ENTRY... discards those; --all every queued entry (with filters)',
      },
    );
  }
  if (!all) onlyWith(flags, ['eventType', 'unlistedEventType', 'since', 'until', 'limit'], '--all');
  refuseRepeatedIds(named, 'entry');
  return {
    webhook: webhookArg(webhook),
    entries: named,
    all,
    ...dlqRunScope(flags),
    ...parseBulkFlags(flags),
  };
}

interface DiscardRow {
  status?: string;
  plan?: string;
  dlq_entry_id: string;
  /** dlq_entry_id under its name before session 27 (review27a F9). */
  entry_id?: string;
  delivery_id?: string;
  event_type?: string;
  event_id?: string;
  discarded_at?: string | null;
  error?: { message: string };
  reason?: string;
  replayed_as?: string;
  delivered_by?: string;
}

const COLUMNS = (dryRun: boolean): Array<Column<DiscardRow>> => [
  { header: dryRun ? 'plan' : 'result', value: (r) => (dryRun ? r.plan : r.status), kind: 'status' },
  { header: 'entry', value: (r) => r.dlq_entry_id, kind: 'id' },
  { header: 'delivery', value: (r) => r.delivery_id, kind: 'id' },
  { header: 'event', value: (r) => r.event_type, kind: 'name' },
  { header: 'discarded', value: (r) => r.discarded_at, kind: 'time' },
  // In the words `replay --dlq` uses for the same reasons; --json and --ndjson keep the reason codes.
  {
    header: 'detail',
    value: (r) =>
      r.error?.message ??
      leftText(r, 'discard') ??
      (r.reason === 'journal' ? 'done in an earlier run' : r.reason),
    kind: 'detail',
  },
];

export function runDiscard(ctx: Context, options: DiscardOptions): Promise<void> {
  return withConcurrency(() => discard(ctx, options));
}

async function discard(ctx: Context, options: DiscardOptions): Promise<void> {
  const platform = await ctx.platform();
  const { webhook } = options;
  if (options.all) {
    await refuseUnknownKind(platform, webhook, options.filters.eventType, options.unlistedEventType);
  }
  const queue = options.all
    ? new QueueSnapshot(platform, webhook, options.filters, options.limit)
    : undefined;
  /** An entry that is not queued, as a skipped row saying why (it is not discarded). */
  const skip = (how: LeftQueue) => (queue ? queue.left(how) : { status: 'skipped', ...how });
  /**
   * The entry as the queue listed it (--all), or a named one as it is now; the row of one that
   * left the queue (discarded, replayed or delivered) is skipped, saying why.
   */
  const seen = async ({ id, listed }: Target, signal: AbortSignal) => {
    const entry = listed ?? (await platform.webhooks.dlq.get(webhook, id, { signal }));
    const gone = listed ? undefined : whyGone(entry);
    return { entry, gone, row: gone ? { ...entryFields(entry), ...skip(gone) } : entryFields(entry) };
  };
  /** A dry run's view of what the caller holds (prepare): a discard the platform refuses them fails its row. */
  let authority: CallerAuthority | undefined;
  // What would be dropped, as `replay --dlq --dry-run` says it.
  const look: Worker<Target> = async ({ data }, { signal }) => {
    if (data.planned) return stopped(data.planned);
    const { gone, row } = await seen(data, signal);
    const refusal = gone ? undefined : authority?.discard();
    if (refusal) throw refusedItem(refusal);
    return row;
  };
  /**
   * An entry the run this one resumes took that left the queue while it was stopped: discarded
   * by an attempt of that run whose answer was lost, or by another run (nothing tells them apart),
   * or replayed or delivered. Skipped, saying so, so "run the same command again to settle them"
   * is true; its look-up's error fails the row, unjournaled: owed still.
   */
  const stopped = async (planned: Planned) => ({
    ...(planned.entry ? entryFields(planned.entry) : {}),
    ...queue!.leftWhileStopped(planned),
  });
  const work: Worker<Target> = async (item, context) => {
    if (item.data.planned) return stopped(item.data.planned);
    const { entry, gone, row } = await seen(item.data, context.signal);
    if (gone) return row;
    try {
      // The platform's discard answers alike whether it discarded the entry then or before, so
      // every run (named or --all, of this principal) sends the key all share for the entry as
      // it saw it queued (attemptShared): the run whose discard came second is answered
      // from the record. A named entry's key is known once it is looked at.
      const idempotencyKey = item.shared
        ? context.idempotencyKey
        : context.keyFor(attemptShared('discard', entry));
      const { data: done, response } = await platform.webhooks.dlq
        .discard(webhook, item.data.id, { signal: context.signal, idempotencyKey })
        .withResponse();
      const detail = entryFields(done);
      // A stored answer is not this run's to claim: the key is shared by every run that saw the
      // entry queued, and after a lost answer (response.afterLostAnswer) the stored discard may be
      // this run's attempt or another run's that came first; nothing tells them apart. Skipped,
      // in words that say both (leftText), rather than a discard claimed twice.
      return response.replayed
        ? { ...detail, ...skip({ reason: 'already_discarded', discarded_at: done.discarded_at }) }
        : { ...detail, discarded_at: done.discarded_at };
    } catch (error) {
      // Replayed (its event was sent) or delivered since it was listed or looked at: not discarded.
      const { entry, gone } = await whereNow(error, () =>
        platform.webhooks.dlq.get(webhook, item.data.id, { signal: context.signal }),
      );
      return { ...entryFields(entry), ...skip(gone) };
    }
  };
  const verb: BulkVerb<Target, DiscardRow> = {
    kind: 'webhooks-dlq-discard',
    identity: [webhook, options.all ? options.filterFlags : options.entries],
    journal: options.journal,
    dryRun: options.dryRun,
    concurrency: options.concurrency,
    words: { act: 'discard', doing: `discarding from ${webhook}`, done: 'discarded' },
    where: () => changedIn(ctx.settings()),
    // A dry run that could not learn what the caller holds says its counts were not checked against it.
    unchecked: () => (options.dryRun && authority === undefined ? UNCHECKED_HOLDINGS : undefined),
    prepare: async (_run, journal) => {
      if (options.dryRun)
        authority = await callerAuthority(ctx, platform, 'which discards the platform refuses you');
      return queue ? queue.forRun(ctx, journal, () => ctx.clock.now()) : options.entries.length;
    },
    items: (_run, journal, settled) =>
      queue
        ? entries(queue, journal, !options.dryRun, settled)
        : options.entries.map((id) => ({ key: id, data: { id } })),
    // The entries a resumed --all run discarded have left the queue: each is a journal row all the same.
    ...(queue ? { resumeNote: () => queue.resumeNote() } : {}),
    ...(queue ? { fromJournal: (id: string) => ({ key: id, data: { id } }) } : {}),
    work,
    plan: look,
    present: ({ status, plan: planned, key: _key, line: _line, ...result }, { data }) => ({
      ...(planned === undefined ? { status } : { plan: planned }),
      dlq_entry_id: data.id,
      // Its name before session 27, kept beside it so no script that read it breaks, as the
      // verdicts keep their old keys (review27a F9).
      entry_id: data.id,
      ...result,
    }),
    columns: COLUMNS,
    describe: (r) => `${r.dlq_entry_id}: ${r.error?.message}`,
    confirm: (count) =>
      confirmDestructive(
        ctx,
        async () =>
          `Discard ${count === undefined ? 'the dead-letter entries' : queue ? counted(count, 'dead-letter entry', 'dead-letter entries') : namedStill(count)} of ${webhook} in ${await tenantLabel(ctx)}? Their deliveries will not be replayed from the queue.`,
        `discarding dead-letter entries of ${webhook}`,
      ),
    single: !options.all && options.entries.length === 1,
    empty: async () =>
      `nothing to discard: no queued dead-letter entry matches${await unsubscribedNote(platform, webhook, options.filters.eventType)}`,
  };
  await withLaterNoted(
    ctx,
    queue,
    'discard',
    runBulkOperation(ctx, verb),
    options.dryRun ? undefined : 'discarded',
  );
  await queue?.noteLater(ctx, 'discard', options.dryRun);
}

/** An entry to discard: its id, and the entry as the queue listed it (--all). */
interface Target {
  id: string;
  listed?: DlqEntry;
  /** An entry the run this one resumes took, gone from the queue while it was stopped. */
  planned?: Planned;
}

/**
 * The queue's entries, each kept in the journal's plan as the run takes it (`record`), then those
 * the run this one resumes took that left the queue (QueueSnapshot.planned).
 */
async function* entries(
  queue: QueueSnapshot,
  journal: Journal,
  record: boolean,
  settled: () => Promise<void>,
): AsyncGenerator<BulkItem<Target>> {
  for await (const next of queue.planned(journal, record, record ? settled : undefined)) {
    if ('left' in next) {
      yield { key: next.left.id, data: { id: next.left.id, planned: next.left } };
      continue;
    }
    const entry = next.queued;
    yield {
      key: entry.id,
      data: { id: entry.id, listed: entry },
      shared: attemptShared('discard', entry),
    };
  }
}

export function discardCommand(make: MakeContext): Command {
  const command = new Command('discard')
    .summary('Discard dead-letter entries: named ones, or every queued one (--all)')
    .description(
      'Remove entries from the dead-letter queue without replaying them: the entries named (dlq_… ids, as\n' +
        '`svc webhooks dlq` lists them), or with --all every queued entry, filtered by --event-type, --since\n' +
        'and --until, at most --limit. A discarded entry stays readable (--status discarded) and its delivery\n' +
        'can still be replayed by id. An entry replayed already (its event was sent, perhaps by a replay run\n' +
        'going at the same time) is not discarded: its row is skipped, saying so and naming the replay\n' +
        '(already_replayed and replayed_as with --json). So is one another discard run of the same login\n' +
        'discarded first (already_discarded): each discard is claimed by one run.\n' +
        'Asks first on a terminal, naming the tenant and the count; needs --yes\n' +
        'otherwise. Runs like every bulk command: --concurrency, a journal to resume from (exit 7 when some\n' +
        'failed, 130 after Ctrl-C, 141 when stdout closes), --dry-run to see what would go (without\n' +
        "webhook.manage, every row planned fail with a refusal like the real run's: the same code, in svc's\n" +
        'words). An --all run is\n' +
        'the entries dead-lettered before it started (to the second): a replay another run made that failed\n' +
        'again after this run started is left queued, never discarded beside it; resumed, it shows what it\n' +
        'discarded as journal rows,\n' +
        'each entry it had taken that left the queue meanwhile as a skipped row (while_stopped: its discard\n' +
        "whose answer was lost, or another run's); a run, new or resumed, counts newer entries, a new run's (the\n" +
        'same command once it is done). A listing that ends short of the count (a server whose cursor shifts as entries\n' +
        "leave the queue) is read again from the start once nothing is in flight, and the run's entries still\n" +
        'queued are discarded; entries it still cannot list end the run with exit 7.',
    )
    .argument('[webhook]', 'webhook id')
    .argument('[entry...]', 'dead-letter entry ids (dlq_…)')
    .addOption(new Option('--all', 'every queued entry that matches the filters'));
  for (const option of filterOptions('with --all: ')) command.addOption(option);
  command.addOption(new Option('--limit <n>', 'with --all: at most N entries in total'));
  return withBulkFlags(command, undefined, 'list what would be discarded, change nothing')
    .addHelpText(
      'after',
      examples(
        ['svc webhooks dlq discard wh_123 dlq_abc', 'discard one entry (asks first)'],
        ['svc webhooks dlq discard wh_123 --all --event-type webhook.test --dry-run', 'what would go'],
        [
          'svc webhooks dlq discard wh_123 --all --until 7d --yes',
          'everything older than a week, in a script',
        ],
      ),
    )
    .action(
      async (webhook: string | undefined, ids: string[], flags: Record<string, unknown>, cmd: Command) => {
        const ctx = await make(cmd);
        const parsed = parseDiscard(webhook, ids, flags);
        await runDiscard(ctx, await withWebhook(ctx, parsed));
      },
    );
}

/**
 * Named entries, in the question: svc has not read them yet (each is read as its row runs), so the
 * count is of those named, and one that left the queue already is said to be skipped, never
 * counted as discarded (attack29a F6: "Discard 3 …" then "2 discarded, 1 skipped").
 */
const namedStill = (count: number) =>
  count === 1
    ? 'the dead-letter entry named, if it is still queued (one discarded, replayed or delivered already is skipped),'
    : `the ${count.toLocaleString('en')} dead-letter entries named that are still queued (one discarded, replayed or delivered already is skipped),`;
