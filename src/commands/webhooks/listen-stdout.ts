// What `webhooks listen` says when stdout loses lines: where deliveries were kept instead, which
// requests were not printed or may be unread, and the replay that sends them again.

import { redactUrlText } from '../../api/secret-names.js';
import { commandLine } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { StdoutClosedError, StdoutFailedError, type SvcError } from '../../errors.js';
import { counted } from '../../output/format.js';
import { shellWord } from '../../system/shell-words.js';
import type { ReceivedDelivery } from '../../webhooks/listen.js';

/** Where what arrives is kept besides stdout: --capture's directory, --forward-to's target. */
export function sinkWords(dir: string | undefined, forwardTo: URL | undefined): string | undefined {
  const kept = [
    dir === undefined ? '' : `saved in ${dir}`,
    forwardTo === undefined ? '' : `forwarded to ${redactUrlText(forwardTo.href)} when valid`,
  ].filter(Boolean);
  return kept.length > 0 ? kept.join(' and ') : undefined;
}

/**
 * How far back lines handed to stdout may still be unread when its reader leaves: a Linux pipe
 * holds 64 KiB, and the reader's last read may have taken as much again that it dropped.
 */
export const UNREAD_WINDOW = 128 * 1024;

/** `stdout closed`, or the failed write's `cannot write to stdout (ENOSPC)`. */
export function stdoutWords(ctx: Context): string {
  const failure = ctx.out.stdoutFailure;
  return failure === undefined ? 'stdout closed' : `cannot write to stdout (${failure})`;
}

/** Requests shown by their delivery and attempt (`dlv_…#2`), the first few. */
export function requestList(records: ReceivedDelivery[]): string {
  const shown = records
    .slice(0, 5)
    .map((r) =>
      r.delivery_id ? `${r.delivery_id}#${r.attempt ?? '?'}` : (r.event_id ?? 'a request without ids'),
    );
  return `${shown.join(', ')}${records.length > shown.length ? `, and ${records.length - shown.length} more` : ''}`;
}

/**
 * The end of a listener whose lines could not all be printed: exit 141 (1 after a failed write),
 * naming the requests answered whose line was lost; those acknowledged (2xx) are delivered for the
 * platform, so the hint names the replay that sends them again. With a sink, they were kept there.
 */
export function unprintedError(
  ctx: Context,
  unprinted: ReceivedDelivery[],
  sink: string | undefined,
  webhook: string | undefined,
  maybeUnread: ReceivedDelivery[],
): SvcError {
  const what = stdoutWords(ctx);
  // The run's command lines (-p, --tenant …): pasted, a bare `svc webhooks replay` acts in the
  // active profile's default tenant, where W is not (attack25a F2).
  const svc = commandLine(ctx.settings());
  const replayOf = (deliveries: readonly ReceivedDelivery[]) =>
    svc(
      [
        'webhooks replay',
        webhook === undefined ? 'WEBHOOK' : shellWord(webhook),
        ...deliveries.map((r) => shellWord(r.delivery_id ?? '')),
      ].join(' '),
    );
  const count = `${counted(unprinted.length, 'request')} answered ${unprinted.length === 1 ? 'was' : 'were'} not printed (${requestList(unprinted)})`;
  const acknowledged = unprinted.filter((r) => r.status >= 200 && r.status < 300 && r.delivery_id);
  const one = acknowledged.length === 1;
  // A valid delivery whose line could not be written was answered 503 (lineFirst), not acknowledged.
  const retried = unprinted.filter((r) => r.valid && r.status === 503).length;
  const replay =
    acknowledged.length === 0
      ? retried === 0
        ? undefined
        : `${retried === 1 ? 'that delivery was' : `${retried} of them were`} answered 503, not acknowledged: the platform retries ${retried === 1 ? 'it' : 'them'}`
      : `${one ? 'that delivery was' : `${acknowledged.length} of them were`} answered 2xx, so the platform counts ${one ? 'it' : 'them'} delivered: \`${replayOf(acknowledged.slice(0, 5))}\` sends ${one ? 'it' : 'them'} again`;
  const message = sink
    ? `${what} while listening: ${count}; each was still ${sink}`
    : `${what}, so the listener stopped (later deliveries fail and the platform retries them): ${count}`;
  const unread =
    maybeUnread.length === 0 || ctx.out.stdoutFailure !== undefined
      ? undefined
      : `${maybeUnread.length === 1 ? 'the delivery' : `the ${maybeUnread.length} deliveries`} acknowledged (200) last, whose line${maybeUnread.length === 1 ? ' was' : 's were'} in the last ${UNREAD_WINDOW / 1024} KiB handed to stdout, may have been dropped unread by a reader that left (head, grep -m1): ${requestList(maybeUnread)}; if your reader did not show ${maybeUnread.length === 1 ? 'it' : 'them'}, \`${replayOf(maybeUnread.slice(0, 5))}\` sends ${maybeUnread.length > 5 ? 'the first 5' : maybeUnread.length === 1 ? 'it' : 'them'} again${maybeUnread.length > 5 ? ` (\`${svc(`webhooks deliveries ls ${webhook === undefined ? 'WEBHOOK' : shellWord(webhook)}`)}\` lists the rest)` : ''}`;
  const hint = [replay, unread].filter(Boolean).join('; ');
  const options = sink || hint === '' ? {} : { hint };
  return ctx.out.stdoutFailure === undefined
    ? new StdoutClosedError(message, options)
    : new StdoutFailedError(message, options);
}
