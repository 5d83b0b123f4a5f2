// Edges of src/webhooks/listen.ts that test/unit/webhooks-listen*.test.ts leave open (found by the
// seventeenth session's mutation run): a forward that comes back (Via), a request before the
// secret is known, headers named in Connection, the counts of refused and invalid requests, the
// forwards under way and idle(), and who hung up first while a forward ran.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ForwardResult,
  type Listener,
  type ListenerOptions,
  type ReceivedDelivery,
  startListener,
} from '../../src/webhooks/listen.js';
import { signatureHeader } from '../../src/webhooks/signature.js';

const SECRET = 'whsec_listen_edges';
const NOW_MS = Date.parse('2026-01-15T12:00:00.250Z');
const NOW_S = Math.floor(NOW_MS / 1000);
const BODY = '{"id":"evt_1","type":"webhook.test","data":{}}';
const SIGNED = { 'x-svc-signature': signatureHeader(SECRET, NOW_S, BODY) };

const listeners: Listener[] = [];
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((l) => l.close()));
});

async function listen(extra: Partial<ListenerOptions> = {}) {
  const records: ReceivedDelivery[] = [];
  const listener = await startListener({
    host: '127.0.0.1',
    port: 0,
    secret: SECRET,
    toleranceSeconds: 300,
    maxBodyBytes: 1024,
    now: () => NOW_MS,
    onDelivery: (r) => records.push(r),
    ...extra,
  });
  listeners.push(listener);
  return { listener, records };
}

type Answer = { status: number; retryAfter: string | undefined; body: string };
function send(url: string, headers: Record<string, string>, body = BODY): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/hooks`, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: text }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A forward that waits to be released; `calls` holds the headers of each one. */
function heldForward() {
  const calls: Array<Record<string, string>> = [];
  const releases: Array<() => void> = [];
  const forward = (_body: Buffer, headers: Record<string, string>) => {
    calls.push(headers);
    return new Promise<ForwardResult>((resolve) => {
      releases.push(() => resolve({ status: 202, headers: {}, body: Buffer.from('ok') }));
    });
  };
  return { calls, releases, forward };
}

describe('startListener: a forward that comes back to it (Via)', () => {
  it('answers 508 loop_detected to a request whose Via names it, and counts it apart', async () => {
    let loops = 0;
    const { listener, records } = await listen({ via: 'svc-listen-a1', onLoop: () => loops++ });
    const answer = await send(listener.url, { ...SIGNED, via: '1.0 proxy, 1.1 svc-listen-a1' });
    expect(answer.status).toBe(508);
    expect(JSON.parse(answer.body)).toEqual({
      error: 'loop_detected',
      message: 'this request was forwarded by this listener itself (--forward-to leads back to it)',
    });
    expect(loops).toBe(1);
    expect(records).toEqual([]);
    expect(listener.counts).toMatchObject({ received: 0, looped: 1 });
  });

  it('takes a Via naming another listener for a delivery, and adds itself to the Via it forwards', async () => {
    const forwarded: Array<Record<string, string>> = [];
    const forward = async (_body: Buffer, headers: Record<string, string>): Promise<ForwardResult> => {
      forwarded.push(headers);
      return { status: 200, headers: {}, body: Buffer.alloc(0) };
    };
    const { listener } = await listen({ via: 'svc-listen-a1', forward });
    expect((await send(listener.url, { ...SIGNED, via: '1.1 svc-listen-a10' })).status).toBe(200);
    expect((await send(listener.url, SIGNED)).status).toBe(200);
    expect(forwarded.map((h) => h.via)).toEqual([
      '1.1 svc-listen-a10, 1.1 svc-listen-a1',
      '1.1 svc-listen-a1',
    ]);
    expect(listener.counts).toMatchObject({ received: 2, valid: 2, looped: 0 });
  });
});

describe('startListener: before the secret is known', () => {
  it('answers 503 not_ready with Retry-After 5, judging nothing', async () => {
    const { listener, records } = await listen({ secret: undefined });
    const answer = await send(listener.url, SIGNED);
    expect(answer).toEqual({
      status: 503,
      retryAfter: '5',
      body: JSON.stringify({
        error: 'not_ready',
        message: 'the listener does not know its secret yet (setting the webhook up): try again',
      }),
    });
    expect(records).toEqual([
      expect.objectContaining({
        valid: false,
        reason: 'not_ready',
        status: 503,
        message: 'the listener does not know its secret yet (setting the webhook up): try again',
      }),
    ]);
    expect(listener.counts).toMatchObject({ received: 1, notReady: 1, valid: 0, invalid: 0 });
  });
});

describe('startListener: what it forwards and counts', () => {
  it('forwards no header named in Connection, whatever its case', async () => {
    const { calls, releases, forward } = heldForward();
    const { listener } = await listen({ forward });
    const answered = send(listener.url, {
      ...SIGNED,
      connection: ' X-Drop , close',
      'x-drop': '1',
      'x-keep': '2',
    });
    await expect.poll(() => releases.length).toBe(1);
    releases[0]!();
    expect((await answered).status).toBe(202);
    expect(calls[0]).toEqual({
      'x-svc-signature': SIGNED['x-svc-signature'],
      'x-keep': '2',
      'content-length': String(BODY.length),
    });
  });

  it('counts a body over the limit as refused and a bad signature as invalid', async () => {
    const { listener } = await listen({ maxBodyBytes: 10 });
    expect((await send(listener.url, SIGNED)).status).toBe(413);
    expect((await send(listener.url, { 'x-svc-signature': 'nonsense' }, 'short')).status).toBe(400);
    expect(listener.counts).toMatchObject({ received: 2, refused: 1, invalid: 1, valid: 0 });
  });

  it('marks timestamp_checked false only with tolerance 0', async () => {
    for (const toleranceSeconds of [0, 300]) {
      const { listener, records } = await listen({ toleranceSeconds });
      await send(listener.url, SIGNED);
      expect(records[0]!.timestamp_checked).toBe(toleranceSeconds === 0 ? false : undefined);
      expect('timestamp_checked' in records[0]!).toBe(toleranceSeconds === 0);
    }
  });

  it('tells the forwards under way, and idle() resolves only once the last one has ended', async () => {
    const { releases, forward } = heldForward();
    const { listener, records } = await listen({ forward });
    expect(listener.forwarding()).toBe(0);
    await listener.idle();
    const answers = [send(listener.url, SIGNED), send(listener.url, SIGNED)];
    await expect.poll(() => releases.length).toBe(2);
    expect(listener.forwarding()).toBe(2);
    let idle = false;
    const whenIdle = listener.idle().then(() => {
      idle = true;
    });
    releases[0]!();
    await expect.poll(() => records.length).toBe(1);
    expect(listener.forwarding()).toBe(1);
    expect(idle).toBe(false);
    releases[1]!();
    await whenIdle;
    expect(listener.forwarding()).toBe(0);
    expect((await Promise.all(answers)).map((a) => a.status)).toEqual([202, 202]);
  });
});

describe('startListener: a forward whose answer reached nobody', () => {
  async function heldRequest(stop: 'none' | 'sender' | 'listener' | 'sender, then listener') {
    const { releases, forward } = heldForward();
    const { listener, records } = await listen({ forward });
    const req = httpRequest(`${listener.url}/hooks`, { method: 'POST', headers: SIGNED, agent: false });
    const closed = new Promise<void>((resolve) => req.on('close', () => resolve()));
    req.on('response', (res) => res.resume());
    req.on('error', () => {});
    req.end(BODY);
    await expect.poll(() => releases.length).toBe(1);
    if (stop.startsWith('sender')) {
      req.destroy();
      await closed;
      // The listener sees the connection close before it is stopped.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (stop.endsWith('listener')) {
      await listener.close();
      await closed;
      await new Promise((resolve) => setImmediate(resolve));
    }
    releases[0]!();
    if (stop === 'none') await closed;
    await expect.poll(() => records.length).toBe(1);
    return records[0]!;
  }

  it.each([
    ['the sender gave up', 'sender', 'sender_gave_up'],
    ['the listener was stopped', 'listener', 'listener_stopped'],
    ['the sender gave up, then the listener was stopped', 'sender, then listener', 'sender_gave_up'],
  ] as const)('%s: not_answered says so', async (_name, stop, why) => {
    const record = await heldRequest(stop);
    expect(record).toMatchObject({ status: 202, forwarded: { status: 202 }, not_answered: why });
  });

  it('an answered forward has no not_answered', async () => {
    const record = await heldRequest('none');
    expect(record.forwarded).toEqual({ status: 202 });
    expect('not_answered' in record).toBe(false);
  });
});
