import type { CommandLine } from '../../config/settings.js';
import type { Column } from '../../output/output.js';
import { shellWord } from '../../system/shell-words.js';
import { leftText } from './dlq/left.js';
import { madeBy } from './follow.js';
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
  discarded_at?: string | null;
  delivery_status?: string;
  /** The entry left the queue while the run this one resumes was stopped: not this run's doing. */
  while_stopped?: boolean;
  /** `interrupted`: Ctrl-C stopped --wait following the replay, which was made. */
  follow?: 'interrupted';
  error?: { code: string; message: string; remedy?: string };
  reason?: string;
}

/** Of a delivery found recovered: the delivery that delivered its event. */
const recovered = (r: ReplayRow) =>
  r.delivery_status === 'recovered'
    ? `its event was delivered${r.delivered_by ? ` by ${r.delivered_by}` : ''}`
    : undefined;

/** A row's detail in words: its error, its note, or what happened to it. */
function detail(webhook: string, line: CommandLine, r: ReplayRow): string | undefined {
  const error = r.error && [r.error.message, r.error.remedy].filter(Boolean).join('; ');
  const made = madeBy(r);
  if (r.reason === 'journal' && r.follow === 'interrupted') {
    // Made by the earlier run this one resumes (nothing is sent now), followed now.
    const as = made ? ` (replayed as ${made})` : '';
    const by = recovered(r);
    // Not read now (DeliveryUnreadError): its error says so, and how to look.
    const now = r.delivery_status
      ? `: ${r.delivery_status} now${by ? ` (${by})` : ''}${error ? `: ${error}` : ''}`
      : error
        ? `; ${error}`
        : '';
    return `done in an earlier run${as}; not followed then (interrupted)${now}`;
  }
  if (r.follow === 'interrupted') {
    const see = `see how it went with \`${line(`webhooks deliveries get ${shellWord(webhook)}${made === undefined ? '' : ` ${shellWord(made)}`}`)}\``;
    if (r.while_stopped) {
      // Followed again now, its delivery could not be read (DeliveryUnreadError): that is said instead.
      return `${leftText(r)}; ${error ?? `interrupted while following its delivery: ${see}`}`;
    }
    return `interrupted while following; the replay was made${made === undefined ? '' : ` (${made})`}: ${see}`;
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
    { header: 'event', value: (r) => r.event_type },
    { header: 'outcome', value: (r) => r.delivery_status, kind: 'status', optional: true },
    { header: 'detail', kind: 'detail', value: (r) => detail(webhook, line, r) },
  ];

/**
 * The run's word for its ok rows, read when the run ends: with --wait they were delivered, but
 * for those whose follow Ctrl-C cut (made, outcome unknown); a dry run knows nothing of delivery.
 */
export class ReplayWords {
  delivered = 0;
  unfollowed = 0;

  constructor(
    private readonly wait: boolean,
    private readonly dryRun: boolean,
  ) {}

  get done(): string {
    if (this.dryRun) return 'replayed (whether they are delivered is known only when they are sent)';
    if (!this.wait) return 'replayed';
    if (this.unfollowed === 0) return 'replayed and delivered';
    const what = this.unfollowed === 1 ? 'its delivery' : 'their deliveries';
    const some =
      this.delivered > 0
        ? `${this.delivered.toLocaleString('en')} delivered, ${this.unfollowed.toLocaleString('en')} `
        : '';
    return `replayed (${some}not followed to ${what}: interrupted)`;
  }
}
