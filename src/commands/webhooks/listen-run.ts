// `webhooks listen`'s run: the listener, its lines in arrival order, and the shutdown order (the
// webhook put back before forwards in flight are waited for), which read best as one function.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { redactUrlText } from '../../api/secret-names.js';
import type { Context } from '../../context.js';
import { ClosedPipeError, SvcError, UsageError } from '../../errors.js';
import { renderError } from '../../output/errors.js';
import { counted } from '../../output/format.js';
import { urlInWords } from '../../output/hosts.js';
import { sym } from '../../output/symbols.js';
import { unabandoned } from '../../system/interrupts.js';
import { linkedSignal } from '../../system/linked-signal.js';
import type { ReceivedDelivery } from '../../webhooks/listen.js';
import { CaptureDir, CaptureError } from './capture.js';
import { forwarder, forwardsToItself } from './listen-forward.js';
import { line } from './listen-line.js';
import { DEFAULT_FORWARD_TIMEOUT_SECONDS, type ListenOptions, maxBodyMiB } from './listen-options.js';
import { requestList, sinkWords, stdoutWords, UNREAD_WINDOW, unprintedError } from './listen-stdout.js';
import { type Redirection, redirectWebhook, refuseRotationByCaller, sessionUrl } from './redirect.js';
import { readSecret } from './shared.js';

export async function runListen(ctx: Context, options: ListenOptions): Promise<void> {
  // Each line quotes what a sender sent (a header may be the secret itself): masked as stderr is.
  ctx.out.maskSecretsOnStdout();
  if (options.webhook) await refuseRotationByCaller(ctx, options.webhook);
  // With --webhook the secret comes from rotating the webhook's, once the port is open; until
  // then the listener answers 503 (it judges nothing without its secret).
  const secret = options.webhook ? undefined : await readSecret(ctx, options.secretFile);
  const capture = options.capture ? await CaptureDir.open(options.capture, options.captureDisk) : undefined;
  const { startListener } = await import('../../webhooks/listen.js');
  const forwarding = options.forwardTo
    ? await forwarder(
        ctx,
        options.forwardTo,
        options.forwardTimeoutSeconds ?? DEFAULT_FORWARD_TIMEOUT_SECONDS,
      )
    : undefined;
  // Lines are written in arrival order. When stdout's reader is gone (`| head -1`) or a write
  // fails, the lines were the only thing that kept what arrives: the listener stops as on Ctrl-C
  // (later deliveries fail and are retried, W is put back). So without --capture or --forward-to a
  // valid delivery is answered only once stdout has taken its line (lineFirst): one whose line
  // cannot be written gets 503 and is retried, never acknowledged unseen; a slow reader then
  // delays answering. With --capture or --forward-to, what arrives is kept there: a slow reader
  // delays only printing, and svc says once that the lines are no longer seen and goes on.
  // A line stdout took is in the pipe, not yet read: a reader that leaves (`head -1`, `grep -m1`)
  // drops what it did not read, and those deliveries were acknowledged. svc cannot see which; it
  // names the ones acknowledged whose lines were in the last UNREAD_WINDOW bytes it wrote.
  // A delivery whose line went out but whose sender had gone by then got no answer: said on stderr.
  const sink = sinkWords(capture?.dir, options.forwardTo);
  const lineFirst = sink === undefined;
  const stdoutGone = new AbortController();
  const unprinted: ReceivedDelivery[] = [];
  const unanswered: ReceivedDelivery[] = [];
  /** What to do about a delivery --capture could not save (CaptureError's fix), for its warning. */
  const notSavedFix = new WeakMap<ReceivedDelivery, string>();
  const recent: Array<{ record: ReceivedDelivery; bytes: number }> = [];
  let recentBytes = 0;
  let printing = Promise.resolve();
  /** Lines offered to stdout and not yet taken (a write's callback): what the stop waits for. */
  let untaken = 0;
  /**
   * Prints a request's line after those before it; true once stdout has taken it (the write's own
   * callback). With a sink too, though the answer does not wait for it: a write the stream accepted
   * can still fail (a pipe tells it once the bytes reach it), and a line counted printed before
   * then was lost unnamed, the error's count short (review24d L3). The stop awaits `printing`.
   */
  const print = (record: ReceivedDelivery): Promise<boolean> => {
    const taken = { taken: true };
    let bytes = 0;
    untaken++;
    const printed = printing
      .then(() => {
        const text = ctx.out.isMachine ? `${ctx.out.jsonText(record)}\n` : `${line(ctx, record)}\n`;
        bytes = Buffer.byteLength(text);
        return ctx.out.write(text, taken);
      })
      .then(
        () => {
          if (lineFirst && record.valid) {
            recent.push({ record, bytes });
            recentBytes += bytes;
            while (recentBytes - recent[0]!.bytes >= UNREAD_WINDOW) recentBytes -= recent.shift()!.bytes;
          }
          return true;
        },
        (error: unknown) => {
          if (!(error instanceof ClosedPipeError)) return false;
          unprinted.push(record);
          if (unprinted.length > 1) return false;
          if (sink)
            ctx.out.warn(
              `${stdoutWords(ctx)}: deliveries are no longer printed, but still ${sink}; Ctrl-C stops`,
            );
          else stdoutGone.abort();
          return false;
        },
      );
    printing = printed.then(() => {
      untaken--;
    });
    return printed;
  };
  let listener: Awaited<ReturnType<typeof startListener>>;
  try {
    listener = await startListener({
      host: options.host,
      port: options.port,
      secret,
      toleranceSeconds: options.toleranceSeconds,
      maxBodyBytes: maxBodyMiB(options) * 1024 * 1024,
      now: () => ctx.clock.now(),
      ...(forwarding
        ? {
            forward: forwarding.forward,
            via: `svc-listen-${randomBytes(6).toString('hex')}`,
            onLoop: () =>
              ctx.out.warn(
                `a request this listener forwarded came back to it (--forward-to ${redactUrlText(options.forwardTo!.href)} leads here): answered 508 Loop Detected`,
              ),
          }
        : {}),
      ...(capture
        ? {
            capture: (request, record) =>
              capture.save(request, record).catch((error: unknown) => {
                if (error instanceof CaptureError) notSavedFix.set(record, error.fix);
                throw error;
              }),
          }
        : {}),
      onDelivery: (record) => {
        if (record.repeated) {
          ctx.out.warn(
            `event ${record.event_id} was received before (a retry or a replay): receivers must handle it once`,
          );
        }
        if (record.valid && record.status === 503 && record.capture && 'error' in record.capture) {
          const who = record.delivery_id
            ? `delivery ${record.delivery_id}#${record.attempt ?? '?'}`
            : 'a delivery without a delivery id';
          ctx.out.warn(
            `${who} (event ${record.event_id ?? '-'}) was not saved in ${capture!.dir}: ${record.capture.error}; ` +
              `it was answered 503, so the platform retries it: ${notSavedFix.get(record) ?? `check ${capture!.dir}`}`,
          );
        }
        return print(record);
      },
      lineFirst,
      onUnanswered: (record) => {
        unanswered.push(record);
        ctx.out.warn(
          `${requestList([record])} (event ${record.event_id ?? '-'}) was printed ${sym.arrow} 200 but got no answer: ${
            record.not_answered === 'listener_stopped'
              ? 'the listener stopped before stdout took its line'
              : "the sender gave up (the platform's attempt timeout is 10 s) while stdout was slow to take its line"
          }; the platform retries it`,
        );
      },
    });
  } catch (error) {
    await forwarding?.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new UsageError(`port ${options.port} on ${options.host} is already in use`, {
        hint: 'pass another --port, or --port 0 for a free one',
      });
    }
    throw error;
  }
  const ownAddress = options.forwardTo
    ? forwardsToItself(options.forwardTo, options.host, listener.url)
    : undefined;
  if (ownAddress) {
    await listener.close();
    await forwarding?.close();
    throw new UsageError(
      `--forward-to ${redactUrlText(options.forwardTo!.href)} is this listener's own address (${ownAddress}): each delivery would be forwarded to itself without end; pass your app's URL`,
    );
  }
  let redirection: Redirection | undefined;
  if (options.webhook) {
    try {
      redirection = await redirectWebhook(
        ctx,
        options.webhook,
        sessionUrl(options.publicUrl?.href ?? `${listener.url}/webhooks`),
        { takeOver: options.takeOver === true },
      );
    } catch (error) {
      await listener.close();
      await forwarding?.close();
      throw error;
    }
    listener.setSecret(redirection.secret);
  }
  ctx.out.info(
    `listening on ${listener.url} ${sym.dash} ${redirection ? `webhook ${redirection.webhook} delivers here` : 'point a webhook there'}; ` +
      (options.toleranceSeconds === 0
        ? 'checking the signature only: the timestamp is NOT checked (--tolerance 0), so a delivery of any age, a replayed one too, is accepted'
        : `verifying the signature and the timestamp (tolerance ${sym.plusMinus}${options.toleranceSeconds} s)`) +
      `${options.forwardTo ? `, forwarding valid deliveries to ${redactUrlText(options.forwardTo.href)}` : ''}` +
      `${capture ? `, saving each request in ${capture.dir}` : ''}; Ctrl-C stops`,
  );
  // Linked, not AbortSignal.any, which Node 20 keeps listed on ctx.signal for good; unlinked as
  // it stops (src/system/linked-signal.ts).
  const stop = linkedSignal([ctx.signal, stdoutGone.signal]);
  if (!stop.signal.aborted) await once(stop.signal, 'abort');
  // The listener is closed first (deliveries now fail and are retried), W is put back at once,
  // and only then does svc wait for forwards under way: a second Ctrl-C (exit 130) abandons those,
  // never the restore.
  await listener.close();
  let notBack: unknown;
  if (redirection) {
    const { webhook, originalUrl } = redirection;
    // A second Ctrl-C waits for this (the restore and what it says), then exits 130.
    await unabandoned(`putting webhook ${webhook} back`, async () => {
      try {
        const owner = await redirection.restore();
        if (redirection.originalIsListenSession) {
          ctx.out.warn(
            `webhook ${webhook} is back as it was when this session started: ${urlInWords(originalUrl)}, another listen ` +
              "session's listener, with that session's secret; if that session has stopped, run the commands it " +
              `printed to put ${webhook} back as it was before it (and so on, while its URL is then another stopped session's)`,
          );
        } else {
          ctx.out.success(
            `webhook ${webhook} is back: ${urlInWords(originalUrl)}, signing with the secret it had before this session ` +
              "(the session's secret no longer works)",
          );
        }
        if (owner !== undefined) ctx.out.warn(owner);
      } catch (error) {
        notBack = error;
      }
      if (notBack instanceof SvcError) {
        // Said now, not after the wait for forwards that a second Ctrl-C cuts short; the exit
        // code stays the error's.
        ctx.io.stderr.write(
          renderError(notBack, { json: ctx.out.isMachine, debug: ctx.debug, secrets: ctx.secrets.values() }),
        );
        notBack = new SvcError(notBack.category, notBack.message, { silent: true });
      }
    });
  }
  const waiting = listener.forwarding();
  if (waiting > 0) {
    ctx.out.info(
      `waiting for ${waiting === 1 ? '1 forward' : `${waiting} forwards`} in flight ` +
        `(Ctrl-C again to abandon ${waiting === 1 ? 'it' : 'them'})`,
    );
  }
  await listener.idle();
  await forwarding?.close();
  // A reader that stopped reading (`| less` scrolled back, a full pipe) holds the stop here until it
  // reads on: said, as the forwards wait is, once a turn has let lines stdout is taking settle
  // (review24f L3). A second Ctrl-C exits 130 without them.
  if (untaken > 0) await new Promise((resolve) => setImmediate(resolve));
  if (untaken > 0) {
    ctx.out.info(
      `waiting for stdout's reader to take ${untaken === 1 ? '1 line' : `${untaken} lines`} ` +
        `(Ctrl-C again to exit without ${untaken === 1 ? 'it' : 'them'})`,
    );
  }
  await printing;
  const { received, valid, invalid, refused, repeated, notReady, looped, notSaved } = listener.counts;
  const tooLarge = refused
    ? `, ${refused} refused as too large (over ${maxBodyMiB(options)} MiB: see --max-body)`
    : '';
  const early = notReady ? `, ${notReady} answered 503 before the secret was known` : '';
  const loops = looped
    ? `; ${counted(looped, 'request')} it forwarded came back and ${looped === 1 ? 'was' : 'were'} refused (508 Loop Detected: check --forward-to)`
    : '';
  // A delivery whose line was taken late hears it was not answered only after its line: once more round.
  await new Promise((resolve) => setImmediate(resolve));
  const noAnswer = unanswered.length
    ? `, ${unanswered.length} printed but not answered (the sender gave up or the listener stopped first: the platform retries them)`
    : '';
  const unsaved = notSaved ? `, ${notSaved} not saved (answered 503: the platform retries them)` : '';
  ctx.out.info(
    `stopped after ${counted(received, 'request')}: ${valid} valid, ${invalid} invalid${tooLarge}${early}${unsaved}${noAnswer}${repeated ? `, ${counted(repeated, 'repeated event')}` : ''}${loops}`,
  );
  if (notBack !== undefined) throw notBack;
  if (unprinted.length > 0) {
    const maybeUnread = recent.map((r) => r.record).filter((r) => !r.not_answered && r.delivery_id);
    throw unprintedError(ctx, unprinted, sink, options.webhook, maybeUnread);
  }
}
