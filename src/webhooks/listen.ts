// Over 300 lines: one request handler (verify, record, capture, forward, say whether the answer
// reached the sender) whose steps share its state; split, it would pass that state around.
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  clockOffsetText,
  refuseEmpty,
  type Secret,
  SIGNATURE_HEADER,
  type VerifyResult,
  verifySignature,
} from './signature.js';

/**
 * The receiving end of `svc webhooks listen`: a local HTTP server that verifies every delivery
 * (signature and timestamp), answers 2xx to valid ones and 400 to invalid ones (with
 * "invalid_signature" in the body, which the platform classifies as such), notices repeated
 * event ids, and can forward valid deliveries — the original body and headers — to another URL.
 */

export interface ForwardResult {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type Forwarder = (body: Buffer, headers: Record<string, string>) => Promise<ForwardResult>;

export interface ListenerOptions {
  host: string;
  port: number;
  /**
   * Undefined until known (`listen --webhook` learns it once the port is open): until setSecret,
   * every request is answered 503 with Retry-After, judged neither valid nor invalid. Never empty.
   */
  secret: Secret | undefined;
  toleranceSeconds: number;
  /** Unix milliseconds (the command's clock). */
  now: () => number;
  /** A larger body is refused with 413 (counted as refused, its signature never checked). */
  maxBodyBytes: number;
  forward?: Forwarder;
  /**
   * This listener's name in the Via header of what it forwards (RFC 9110 §7.6.3): a request that
   * comes back with it is a forwarding loop, answered 508 and not counted as a delivery.
   */
  via?: string;
  /** Told of each request refused as a loop (it gets no line: it is no delivery). */
  onLoop?: () => void;
  /**
   * Keeps each request as it came (head and raw body) before it is answered; returns where. A
   * valid delivery it throws for is not acknowledged: answered 503 with Retry-After, not
   * forwarded, so the sender retries it rather than count delivered what was not kept (attack19
   * F8). The error's message says why (the line's `not saved: …`).
   */
  capture?: (request: CapturedRequest, record: ReceivedDelivery) => Promise<CaptureFiles>;
  /**
   * Told of each request, once answered; but with `lineFirst`, a valid delivery that is not
   * forwarded is told first and answered only by the promise it returns: true (its line was
   * written) 200, anything else 503 with Retry-After, so it is not acknowledged: the sender
   * retries it, rather than count delivered what nobody saw.
   */
  onDelivery: (record: ReceivedDelivery) => unknown;
  /** The line is the only thing that keeps a delivery (no --capture, no --forward-to). */
  lineFirst?: boolean;
  /**
   * lineFirst: told of a valid delivery whose line was written but whose connection was gone by
   * then (the sender's attempt timed out while a slow reader held the line, or the listener was
   * stopped): it got no answer, its `not_answered` says why, and the sender retries it.
   */
  onUnanswered?: (record: ReceivedDelivery) => void;
}

/** A request as it came: its head (request line and headers, as sent) and its raw body. */
export interface CapturedRequest {
  head: string;
  body: Buffer;
}

export interface CaptureFiles {
  headers: string;
  body: string;
}

/** What `listen` prints for each request (NDJSON with --ndjson/--json). */
export interface ReceivedDelivery {
  received_at: string;
  method: string;
  path: string;
  event_id: string | null;
  event_type: string | null;
  delivery_id: string | null;
  attempt: number | null;
  valid: boolean;
  reason:
    | VerifyResult['reason']
    | 'no_signature_header'
    | 'method_not_allowed'
    | 'payload_too_large'
    | 'not_ready';
  message?: string;
  timestamp: number | null;
  bytes: number;
  /** Of the whole body; null for one over the size limit, which was not read to its end. */
  sha256: string | null;
  /** The event id was seen before in a valid delivery (a retry or a replay). */
  repeated: boolean;
  /**
   * Present, false, only with --tolerance 0: the signature was checked, the timestamp not (a
   * delivery of any age, a replayed one too, is valid).
   */
  timestamp_checked?: false;
  /** The status listen answered with. */
  status: number;
  forwarded?: { status: number } | { error: string };
  /**
   * With --forward-to: the answer reached nobody, because the sender hung up first (its own
   * timeout: it retries) or the listener was stopped while the forward ran.
   */
  not_answered?: 'sender_gave_up' | 'listener_stopped';
  /**
   * With --capture: the files holding the request's head and raw body, or why it could not be
   * saved (a valid delivery then answered 503, `status`).
   */
  capture?: CaptureFiles | { error: string };
}

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1), every header named in Connection (the same section), Host,
 * and Expect (about one connection: listen has answered its 100 Continue itself, and the forward
 * sends the whole body at once) are not forwarded; everything else is, untouched.
 */
const NOT_FORWARDED = new Set([
  'expect',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
]);

function one(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Whether a Via header names this listener (`1.1 <via>` among its entries). */
function cameBack(headers: IncomingHttpHeaders, via: string | undefined): boolean {
  if (via === undefined) return false;
  const value = headers.via;
  return (Array.isArray(value) ? value.join(',') : (value ?? ''))
    .split(',')
    .some((entry) => entry.trim().split(/\s+/)[1] === via);
}

function forwardable(headers: IncomingHttpHeaders, via: string | undefined): Record<string, string> {
  const named = new Set(
    (one(headers, 'connection') ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_FORWARDED.has(name) || named.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (via !== undefined) out.via = out.via ? `${out.via}, 1.1 ${via}` : `1.1 ${via}`;
  return out;
}

function eventFields(body: Buffer, headers: IncomingHttpHeaders): { id: string | null; type: string | null } {
  let id = one(headers, 'x-svc-event-id') ?? null;
  let type = one(headers, 'x-svc-event-type') ?? null;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { id?: unknown; type?: unknown };
    if (typeof parsed?.id === 'string') id = parsed.id;
    if (typeof parsed?.type === 'string') type = parsed.type;
  } catch {
    // not JSON: keep what the headers said
  }
  return { id, type };
}

export interface Listener {
  url: string;
  server: Server;
  /**
   * `refused`: bodies over the limit (413), whose signature was never checked; `notReady`: requests
   * answered 503 before the secret was known; `looped`: this listener's own forwards come back
   * (508), not in `received`; `notSaved`: valid deliveries answered 503 because --capture could
   * not save them (in `valid` too).
   */
  counts: {
    received: number;
    valid: number;
    invalid: number;
    refused: number;
    repeated: number;
    notReady: number;
    looped: number;
    notSaved: number;
  };
  /** Verifies from now on with this secret (`listen --webhook` learns it after the port is open). */
  setSecret(secret: Secret): void;
  /** Forwards under way (a closed listener still finishes them, then records them). */
  forwarding(): number;
  /** Resolves once no forward is under way. */
  idle(): Promise<void>;
  /** Stops accepting and drops every connection at once; forwards under way go on. */
  close(): Promise<void>;
}

/** The request line and headers as the sender wrote them (names keep their case and order). */
function requestHead(req: IncomingMessage): string {
  const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}`];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  return `${lines.join('\r\n')}\r\n`;
}

/** What a request answered 503 is told to wait (Retry-After), in seconds: before the secret is known, not printed, not saved. */
const NOT_READY_RETRY_SECONDS = 5;

export async function startListener(options: ListenerOptions): Promise<Listener> {
  const seen = new Set<string>();
  const counts = {
    received: 0,
    valid: 0,
    invalid: 0,
    refused: 0,
    repeated: 0,
    notReady: 0,
    looped: 0,
    notSaved: 0,
  };
  const maxBody = options.maxBodyBytes;
  if (options.secret !== undefined) refuseEmpty(options.secret);
  let secret = options.secret;
  let closing = false;
  let inFlight = 0;
  const whenIdle: Array<() => void> = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBody) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('error', () => res.destroy());
    // Who hung up first, decided when the connection closed unanswered: the sender (its own
    // timeout, before any Ctrl-C) or the listener being stopped.
    let gone: ReceivedDelivery['not_answered'];
    res.on('close', () => {
      if (!res.writableFinished) gone = closing ? 'listener_stopped' : 'sender_gave_up';
    });
    req.on('end', () => {
      void handle(Buffer.concat(chunks), tooLarge).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });

    const answer = (status: number, body: unknown, contentType = 'application/json') => {
      res.writeHead(status, { 'content-type': contentType });
      res.end(Buffer.isBuffer(body) ? body : JSON.stringify(body));
    };

    const handle = async (body: Buffer, oversize: boolean) => {
      if (cameBack(req.headers, options.via)) {
        counts.looped++;
        answer(508, {
          error: 'loop_detected',
          message: 'this request was forwarded by this listener itself (--forward-to leads back to it)',
        });
        options.onLoop?.();
        return;
      }
      counts.received++;
      const { id, type } = eventFields(body, req.headers);
      const attempt = Number(one(req.headers, 'x-svc-delivery-attempt'));
      const record: ReceivedDelivery = {
        received_at: new Date(options.now()).toISOString(),
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        event_id: id,
        event_type: type,
        delivery_id: one(req.headers, 'x-svc-delivery-id') ?? null,
        attempt: Number.isInteger(attempt) ? attempt : null,
        valid: false,
        reason: 'signature_mismatch',
        timestamp: null,
        bytes: oversize ? size : body.length,
        sha256: oversize ? null : createHash('sha256').update(body).digest('hex'),
        repeated: false,
        status: 400,
      };
      // Nothing is judged before the secret is known: the sender retries after a 503.
      const known = secret;
      if (known === undefined) {
        counts.notReady++;
        Object.assign(record, {
          reason: 'not_ready',
          message: 'the listener does not know its secret yet (setting the webhook up): try again',
          status: 503,
        });
        res.setHeader('retry-after', String(NOT_READY_RETRY_SECONDS));
        answer(503, { error: 'not_ready', message: record.message });
        options.onDelivery(record);
        return;
      }
      if (options.capture && !oversize) {
        try {
          record.capture = await options.capture({ head: requestHead(req), body }, record);
        } catch (error) {
          record.capture = { error: error instanceof Error ? error.message : String(error) };
        }
      }
      const reject = (status: number, reason: ReceivedDelivery['reason'], message: string, extra = {}) => {
        if (status === 413) counts.refused++;
        else counts.invalid++;
        Object.assign(record, { status, reason, message, ...extra });
        answer(status, { error: status === 400 ? 'invalid_signature' : reason, reason, message });
        options.onDelivery(record);
      };
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        return reject(405, 'method_not_allowed', 'webhook deliveries are POST requests');
      }
      if (oversize) return reject(413, 'payload_too_large', `the body is larger than ${maxBody} bytes`);
      const header = one(req.headers, SIGNATURE_HEADER);
      if (header === undefined)
        return reject(400, 'no_signature_header', 'the request has no X-SVC-Signature header');
      const result = verifySignature(body, header, known, {
        toleranceSeconds: options.toleranceSeconds,
        nowSeconds: Math.floor(options.now() / 1000),
      });
      if (!result.valid) {
        const message =
          result.message ??
          (result.reason === 'signature_mismatch'
            ? 'the signature does not match the body (wrong secret?)'
            : `the timestamp is ${clockOffsetText(result.age!)}, outside the tolerance of ${options.toleranceSeconds} s`);
        return reject(400, result.reason, message, { timestamp: result.timestamp });
      }
      counts.valid++;
      record.valid = true;
      record.reason = 'valid';
      record.timestamp = result.timestamp;
      if (options.toleranceSeconds === 0) record.timestamp_checked = false;
      if (id !== null) {
        record.repeated = seen.has(id);
        if (record.repeated) counts.repeated++;
      }
      // Seen once it is taken (kept, printed, forwarded): one answered 503 is not, and its retry is
      // no repeat (review19c F4).
      const taken = () => {
        if (id !== null) seen.add(id);
      };
      // Not kept, so not acknowledged: the sender retries it (and it is forwarded once it is kept).
      if (record.capture !== undefined && 'error' in record.capture) {
        counts.notSaved++;
        record.status = 503;
        res.setHeader('retry-after', String(NOT_READY_RETRY_SECONDS));
        answer(503, {
          error: 'not_saved',
          message: `the delivery could not be saved (${record.capture.error}): try again`,
        });
        options.onDelivery(record);
        return;
      }
      if (!options.forward) {
        record.status = 200;
        if (options.lineFirst && (await options.onDelivery(record)) !== true) {
          record.status = 503;
          res.setHeader('retry-after', String(NOT_READY_RETRY_SECONDS));
          answer(503, { error: 'not_printed', message: "the listener's output is gone: try again" });
          return;
        }
        taken();
        // The line is out; the answer can come too late: a sender that gave up, a listener stopped.
        if (options.lineFirst && (gone !== undefined || res.destroyed || req.socket.destroyed)) {
          record.not_answered = gone ?? (closing ? 'listener_stopped' : 'sender_gave_up');
          options.onUnanswered?.(record);
          return;
        }
        answer(200, { received: true, event_id: id });
        if (!options.lineFirst) options.onDelivery(record);
        return;
      }
      taken();
      inFlight++;
      try {
        const forwarded = await options.forward(body, forwardable(req.headers, options.via));
        if (gone || res.destroyed)
          record.not_answered = gone ?? (closing ? 'listener_stopped' : 'sender_gave_up');
        record.status = forwarded.status;
        record.forwarded = { status: forwarded.status };
        answer(
          forwarded.status,
          forwarded.body,
          forwarded.headers['content-type'] ?? 'application/octet-stream',
        );
      } catch (error) {
        record.status = 502;
        record.forwarded = { error: error instanceof Error ? error.message : String(error) };
        if (gone || res.destroyed)
          record.not_answered = gone ?? (closing ? 'listener_stopped' : 'sender_gave_up');
        answer(502, { error: 'forward_failed', message: record.forwarded.error });
      } finally {
        inFlight--;
      }
      options.onDelivery(record);
      if (inFlight === 0) for (const resolve of whenIdle.splice(0)) resolve();
    };
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${address.port}`,
    server,
    counts,
    setSecret: (next) => {
      refuseEmpty(next);
      secret = next;
    },
    forwarding: () => inFlight,
    idle: () =>
      inFlight === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            whenIdle.push(resolve);
          }),
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
