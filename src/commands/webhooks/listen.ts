// Over 300 lines: the verb's options, help, line format and shutdown order (the webhook put back
// before forwards in flight are waited for) are one contract and read best in one file.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { basename } from 'node:path';
import { Command, Option } from 'commander';
import { redactUrlText } from '../../api/secret-names.js';
import { commandLine } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { ClosedPipeError, StdoutClosedError, StdoutFailedError, SvcError, UsageError } from '../../errors.js';
import { renderError } from '../../output/errors.js';
import { cellText, counted, quoted } from '../../output/format.js';
import { urlInWords } from '../../output/hosts.js';
import { sym } from '../../output/symbols.js';
import { unabandoned } from '../../system/interrupts.js';
import { linkedSignal } from '../../system/linked-signal.js';
import { shellWord } from '../../system/shell-words.js';
import type { Forwarder, ReceivedDelivery } from '../../webhooks/listen.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../../webhooks/signature.js';
import { examples, intFlag, type MakeContext, nonEmpty } from '../kit.js';
import { CaptureDir, type CaptureDisk, CaptureError } from './capture.js';
import { type Redirection, redirectWebhook, refuseRotationByCaller, sessionUrl } from './redirect.js';
import { readSecret, SECRET_ENV, secretFileFlag } from './shared.js';

export const DEFAULT_LISTEN_PORT = 4011;
/**
 * How long a forward may take: the platform's attempt timeout (the sandbox's default; the API does
 * not show a webhook's), so the listener never answers after the sender has given up.
 */
export const DEFAULT_FORWARD_TIMEOUT_SECONDS = 10;
/** The largest body listen takes by default (`--max-body`): a larger one is refused with 413. */
export const DEFAULT_MAX_BODY_MIB = 5;

/** The largest body this listen takes, in MiB: its --max-body, or the default. */
const maxBodyMiB = (options: Pick<ListenOptions, 'maxBodyMiB'>): number =>
  options.maxBodyMiB ?? DEFAULT_MAX_BODY_MIB;

export interface ListenOptions {
  host: string;
  port: number;
  secretFile: string | undefined;
  forwardTo: URL | undefined;
  /** Default DEFAULT_FORWARD_TIMEOUT_SECONDS. */
  forwardTimeoutSeconds?: number;
  /** 0: the timestamp is not checked (as for `verify`, and Stripe's verifiers). */
  toleranceSeconds: number;
  /** Default DEFAULT_MAX_BODY_MIB. */
  maxBodyMiB?: number;
  /** Point this webhook at the listener while it runs (and put it back). */
  webhook: string | undefined;
  /** Take --webhook over even when another listen session has it. */
  takeOver?: boolean;
  /** The URL the platform delivers to, when the listener is reached through a tunnel. */
  publicUrl: URL | undefined;
  /** Keep each request's head and raw body in this directory. */
  capture: string | undefined;
  /** How captures reach the disk: a test's seam (a disk that fills up); svc uses the real one. */
  captureDisk?: CaptureDisk;
}

/**
 * An http(s) URL flag. A user name or password in it is refused, the value not repeated (as
 * --base-url's, sig13 9): a forward does not send them and the platform does not either, so
 * accepting one would echo a credential and then drop it.
 */
function httpUrlFlag(flag: string, raw: unknown, userInfoHint: string): URL | undefined {
  if (raw === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(String(raw));
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`${flag} must be an http or https URL, got ${quoted(redactUrlText(String(raw)))}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${flag} must not hold a user name or password`, { hint: userInfoHint });
  }
  return url;
}

export function parseListen(flags: Record<string, unknown>): ListenOptions {
  const webhook = flags.webhook === undefined ? undefined : nonEmpty('--webhook', flags.webhook);
  if (webhook && flags.secretFile !== undefined) {
    throw new UsageError(
      "--webhook rotates the webhook's secret for the session and verifies with it; leave out --secret-file",
    );
  }
  if (!webhook && flags.takeOver !== undefined) {
    throw new UsageError('--take-over takes a webhook over from another listen session; it needs --webhook');
  }
  if (!flags.forwardTo && flags.forwardTimeout !== undefined) {
    throw new UsageError('--forward-timeout limits how long a forward may take; it needs --forward-to');
  }
  if (!webhook && flags.publicUrl !== undefined) {
    throw new UsageError('--public-url says where --webhook points the webhook; it needs --webhook');
  }
  return {
    host: String(flags.host ?? '127.0.0.1'),
    port: intFlag('--port', flags.port, 0, 65_535) ?? DEFAULT_LISTEN_PORT,
    secretFile: secretFileFlag(flags.secretFile),
    forwardTo: httpUrlFlag(
      '--forward-to',
      flags.forwardTo,
      'forwards carry no credentials; let your app take them from this listener (e.g. on 127.0.0.1) without basic auth',
    ),
    forwardTimeoutSeconds:
      intFlag('--forward-timeout', flags.forwardTimeout, 1, 600) ?? DEFAULT_FORWARD_TIMEOUT_SECONDS,
    toleranceSeconds:
      intFlag('--tolerance', flags.tolerance, 0, 10 * 365 * 86_400) ?? DEFAULT_TOLERANCE_SECONDS,
    maxBodyMiB: intFlag('--max-body', flags.maxBody, 1, 1024),
    webhook,
    takeOver: flags.takeOver === true,
    publicUrl: httpUrlFlag(
      '--public-url',
      flags.publicUrl,
      'the platform sends no credentials to a webhook URL; the signature is what proves a delivery',
    ),
    capture: flags.capture === undefined ? undefined : nonEmpty('--capture', flags.capture),
  };
}

/** Forwards with svc's HTTP stack (undici, honouring HTTP(S)_PROXY and NO_PROXY; loopback is never proxied). */
async function forwarder(
  ctx: Context,
  target: URL,
  timeoutSeconds: number,
): Promise<{ forward: Forwarder; close: () => Promise<void> }> {
  const { ProxyRouter, request, verificationOffAsked } = await import('../../http/undici.js');
  const { proxySettings, route } = await import('../../http/proxy.js');
  const { certificateRefused } = await import('../../http/connect-failure.js');
  // A forward carries the delivery and no credential of svc's, to the user's own app (often
  // self-signed): NODE_TLS_REJECT_UNAUTHORIZED=0 is honoured for it, as Node would, and said once
  // (svc's own requests to the platform still check, context.ts; review24c M1).
  const unverified = target.protocol === 'https:' && verificationOffAsked(ctx.env);
  if (unverified) {
    ctx.out.warn(
      `NODE_TLS_REJECT_UNAUTHORIZED=0: the TLS certificate of ${target.origin} (--forward-to) is not checked; a forward carries no credentials of svc's, and svc's requests to the platform still check theirs`,
    );
  }
  const settings = proxySettings(ctx.env);
  const way = route(target, settings);
  const agent = new ProxyRouter(settings, {}, unverified);
  return {
    forward: async (body, headers) => {
      // The Context's timer (real time for svc; a test's clock plays it), cleared once the answer is in.
      const limit = new AbortController();
      const cancel = ctx.clock.timer(timeoutSeconds * 1000, () => limit.abort());
      try {
        return await forwardOnce(body, headers, limit.signal);
      } finally {
        cancel();
      }
    },
    close: () => agent.close(),
  };

  async function forwardOnce(body: Buffer, headers: Record<string, string>, signal: AbortSignal) {
    const response = await request(agent, target, { method: 'POST', headers, body, signal }).catch(
      (error: unknown) => {
        if (signal.aborted) throw new Error(`the target did not answer within ${timeoutSeconds} s`);
        // A certificate refused is said in svc's words, with its fix, as for the platform's.
        const proxy = way.proxy && { url: way.proxy, from: way.from };
        const refused = certificateRefused(target, proxy, error, 'forward');
        throw refused ? new Error(`${refused.message}; ${refused.hint}`) : error;
      },
    );
    // The limit covers the whole answer: a target that sent its head and then hung is said so.
    const answer = Buffer.from(
      await response.body.arrayBuffer().catch((error: unknown) => {
        if (!signal.aborted) throw error;
        throw new Error(
          `the target answered ${response.statusCode} but did not finish its answer within ${timeoutSeconds} s`,
        );
      }),
    );
    const type = response.headers['content-type'];
    const answerHeaders: Record<string, string> = typeof type === 'string' ? { 'content-type': type } : {};
    return {
      status: response.statusCode,
      headers: answerHeaders,
      body: answer,
    };
  }
}

/** One human line per request; what the request said (ids, types, errors) is escaped, even when unsigned. */
function line(ctx: Context, r: ReceivedDelivery): string {
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

/**
 * `host:port` of the listener when --forward-to names it: the bound port (known once bound, so
 * --port 0 too) on the bound host, on `localhost` when that is a loopback address, or on any
 * loopback address or 0.0.0.0 when every interface is bound; undefined otherwise.
 */
function forwardsToItself(target: URL, boundHost: string, listenerUrl: string): string | undefined {
  const bound = new URL(listenerUrl);
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (port !== bound.port) return undefined;
  const host = target.hostname.toLowerCase();
  const ipv4Loopback = /^127(?:\.\d{1,3}){3}$/.test(host);
  const names: Record<string, boolean> = {
    '0.0.0.0': ipv4Loopback || host === '0.0.0.0' || host === 'localhost',
    '::': ipv4Loopback || host === '0.0.0.0' || host === 'localhost' || host === '[::1]' || host === '[::]',
    '127.0.0.1': host === 'localhost',
    '::1': host === 'localhost',
  };
  return host === bound.hostname.toLowerCase() || names[boundHost] ? bound.host : undefined;
}

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

/** Where what arrives is kept besides stdout: --capture's directory, --forward-to's target. */
function sinkWords(dir: string | undefined, forwardTo: URL | undefined): string | undefined {
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
const UNREAD_WINDOW = 128 * 1024;

/** `stdout closed`, or the failed write's `cannot write to stdout (ENOSPC)`. */
function stdoutWords(ctx: Context): string {
  const failure = ctx.out.stdoutFailure;
  return failure === undefined ? 'stdout closed' : `cannot write to stdout (${failure})`;
}

/** Requests shown by their delivery and attempt (`dlv_…#2`), the first few. */
function requestList(records: ReceivedDelivery[]): string {
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
function unprintedError(
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

export function listenCommand(make: MakeContext): Command {
  return new Command('listen')
    .summary('Receive and verify deliveries locally')
    .description(
      'A local receiving endpoint for webhook deliveries (POST to any path). Each one is verified (signature\n' +
        "and timestamp) and printed as one line, or one JSON object with --ndjson/--json (with the body's\n" +
        'sha256). Valid deliveries get 200, invalid ones 400 {"error":"invalid_signature",…}; an event id seen\n' +
        `before gets a warning. A body over ${DEFAULT_MAX_BODY_MIB} MiB (--max-body) gets 413 and is counted as refused (too large),\n` +
        'its signature never checked. --tolerance 0 checks the signature only, not the timestamp: the start line\n' +
        'and each line say so ("timestamp not checked"; "timestamp_checked":false in JSON). With --forward-to, valid deliveries are sent on with their original body and\n' +
        "headers (hop-by-hop headers, those named in Connection, Expect and Host excepted) and the target's answer is returned; a forward has the\n" +
        "platform's attempt timeout (--forward-timeout, 10 s), and an answer the sender hung up before is said so.\n" +
        "A --forward-to of the listener's own address is refused; forwards carry Via: 1.1 svc-listen-<session>, and\n" +
        'one that comes back is answered 508 Loop Detected, not counted. A secret svc knows is masked in every line.\n' +
        'Runs until Ctrl-C (or SIGTERM, or a closed terminal). Exit 0 when stopped by Ctrl-C and, with --webhook, W was\n' +
        'put back; svc then waits for forwards in flight, and a second Ctrl-C abandons them (exit 130), never W\n' +
        "being put back or set up: that finishes first. When stdout's reader goes away (`| head -1`) or a write to it\n" +
        'fails, the listener stops as on Ctrl-C (later deliveries fail and the platform retries them; W is put back)\n' +
        'and exits 141 (1 for a failed write), naming the requests whose line was lost. Without --capture or\n' +
        '--forward-to a valid delivery is answered only once stdout has taken its line: one whose line cannot\n' +
        'be written gets 503, not acknowledged, and the platform retries it. Taken is not read: a line stdout\n' +
        'took sits in the pipe, and a reader that leaves (head -1, grep -m1) drops what it had not read, though\n' +
        'those deliveries were acknowledged; svc names the ones whose lines were in the last 128 KiB it wrote,\n' +
        "with the replay that sends them again. A slow reader slows the answers: past the platform's attempt\n" +
        'timeout (10 s) the sender gives up, and a line that printed → 200 is followed by a warning that it got\n' +
        'no answer (the platform retries it); so is one still waiting for stdout at Ctrl-C; the summary counts them.\n' +
        'With --capture or --forward-to, which keep what arrives, it says so once and goes on (exit 141 at the\n' +
        'end, naming the requests not printed).\n\n' +
        '--webhook W points that webhook here while svc runs (as `stripe listen` does): its secret is rotated so\n' +
        'svc can verify (deliveries carry the old secret too; until svc has the new one, every request is answered\n' +
        '503 with Retry-After, judged neither valid nor invalid), and on Ctrl-C the URL and the old secret are put back\n' +
        '(before its first change svc prints the commands that do it by hand, for when it is killed; a Ctrl-C during\n' +
        'set-up undoes what took effect, exit 130). The URL it gives W carries ?svc-listen=<session>: a second\n' +
        'session on W is refused (exit 6) unless --take-over (the taking session gives W back to the other on exit;\n' +
        'if the other stops first, it leaves W alone and prints what to run later), and W is put back only if it is\n' +
        'still as the session left it (its URL, its secret_rotated_at); else svc leaves it alone and says so (exit 6).\n' +
        "Changing W's URL makes you its owner; putting it back gives W back to its owner before, if they would keep\n" +
        "it (they hold its kinds' read permissions); if not, svc says you now own it. Rotating a secret is for a\n" +
        "user with their own login: with an API key or a third-party client's token (GET /v1/me says which),\n" +
        '--webhook is refused before anything starts (exit 4, user_required; nothing changed).\n' +
        '--capture DIR keeps each request in\n' +
        'DIR (0700): NNNN-<delivery>-<attempt>.headers (request line and headers as sent) and .body (the raw bytes), files\n' +
        '0600 that `svc webhooks verify --header-file F.headers --payload F.body` takes as they are; in a DIR used\n' +
        'before, numbering carries on after the highest NNNN there (nothing is overwritten). A 2xx means saved\n' +
        'whole: a valid delivery that could not be (a full disk) gets 503 with Retry-After, is not forwarded, and\n' +
        'the platform retries it; a warning names it, and nothing of it is left in DIR. A delivery id that is long\n' +
        'or holds other characters than letters, digits, ".", "_" and "-" is named by its first 60 readable\n' +
        'characters and a digest of it; F.headers holds it as sent.',
    )
    .addOption(
      new Option('--port <n>', `port to listen on; 0 picks a free one (default ${DEFAULT_LISTEN_PORT})`),
    )
    .addOption(new Option('--host <host>', 'interface to bind').default('127.0.0.1'))
    .addOption(new Option('--secret-file <file>', `file holding the signing secret (or set ${SECRET_ENV})`))
    .addOption(
      new Option('--forward-to <url>', 'send valid deliveries on to this URL, untouched (no user:password@)'),
    )
    .addOption(
      new Option(
        '--forward-timeout <seconds>',
        `with --forward-to: how long the target may take (default ${DEFAULT_FORWARD_TIMEOUT_SECONDS})`,
      ),
    )
    .addOption(
      new Option('--webhook <id>', 'point this webhook here while svc runs, and put it back on exit'),
    )
    .addOption(
      new Option('--take-over', 'with --webhook: take the webhook even when another listen session has it'),
    )
    .addOption(
      new Option(
        '--public-url <url>',
        'with --webhook: the URL the platform reaches this listener at (a tunnel; no user:password@)',
      ),
    )
    .addOption(new Option('--capture <dir>', "save each request's headers and raw body in DIR, for verify"))
    .addOption(
      new Option(
        '--tolerance <seconds>',
        `allowed clock difference, both ways (default ${DEFAULT_TOLERANCE_SECONDS}; 0: no check, so a delivery of any age is accepted, as by verify)`,
      ),
    )
    .addOption(
      new Option(
        '--max-body <MiB>',
        `refuse bodies larger than this, with 413 (default ${DEFAULT_MAX_BODY_MIB})`,
      ),
    )
    .addHelpText(
      'after',
      examples(
        ['svc webhooks listen --secret-file whsec.txt', 'receive on http://127.0.0.1:4011 and verify'],
        [
          'svc webhooks listen --port 0 --secret-file whsec.txt --forward-to http://localhost:3000/webhooks',
          'verify, then pass each delivery to your app',
        ],
        ['svc webhooks listen --secret-file whsec.txt --ndjson | jq .valid', 'one JSON object per delivery'],
        [
          'svc webhooks listen --webhook wh_123 --capture ./captured',
          'receive wh_123 here while svc runs, saving each request',
        ],
      ),
    )
    .action(async (flags: Record<string, unknown>, cmd: Command) => {
      const options = parseListen(flags);
      await runListen(await make(cmd), options);
    });
}
