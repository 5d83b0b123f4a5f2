// The verb: its flags and their checks (parseReplay), and its help; the run is replay-run.ts,
// what it works on replay-targets.ts, named ids replay-named.ts, rows replay-rows.ts, following
// follow.ts and the queue dlq/queue.ts (with the files it is built of) and dlq/left.ts.

import { Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { path } from '../../http/path.js';
import { onlyWith, parseBulkFlags, withBulkFlags } from '../bulk-flags.js';
import { examples, type MakeContext, nonEmpty, refuseJoinedValues } from '../kit.js';
import { type WithOptionalWebhook, withWebhook } from '../pick.js';
import { dlqRunScope, filterOptions, refuseRepeatedIds } from './dlq/filters.js';
import { type ReplayOptions, runReplay } from './replay-run.js';
import { webhookArg } from './shared.js';
import { looksLikeSeconds, parseWaitFlags, waitOptions } from './wait-flags.js';

const TIMEOUT = { max: 3600, dflt: 60 };

export function parseReplay(
  webhook: unknown,
  ids: unknown[],
  flags: Record<string, unknown>,
): WithOptionalWebhook<ReplayOptions> {
  const dlq = flags.dlq === true;
  const named = ids.map((d) => nonEmpty('DELIVERY', d));
  // `--dlq --wait 5`: the old seconds form, not a delivery id given with --dlq (review16 R9).
  if (dlq && flags.wait === true && named.length === 1 && looksLikeSeconds(named[0]!)) {
    throw new UsageError(`--wait takes no value (${named[0]})`, {
      hint: `to follow each replayed delivery for at most ${named[0]} s, pass --wait --wait-timeout ${named[0]}`,
    });
  }
  if (dlq && named.length > 0) {
    throw new UsageError('give delivery ids or --dlq, not both', {
      hint: 'svc webhooks replay WEBHOOK DELIVERY... replays those; --dlq replays the dead-letter queue',
    });
  }
  if (!dlq && named.length === 0) {
    // Nothing named, not even the webhook: both halves at once (attack25a F8).
    throw new UsageError(
      webhook === undefined
        ? 'name a webhook and the deliveries to replay (WEBHOOK DELIVERY...), or a webhook and --dlq (WEBHOOK --dlq) to replay its dead-letter queue'
        : 'name the deliveries to replay, or pass --dlq to replay the dead-letter queue',
    );
  }
  if (!dlq) onlyWith(flags, ['eventType', 'unlistedEventType', 'since', 'until', 'limit'], '--dlq');
  const waitFlags = parseWaitFlags(flags, TIMEOUT);
  // Every id is checked before the webhook is looked up (which may 404) and before anything is
  // replayed: `DLV --wait 5` once replayed DLV, then failed on "delivery 5".
  for (const id of named) {
    // An id holds no comma: `dlq_a,dlq_b` is two ids, sent as one it was "not found" (attack27a F7).
    refuseJoinedValues(
      'DELIVERY',
      id,
      id.split(',').filter((part) => part.trim() !== ''),
      true,
    );
    // The one id check first (a credential pasted as an id, `.`), then the shape of these ids.
    path`/deliveries/${id}`;
    // Any other id is the server's to judge (another server's ids have another shape: attack18b
    // 8); a number is --wait's old value, not an id.
    if (looksLikeSeconds(id)) {
      throw new UsageError(`${id} is not a delivery id (dlv_…) or a dead-letter entry id (dlq_…)`, {
        hint: `--wait takes no value: to follow each delivery for at most ${id} s, pass --wait --wait-timeout ${id}`,
      });
    }
  }
  refuseRepeatedIds(named, 'delivery or entry');
  return {
    webhook: webhookArg(webhook),
    ids: named,
    dlq,
    ...dlqRunScope(flags),
    ...waitFlags,
    ...parseBulkFlags(flags),
  };
}

export function replayCommand(make: MakeContext): Command {
  const command = new Command('replay')
    .summary('Replay deliveries, or the whole dead-letter queue')
    .description(
      'Replay named deliveries (dlv_… ids, or the dlq_… ids `svc webhooks dlq` lists; an id of another\n' +
        'shape is what the server says: an entry its queue knows, else a delivery, else refused, exit 5,\n' +
        'before anything is replayed), or with --dlq every\n' +
        'queued entry of the dead-letter queue (oldest first, filtered by --event-type, --since, --until, at\n' +
        'most --limit in total). Each replay is a new delivery of the same payload, byte for byte, with its\n' +
        'attempt counter reset and a fresh signature timestamp; results are one row (one JSON object) per\n' +
        'delivery, in every mode an array with --json.\n\n' +
        '--wait follows each new delivery until its first attempt ends (at most --wait-timeout seconds) and\n' +
        'exits 7 when any failed, naming the cause and its remedy. It is the default on a terminal, where a\n' +
        'person needs to know the target took the events, not that replays were queued; scripts get results\n' +
        'at once unless they pass --wait (--no-wait turns it off on a terminal). A replay whose follow\n' +
        'Ctrl-C cuts was made: its row is ok with follow "interrupted" (exit 130), and the resumed run\n' +
        'follows its delivery to its end (one that failed is a failed row, exit 7), or, not waiting, says\n' +
        'it was not followed (no status as now, exit 7, the journal kept): --wait is not part of the\n' +
        'run, so the same command resumes it on a terminal or in a pipe alike. So is one whose delivery\n' +
        'cannot be read (follow "unreadable") or has no attempt finished by --wait-timeout (follow\n' +
        '"not_settled"), or whose status is a word svc does not know (follow "unknown_status": another\n' +
        "server's `succeeded`, said as it came, never as failed): its row is ok with its new delivery, exit\n" +
        '7, and the same command follows it\n' +
        '(its read still failing, it stays unreadable, exit 7, never failed). A resumed run that waits\n' +
        'follows the replays of an earlier run that did not (follow "not_waited"). A row the earlier run\n' +
        'followed to a failed attempt is read again as it is now (failed_then says what it was):\n' +
        'delivered since, it is no failure. A replay whose\n' +
        "answer was lost and whose retry got the platform's stored answer is this run's own, followed,\n" +
        'with no note: nothing was sent again.\n\n' +
        'A --dlq run works on the queue as it was when it started: at most the number of entries it held\n' +
        'then, never an entry of a delivery the run created itself, so replays that fail again and return\n' +
        'to the queue cannot keep a run going. A listing that ends short of that count (a server whose cursor\n' +
        'shifts as entries leave the queue) is read again from the start once nothing is in flight, and the\n' +
        "run's entries still queued are replayed; entries it still cannot list end the run with exit 7.\n" +
        'Runs use --concurrency parallel requests and keep a journal:\n' +
        'the same command after a failure, Ctrl-C (exit 130) or a closed stdout (exit 141) resumes the run,\n' +
        'with the same idempotency keys, and nothing is replayed twice (a row the earlier run did is a\n' +
        'skipped row, reason journal, "done in an earlier run"; with --dlq every entry it did, and each\n' +
        'entry it had taken that left the queue before the resumed run is a skipped row saying what became\n' +
        'of it, while_stopped; with --wait one replayed then, maybe by the earlier run itself, has its\n' +
        'delivery followed: failed, it is a failed row, exit 7; recovered since, by a later replay, it is\n' +
        'delivered; one whose delivery cannot be read, a 503, is a failed row saying so, delivery_unread,\n' +
        'exit 7, and stays owed: the same command follows it again; the entry its delivery put back in\n' +
        'the queue is never replayed by the run: that event was replayed once already). A --dlq\n' +
        "run is the entries dead-lettered before it started (to the second): newer ones, another run's\n" +
        "replays that failed again among them, are a new run's, counted when the run ends (new or resumed) and\n" +
        'taken by the same command after it. Nor by two runs at once (two admins,\n' +
        'one admin in two terminals, or a `dlq discard --all` beside it): each entry is replayed as that\n' +
        "entry, only while it is queued, with a key that is the run's own (its retries and its resumes\n" +
        'send it again, another run never does); an entry another run replayed or discarded first is a\n' +
        'skipped row saying so (already_replayed, already_discarded). --dry-run lists what would be\n' +
        'replayed; whether they are delivered is known only when they are sent (with --wait, a replay\n' +
        'made already, by the earlier run or since, is read as it is: failed, it would fail).\n\n' +
        'Named ids are read first: a delivery and its own dead-letter entry together are refused (exit 2),\n' +
        'and an event already delivered or replayed, or a delivery whose status svc does not know (it may\n' +
        'have been delivered: note unknown_status), is replayed again with a warning and a note on its row.\n' +
        'A queued entry named by its dlq_ id, or a delivery named by its dlv_ id whose entry is queued, is\n' +
        'replayed as that entry: one another run replays first is a skipped row (already_replayed). A\n' +
        'dlv_ id with an entry is always sent as it, so the same command after a lost answer sends the\n' +
        "same request and gets the platform's stored answer (one delivery). A\n" +
        'discarded entry is refused (exit 6, the dry run too): an entry leaves the queue once. Its\n' +
        'delivery, named by its dlv_ id, still replays.\n\n' +
        "A replay takes the permission that reads the data of the webhook's kinds (exception.read,\n" +
        'reconciliation.read), held now: a just-in-time grant will do (choosing the URL is what takes it\n' +
        'without an end date). --dry-run plays each row against what you hold (the permissions svc me --json\n' +
        "shows): a replay the platform would refuse you is planned fail with a refusal like the real run's\n" +
        "(the same code; the words of a missing webhook.manage are svc's), as the real run ends. When svc\n" +
        'cannot learn what you hold (a server that does not say, and no role.read), the dry run warns, plans\n' +
        'each row as if you may, and its counts say they were not checked against it.\n\n' +
        'A disabled webhook receives no events, replays included: the run (a --dry-run too) is refused\n' +
        'before anything is replayed (exit 6), with the command that enables it. A webhook the platform\n' +
        'stopped says why (its disabled_reason): enabling it takes someone who holds the read permissions\n' +
        'of its kinds without an end date, and makes them its owner. Deliveries whose retries the stop\n' +
        'cancelled (cause webhook_stopped) are in the dead-letter queue: --dlq replays them once enabled.',
    )
    .argument('[webhook]', 'webhook id')
    .argument(
      '[delivery...]',
      "delivery ids (dlv_…) or dead-letter entry ids (dlq_…) to replay (or ids of the server's own shape)",
    )
    .addOption(new Option('--dlq', 'replay the queued entries of the dead-letter queue'));
  for (const option of filterOptions('with --dlq: ')) command.addOption(option);
  command.addOption(new Option('--limit <n>', 'with --dlq: replay at most N entries in total'));
  for (const option of waitOptions(
    'follow each new delivery until its first attempt ends',
    'default on a terminal',
    TIMEOUT,
  ))
    command.addOption(option);
  return withBulkFlags(command, undefined, 'list what would be replayed, change nothing')
    .addHelpText(
      'after',
      examples(
        ['svc webhooks replay wh_123 dlv_abc dlq_def', 'replay a delivery and a dead-letter entry'],
        ['svc webhooks replay wh_123 --dlq --dry-run', 'what would be replayed'],
        [
          'svc webhooks replay wh_123 --dlq --since 2h --event-type exception.sla.breached --wait --ndjson',
          'replay recent SLA breaches; one result per line, with how each delivery went',
        ],
        ['svc webhooks replay wh_123 --dlq --concurrency 16', 'replay the whole queue; rerun to resume'],
      ),
    )
    .action(
      async (webhook: string | undefined, ids: string[], flags: Record<string, unknown>, cmd: Command) => {
        const ctx = await make(cmd);
        const parsed = parseReplay(webhook, ids, flags);
        await runReplay(ctx, await withWebhook(ctx, parsed));
      },
    );
}
