import { Command, Option } from 'commander';
import type { DlqEntry, DlqList, WebhookDelivery } from '../../api/schemas/webhooks.js';
import { finishBulk } from '../../bulk/finish.js';
import { defaultJournalPath, Journal } from '../../bulk/journal.js';
import { type BulkItem, type BulkResult, runBulk } from '../../bulk/runner.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { deriveIdempotencyKey } from '../../http/idempotency.js';
import { path } from '../../http/path.js';
import type { Column } from '../../output/output.js';
import { createProgress, type Progress } from '../../output/progress.js';
import { parseBulkFlags, withBulkFlags } from '../bulk-flags.js';
import { examples, intFlag, type MakeContext, nonEmpty } from '../kit.js';
import { type WithOptionalWebhook, withWebhook } from '../pick.js';
import { type DlqFilters, dlqQuery, parseDlqFilters } from './dlq/ls.js';
import { webhookArg } from './shared.js';

export interface ReplayOptions {
  webhook: string;
  /** The filters as typed (a journal is found again by them, even when --since is relative). */
  filterFlags: Record<string, string | undefined>;
  /** Explicit deliveries; empty with --dlq. */
  deliveries: string[];
  dlq: boolean;
  filters: DlqFilters;
  limit: number | undefined;
  concurrency: number;
  dryRun: boolean;
  journal: string | undefined;
}

const PAGE = 200;

export function parseReplay(
  webhook: unknown,
  deliveries: unknown[],
  flags: Record<string, unknown>,
  nowMs: number,
): WithOptionalWebhook<ReplayOptions> {
  const dlq = flags.dlq === true;
  const ids = deliveries.map((d) => nonEmpty('DELIVERY', d));
  if (dlq && ids.length > 0) {
    throw new UsageError('give delivery ids or --dlq, not both', {
      hint: 'svc webhooks replay WEBHOOK DELIVERY... replays those; --dlq replays the dead-letter queue',
    });
  }
  if (!dlq && ids.length === 0) {
    throw new UsageError('name the deliveries to replay, or pass --dlq to replay the dead-letter queue');
  }
  const dlqOnly = ['eventType', 'since', 'until', 'limit', 'dryRun'].filter((f) => flags[f] !== undefined);
  if (!dlq && dlqOnly.length > 0) {
    const flag = `--${dlqOnly[0]!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    throw new UsageError(`${flag} only applies with --dlq`);
  }
  if (new Set(ids).size !== ids.length) throw new UsageError('a delivery id is given twice');
  const filters = parseDlqFilters({ ...flags, status: undefined }, nowMs);
  const text = (v: unknown) => (v === undefined ? undefined : String(v));
  return {
    webhook: webhookArg(webhook),
    filterFlags: {
      event_type: text(flags.eventType),
      since: text(flags.since),
      until: text(flags.until),
      limit: text(flags.limit),
    },
    deliveries: ids,
    dlq,
    filters,
    limit: intFlag('--limit', flags.limit, 1, 10_000_000),
    ...parseBulkFlags(flags),
  };
}

interface Target {
  delivery_id: string;
  entry_id: string | null;
  event_id: string | null;
  event_type: string | null;
}

const RESULT_COLUMNS: Array<Column<BulkResult>> = [
  { header: 'result', value: (r) => r.status },
  { header: 'delivery', value: (r) => r.delivery_id, kind: 'id' },
  { header: 'new delivery', value: (r) => r.new_delivery_id ?? '', kind: 'id' },
  { header: 'event', value: (r) => r.event_type ?? '' },
  { header: 'detail', value: (r) => r.error?.message ?? (r.reason ? `already replayed (${r.reason})` : '') },
];

/** Queued DLQ entries matching the filters, page after page, up to `limit`. */
async function* dlqEntries(
  ctx: Context,
  options: ReplayOptions,
  signal: AbortSignal,
  onTotal: (total: number) => void,
): AsyncGenerator<DlqEntry> {
  const api = await ctx.api();
  const route = path`/v1/webhooks/${options.webhook}/dlq`;
  let pages = 0;
  let yielded = 0;
  const entries = api.paginate<DlqEntry, DlqList>(
    route,
    { ...dlqQuery(options.filters), status: 'queued', limit: PAGE },
    { signal },
    (page) => {
      if (pages++ === 0) onTotal(page.total);
    },
  );
  for await (const entry of entries) {
    if (options.limit !== undefined && yielded >= options.limit) return;
    yielded++;
    yield entry;
  }
}

/** An async queue: results are pushed as they happen and printed as a streamed list. */
function channel<T>(): { push(value: T): void; end(): void; iterable: AsyncIterable<T> } {
  const buffer: T[] = [];
  let done = false;
  let wake: (() => void) | undefined;
  return {
    push(value) {
      buffer.push(value);
      wake?.();
    },
    end() {
      done = true;
      wake?.();
    },
    iterable: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          while (buffer.length > 0) yield buffer.shift()!;
          if (done) return;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      },
    },
  };
}

export async function runReplay(ctx: Context, options: ReplayOptions): Promise<void> {
  const api = await ctx.api();
  const settings = ctx.settings().values;
  // Never aborted: the listing and the replays in flight finish after Ctrl-C; runBulk stops new ones.
  const calm = new AbortController().signal;
  let total: number | undefined;
  let items: AsyncIterable<BulkItem<Target>> | Iterable<BulkItem<Target>>;
  let journal: Journal | undefined;
  const targets = new Map<string, Target>();
  const operation = JSON.stringify([
    'webhooks-replay',
    settings.base_url ?? '',
    settings.tenant ?? '',
    options.webhook,
    options.dlq ? options.filterFlags : options.deliveries,
  ]);
  const openJournal = () =>
    Journal.open(options.journal ?? defaultJournalPath(ctx.env, 'webhooks-replay', operation), operation);

  if (options.dlq) {
    const entries = dlqEntries(ctx, options, calm, (n) => {
      total = options.limit === undefined ? n : Math.min(n, options.limit);
    });
    if (options.dryRun) {
      const { DLQ_COLUMNS } = await import('./shared.js');
      const count = await ctx.out.list(entries, DLQ_COLUMNS, {
        empty: 'Nothing to replay: no queued entry matches.',
      });
      if (count > 0)
        ctx.out.info(
          `dry run: ${count.toLocaleString('en')} entr${count === 1 ? 'y' : 'ies'} would be replayed; nothing was changed`,
        );
      return;
    }
    journal = openJournal();
    items = (async function* () {
      for await (const e of entries) {
        const data = {
          delivery_id: e.delivery_id,
          entry_id: e.id,
          event_id: e.event_id,
          event_type: e.event_type,
        };
        targets.set(e.id, data);
        yield { key: e.id, data };
      }
    })();
  } else {
    total = options.deliveries.length;
    items = options.deliveries.map((id) => {
      const data = { delivery_id: id, entry_id: null, event_id: null, event_type: null };
      targets.set(id, data);
      return { key: id, data };
    });
  }

  // One named delivery: its error is the command's error (exit 5 for an unknown id, …).
  if (!options.dlq && options.deliveries.length === 1) {
    const id = options.deliveries[0]!;
    const { data } = await api.post<WebhookDelivery>(
      path`/v1/webhooks/${options.webhook}/deliveries/${id}/replay`,
      {},
    );
    if (ctx.out.isMachine) return ctx.out.json(data);
    await ctx.out.record(data, [
      ['replayed', id],
      ['new delivery', data.id],
      ['event', `${data.event_id} (${data.event_type})`],
      ['status', data.status],
    ]);
    ctx.out.success(`replayed as ${data.id}; follow it with: svc webhooks deliveries ${options.webhook}`);
    return;
  }

  // Several named deliveries: a journal too, so the same command after a failure skips those done.
  journal ??= openJournal();
  const results = channel<BulkResult>();
  const printing = ctx.out.list(results.iterable, RESULT_COLUMNS);
  // The bar appears at the first result, when the first DLQ page has told the total.
  let bar: Progress | undefined;
  const progress: Progress = {
    tick(status) {
      bar ??= createProgress(
        ctx.io.stderr,
        ctx.io.stderrIsTTY && !ctx.out.isMachine,
        total,
        `replaying ${options.webhook}`,
      );
      bar.tick(status);
    },
    done() {
      bar?.done();
    },
  };
  let summary: Awaited<ReturnType<typeof runBulk>>;
  try {
    summary = await runBulk<Target>({
      items,
      concurrency: options.concurrency,
      ...(journal ? { journal } : {}),
      interrupt: ctx.signal,
      progress,
      work: async (item, signal) => {
        const target = item.data;
        // DLQ runs: the same key when a re-run retries an entry whose answer was lost, so it is
        // replayed once. Named deliveries get a fresh key per run: once a run has finished (and
        // its journal is gone), running it again replays them again, as asked.
        const idempotencyKey = options.dlq ? deriveIdempotencyKey(operation, item.key) : undefined;
        const { data } = await api.post<WebhookDelivery>(
          path`/v1/webhooks/${options.webhook}/deliveries/${target.delivery_id}/replay`,
          {},
          { signal, ...(idempotencyKey ? { idempotencyKey } : {}) },
        );
        return { new_delivery_id: data.id, event_id: data.event_id };
      },
      onResult: (result) => {
        const target = targets.get(result.key);
        targets.delete(result.key);
        results.push({
          ...result,
          delivery_id: target?.delivery_id ?? result.key,
          ...(target?.entry_id ? { dlq_entry_id: target.entry_id } : {}),
          event_type: target?.event_type ?? null,
          event_id: result.event_id ?? target?.event_id ?? null,
        });
      },
    });
  } finally {
    results.end();
    await printing;
  }
  if (summary.total === 0 && !summary.interrupted) {
    journal?.remove();
    ctx.out.info('Nothing to replay: no queued dead-letter entry matches.');
    return;
  }
  finishBulk(ctx, summary, journal, 'replayed');
}

export function replayCommand(make: MakeContext): Command {
  return withBulkFlags(
    new Command('replay')
      .summary('Replay deliveries, or the whole dead-letter queue')
      .description(
        'Replay named deliveries, or with --dlq every queued entry of the dead-letter queue (oldest first,\n' +
          'filtered by --event-type, --since, --until, at most --limit). Each replay is a new delivery of the\n' +
          'same payload, byte for byte, with its attempt counter reset and a fresh signature timestamp; the\n' +
          'new delivery ids are printed (one JSON object per entry with --ndjson).\n\n' +
          'Bulk runs use --concurrency parallel requests, show a progress bar on a terminal, and keep a\n' +
          'journal: running the same command again after a failure or Ctrl-C skips entries already replayed,\n' +
          'so none is replayed twice. Exit 7 when some replays failed, 130 after Ctrl-C (in-flight replays\n' +
          'finish first). --dry-run lists what would be replayed.',
      )
      .argument('[webhook]', 'webhook id')
      .argument('[delivery...]', 'delivery ids to replay')
      .addOption(new Option('--dlq', 'replay the queued entries of the dead-letter queue'))
      .addOption(new Option('--event-type <type>', 'with --dlq: only this event kind'))
      .addOption(
        new Option('--since <time>', 'with --dlq: dead-lettered at or after (ISO 8601, or 30m, 2h, 7d ago)'),
      )
      .addOption(
        new Option('--until <time>', 'with --dlq: dead-lettered before (ISO 8601, or a duration ago)'),
      )
      .addOption(new Option('--limit <n>', 'with --dlq: replay at most N entries')),
    undefined,
    'with --dlq: list the entries that would be replayed, change nothing',
  )
    .addHelpText(
      'after',
      examples(
        ['svc webhooks replay wh_123 dlv_abc dlv_def', 'replay two deliveries'],
        ['svc webhooks replay wh_123 --dlq --dry-run', 'what would be replayed'],
        [
          'svc webhooks replay wh_123 --dlq --since 2h --event-type exception.sla.breached --ndjson',
          'replay recent SLA breaches; one result per line',
        ],
        ['svc webhooks replay wh_123 --dlq --concurrency 16', 'replay the whole queue; rerun to resume'],
      ),
    )
    .action(
      async (
        webhook: string | undefined,
        deliveries: string[],
        flags: Record<string, unknown>,
        cmd: Command,
      ) => {
        const ctx = await make(cmd);
        await runReplay(
          ctx,
          await withWebhook(ctx, parseReplay(webhook, deliveries, flags, ctx.clock.now()), 'replaying'),
        );
      },
    );
}
