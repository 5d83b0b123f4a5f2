import type { CommandLine } from '../../config/settings.js';
import type { Column } from '../../output/output.js';
import { shellWord } from '../../system/shell-words.js';
import { deliveryWord } from './delivery-state.js';
import { leftText } from './dlq/left.js';
import { madeBy, noneUnfollowed, type Unfollowed } from './follow.js';
import { noteText, type ReplayNote } from './replay-named.js';

/** One result row of `svc webhooks replay`. */
export interface ReplayRow {
  status?: string;
  plan?: string;
  delivery_id: string | null;
  dlq_entry_id?: string;
  new_delivery_id?: string;
  event_type: string | null;
  event_id?: string | null;
  note?: ReplayNote['note'];
  delivered_by?: string;
  replayed_as?: string;
  /** A named delivery's status as it came, when svc does not know it (note `unknown_status`). */
  status_word?: string;
  discarded_at?: string | null;
  delivery_status?: string;
  /** The entry left the queue while the run this one resumes was stopped: not this run's doing. */
  while_stopped?: boolean;
  /**
   * Why --wait did not follow the replay, which was made, to its end (its outcome is not known);
   * `not_waited`: the earlier run of a resumed one did not wait, and this one followed it.
   */
  follow?: Unfollowed | 'not_waited';
  /**
   * A row done in an earlier run whose delivery had failed an attempt then (`retrying`, `failed`):
   * read again now, `delivery_status` (and `status`, `error`) are as it is now.
   */
  failed_then?: string;
  /** What `follow` was, but for Ctrl-C: the read's error, or the timeout. */
  follow_error?: { code: string; message: string };
  error?: { code: string; message: string; remedy?: string };
  reason?: string;
}

/** Of a delivery found recovered: the delivery that delivered its event. */
const recovered = (r: ReplayRow) =>
  deliveryWord({ status: r.delivery_status }) === 'recovered'
    ? `its event was delivered${r.delivered_by ? ` by ${r.delivered_by}` : ''}`
    : undefined;

/** Why a row's follow was cut, in words: `interrupted`, `its delivery could not be read`, the timeout. */
function cutText(r: ReplayRow): string {
  if (r.follow === 'unreadable') return 'its delivery could not be read';
  if (r.follow === 'not_waited') return 'it did not wait';
  if (r.follow === 'unknown_status') return r.follow_error?.message ?? 'a status svc does not know';
  return r.follow === 'not_settled' ? (r.follow_error?.message ?? 'not settled') : 'interrupted';
}

/** A row's detail in words: its error, its note, or what happened to it. */
function detail(webhook: string, line: CommandLine, r: ReplayRow): string | undefined {
  const error = r.error && [r.error.message, r.error.remedy].filter(Boolean).join('; ');
  const made = madeBy(r);
  if (r.reason === 'journal' && r.follow !== undefined) {
    // Made by the earlier run this one resumes (nothing is sent now), followed now.
    const as = made ? ` (replayed as ${made})` : '';
    const by = recovered(r);
    // Not read now either (follow unreadable, its error what this run's read got): said so.
    if (r.follow === 'unreadable' && r.follow_error && !r.delivery_status && !error)
      return `done in an earlier run${as}; not followed to its end: ${r.follow_error.message}`;
    const now = r.delivery_status
      ? `: ${r.delivery_status} now${by ? ` (${by})` : ''}${error ? `: ${error}` : ''}`
      : error
        ? `; ${error}`
        : '';
    return `done in an earlier run${as}; not followed then (${cutText(r)})${now}`;
  }
  if (r.follow !== undefined) {
    const see = `see how it went with \`${line(`webhooks deliveries get ${shellWord(webhook)}${made === undefined ? '' : ` ${shellWord(made)}`}`)}\``;
    if (r.while_stopped) {
      // Followed again now, its delivery could not be read (DeliveryUnreadError): that is said instead.
      const cut = r.follow === 'interrupted' ? 'interrupted while following its delivery' : cutText(r);
      return `${leftText(r)}; ${error ?? `${cut}: ${see}`}`;
    }
    const was = `the replay was made${made === undefined ? '' : ` (${made})`}`;
    // Its error names the delivery, and how to look.
    if (r.follow === 'unreadable') return `${was}; ${r.follow_error?.message ?? cutText(r)}`;
    if (r.follow === 'not_settled')
      return `${cutText(r)}; ${was}: ${see}, or run the same command again to follow it`;
    if (r.follow === 'unknown_status') return `${cutText(r)}; ${was}, how it went is not known: ${see}`;
    return `interrupted while following; ${was}: ${see}`;
  }
  if (r.reason === 'journal' && r.failed_then !== undefined) {
    // Read again now: what was true then is said as then, and what is true now as now.
    const as = made ? ` (replayed as ${made})` : '';
    const by = recovered(r);
    const now = `${r.delivery_status ?? 'not found'} now${by ? ` (${by})` : ''}${error ? `: ${error}` : ''}`;
    return `done in an earlier run${as}; its delivery failed then (${r.failed_then}): ${now}`;
  }
  // Replayed while the run was stopped, its delivery followed (--wait): how it went is said too.
  if (r.while_stopped && (error || recovered(r))) {
    return `${leftText(r)}; ${error ? `its delivery failed: ${error}` : recovered(r)}`;
  }
  if (error) return error;
  if (r.reason === 'journal') return `done in an earlier run${made ? ` (replayed as ${made})` : ''}`;
  if (r.note) return noteText(r as ReplayNote);
  return leftText(r) ?? (r.reason && `done (${r.reason})`);
}

export const replayColumns =
  (webhook: string, line: CommandLine) =>
  (dryRun: boolean): Array<Column<ReplayRow>> => [
    { header: dryRun ? 'plan' : 'result', value: (r) => (dryRun ? r.plan : r.status), kind: 'status' },
    { header: 'delivery', value: (r) => r.delivery_id ?? r.dlq_entry_id, kind: 'id' },
    { header: 'new delivery', value: (r) => madeBy(r), kind: 'id' },
    { header: 'event', value: (r) => r.event_type, kind: 'name' },
    { header: 'outcome', value: (r) => r.delivery_status, kind: 'status', optional: true },
    { header: 'detail', kind: 'detail', value: (r) => detail(webhook, line, r) },
  ];

/**
 * The run's word for its ok rows, read when the run ends: with --wait they were delivered, but
 * for those --wait did not follow to their end (made, outcome unknown: Unfollowed, counted by
 * why); a dry run knows nothing of delivery.
 */
export class ReplayWords {
  delivered = 0;
  readonly unfollowed: Record<Unfollowed, number> = noneUnfollowed();
  /** The status words svc did not know, as they came (`unknown_status`). */
  readonly unknownStatuses = new Set<string>();

  constructor(
    private readonly wait: boolean,
    private readonly dryRun: boolean,
    /** --wait-timeout, for the words of those not settled within it. */
    private readonly timeoutMs: number,
  ) {}

  /** Replays made whose outcome is not known: not followed to their end. */
  get notFollowed(): number {
    return Object.values(this.unfollowed).reduce((a, b) => a + b, 0);
  }

  /** Why, counted: `interrupted`, `2 could not be read, 1 not settled within 60 s`. */
  why(alone = true): string {
    const words: Record<Unfollowed, string> = {
      interrupted: 'interrupted',
      unreadable: 'could not be read',
      not_settled: `not settled within ${Math.round(this.timeoutMs / 1000)} s`,
      unknown_status: `with a status svc does not know (${[...this.unknownStatuses].map((w) => JSON.stringify(w)).join(', ')})`,
    };
    const kinds = (Object.keys(words) as Unfollowed[]).filter((k) => this.unfollowed[k] > 0);
    if (alone && kinds.length === 1) return words[kinds[0]!];
    return kinds.map((k) => `${this.unfollowed[k].toLocaleString('en')} ${words[k]}`).join(', ');
  }

  get done(): string {
    if (this.dryRun) return 'replayed (whether they are delivered is known only when they are sent)';
    if (!this.wait) return 'replayed';
    if (this.notFollowed === 0) return 'replayed and delivered';
    const what = this.notFollowed === 1 ? 'its delivery' : 'their deliveries';
    const some =
      this.delivered > 0
        ? `${this.delivered.toLocaleString('en')} delivered, ${this.notFollowed.toLocaleString('en')} `
        : '';
    return `replayed (${some}not followed to ${what}: ${this.why()})`;
  }
}
