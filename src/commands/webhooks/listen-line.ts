// The one line `webhooks listen` prints per request.
import { basename } from 'node:path';
import type { Context } from '../../context.js';
import { cellText } from '../../output/format.js';
import { sym } from '../../output/symbols.js';
import type { ReceivedDelivery } from '../../webhooks/listen.js';

/** One human line per request; what the request said (ids, types, errors) is escaped, even when unsigned. */
export function line(ctx: Context, r: ReceivedDelivery): string {
  const c = ctx.out.color;
  // A terminal gets the time of day in UTC, saying so; a pipe the whole RFC 3339 time.
  const time = ctx.out.mode === 'table' ? `${r.received_at.slice(11, 19)}Z` : r.received_at;
  const verdict = r.valid
    ? c.green(`${sym.check} valid  `)
    : r.reason === 'payload_too_large'
      ? c.red(`${sym.cross} too large`)
      : r.reason === 'not_ready'
        ? c.yellow(`${sym.cross} not ready`)
        : c.red(`${sym.cross} invalid`);
  const what = [
    r.event_type ?? '-',
    r.event_id ?? '-',
    r.delivery_id ? `${r.delivery_id}#${r.attempt ?? '?'}` : '-',
  ];
  const notes: string[] = [];
  if (!r.valid) notes.push(`${r.reason}: ${r.message ?? ''}`.trim());
  if (r.timestamp_checked === false) notes.push('timestamp not checked');
  // A forward answered after the sender hung up says so in place of "forwarded → N".
  if (r.forwarded && !(r.not_answered && 'status' in r.forwarded))
    notes.push(
      'status' in r.forwarded
        ? `forwarded ${sym.arrow} ${r.forwarded.status}`
        : `forward failed: ${r.forwarded.error}`,
    );
  // "From the target" only when it answered; a forward that failed gets svc's own 502.
  const fromTarget = r.forwarded !== undefined && 'status' in r.forwarded;
  const answered =
    r.not_answered === 'sender_gave_up'
      ? fromTarget
        ? `${sym.arrow} ${r.status} from the target, but the sender gave up first: it will retry`
        : `${sym.arrow} ${r.status}: no answer from the target, and the sender had already given up: it will retry`
      : r.not_answered === 'listener_stopped'
        ? fromTarget
          ? `${sym.arrow} ${r.status} from the target, but the listener had stopped: the sender will retry`
          : `${sym.arrow} ${r.status}: no answer from the target, and the listener had stopped: the sender will retry`
        : `${sym.arrow} ${r.status}`;
  if (r.repeated) notes.push('repeated event');
  if (r.capture)
    notes.push(
      'headers' in r.capture
        ? `saved ${basename(r.capture.headers, '.headers')}`
        : `not saved: ${r.capture.error}`,
    );
  const said = cellText(
    `${what.join('  ')}  ${r.bytes} B  ${answered}${notes.length ? `  (${notes.join('; ')})` : ''}`,
  );
  return `${time}  ${verdict}  ${said}`;
}
