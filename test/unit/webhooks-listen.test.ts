// Over 300 lines: mostly tables of exact inputs and outputs, one block per function, so a
// module's whole contract reads in one file.
// The receiving end of `svc webhooks listen` (src/webhooks/listen.ts), in-process: what it
// answers, what it records for each request, what it forwards and captures. The CLI tests drive
// it through the binary; these pin every field and status so a change to any of them is seen.
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ForwardResult,
  type Listener,
  type ListenerOptions,
  type ReceivedDelivery,
  startListener,
} from '../../src/webhooks/listen.js';
import { signatureHeader } from '../../src/webhooks/signature.js';

const SECRET = 'whsec_listen_unit';
const NOW_MS = Date.parse('2026-01-15T12:00:00.250Z');
const NOW_S = Math.floor(NOW_MS / 1000);
const BODY = '{"id":"evt_1","type":"webhook.test","data":{}}';

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
    maxBodyBytes: 5 * 1024 * 1024,
    now: () => NOW_MS,
    onDelivery: (r) => records.push(r),
    ...extra,
  });
  listeners.push(listener);
  return { listener, records };
}

/** A raw request (fetch would refuse some of these): status, content type, body. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string | string[]>; body?: string | Buffer } = {},
): Promise<{
  status: number;
  type: string | undefined;
  allow: string | undefined;
  retryAfter: string | undefined;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/hooks?x=1`,
      { method: options.method ?? 'POST', headers: options.headers ?? {}, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: res.headers['content-type'],
            allow: res.headers.allow,
            retryAfter: res.headers['retry-after'],
            body: text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const signed = (body = BODY, at = NOW_S, secret = SECRET) => ({
  'x-svc-signature': signatureHeader(secret, at, body),
});
const SHA = (text: string) => createHash('sha256').update(text).digest('hex');

describe('startListener', () => {
  it('answers a valid delivery 200 and records every field of it', async () => {
    const { listener, records } = await listen();
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const answer = await send(listener.url, {
      headers: { ...signed(), 'x-svc-delivery-id': 'dlv_1', 'x-svc-delivery-attempt': '3' },
      body: BODY,
    });
    expect(answer).toEqual({
      status: 200,
      type: 'application/json',
      allow: undefined,
      body: '{"received":true,"event_id":"evt_1"}',
    });
    expect(records).toEqual([
      {
        received_at: '2026-01-15T12:00:00.250Z',
        method: 'POST',
        path: '/hooks?x=1',
        event_id: 'evt_1',
        event_type: 'webhook.test',
        delivery_id: 'dlv_1',
        attempt: 3,
        valid: true,
        reason: 'valid',
        timestamp: NOW_S,
        bytes: Buffer.byteLength(BODY),
        sha256: SHA(BODY),
        repeated: false,
        status: 200,
      },
    ]);
    expect(listener.counts).toEqual({
      received: 1,
      valid: 1,
      invalid: 0,
      refused: 0,
      repeated: 0,
      notReady: 0,
      looped: 0,
      notSaved: 0,
    });
  });

  it('marks an event id seen before in a valid delivery as repeated (not one seen in an invalid one)', async () => {
    const { listener, records } = await listen();
    await send(listener.url, { headers: signed(BODY, NOW_S, 'whsec_other'), body: BODY });
    await send(listener.url, { headers: signed(), body: BODY });
    await send(listener.url, { headers: signed(), body: BODY });
    const other = '{"id":"evt_2"}';
    await send(listener.url, { headers: signed(other), body: other });
    expect(records.map((r) => [r.event_id, r.valid, r.repeated])).toEqual([
      ['evt_1', false, false],
      ['evt_1', true, false],
      ['evt_1', true, true],
      ['evt_2', true, false],
    ]);
    expect(listener.counts).toEqual({
      received: 4,
      valid: 3,
      invalid: 1,
      refused: 0,
      repeated: 1,
      notReady: 0,
      looped: 0,
      notSaved: 0,
    });
  });

  it('takes the event id and type from the headers when the body is not JSON, the body winning otherwise', async () => {
    const { listener, records } = await listen();
    const text = 'plain text';
    const headers = { 'x-svc-event-id': 'evt_h', 'x-svc-event-type': 'type.h' };
    await send(listener.url, { headers: { ...signed(text), ...headers }, body: text });
    await send(listener.url, { headers: { ...signed(), ...headers }, body: BODY });
    await send(listener.url, { headers: signed('[1]'), body: '[1]' });
    await send(listener.url, { headers: { ...signed('{"id":7}'), ...headers }, body: '{"id":7}' });
    expect(records.map((r) => [r.event_id, r.event_type, r.attempt, r.delivery_id])).toEqual([
      ['evt_h', 'type.h', null, null],
      ['evt_1', 'webhook.test', null, null],
      [null, null, null, null],
      ['evt_h', 'type.h', null, null],
    ]);
    // No event id: nothing to repeat.
    await send(listener.url, { headers: signed('[1]'), body: '[1]' });
    expect(records.at(-1)!.repeated).toBe(false);
  });

  it.each([
    ['1.5', null],
    ['x', null],
    ['0', 0],
  ])('reads x-svc-delivery-attempt %j as %j', async (header, attempt) => {
    const { listener, records } = await listen();
    await send(listener.url, { headers: { ...signed(), 'x-svc-delivery-attempt': header }, body: BODY });
    expect(records[0]!.attempt).toBe(attempt);
  });

  it.each([
    [
      'a forged signature',
      () => signed(BODY, NOW_S, 'whsec_other'),
      {
        reason: 'signature_mismatch',
        message: 'the signature does not match the body (wrong secret?)',
        timestamp: NOW_S,
      },
    ],
    [
      'a stale timestamp',
      () => signed(BODY, NOW_S - 301),
      {
        reason: 'timestamp_outside_tolerance',
        message: "the timestamp is 301 s before the verifier's clock, outside the tolerance of 300 s",
        timestamp: NOW_S - 301,
      },
    ],
    [
      'a malformed header',
      () => ({ 'x-svc-signature': 't=soon' }),
      {
        reason: 'malformed_header',
        message: 't must be a Unix timestamp in whole seconds, got "soon"',
        timestamp: null,
      },
    ],
    [
      'no signature header',
      () => ({}),
      {
        reason: 'no_signature_header',
        message: 'the request has no X-SVC-Signature header',
        timestamp: null,
      },
    ],
  ])('answers %s 400 invalid_signature, saying why', async (_name, headers, expected) => {
    const { listener, records } = await listen();
    const answer = await send(listener.url, { headers: headers(), body: BODY });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      error: 'invalid_signature',
      reason: expected.reason,
      message: expected.message,
    });
    expect(records[0]).toMatchObject({ valid: false, status: 400, ...expected });
    expect(listener.counts).toEqual({
      received: 1,
      valid: 0,
      invalid: 1,
      refused: 0,
      repeated: 0,
      notReady: 0,
      looped: 0,
      notSaved: 0,
    });
  });

  it('accepts a timestamp exactly at the tolerance, and any with tolerance 0', async () => {
    const { listener, records } = await listen();
    await send(listener.url, { headers: signed(BODY, NOW_S - 300), body: BODY });
    await send(listener.url, { headers: signed(BODY, NOW_S + 300), body: BODY });
    const lax = await listen({ toleranceSeconds: 0 });
    await send(lax.listener.url, { headers: signed(BODY, NOW_S - 86_400), body: BODY });
    expect([...records, ...lax.records].map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('refuses another method with 405 and an Allow header', async () => {
    const { listener, records } = await listen();
    const answer = await send(listener.url, { method: 'PUT', headers: signed(), body: BODY });
    expect(answer).toEqual({
      status: 405,
      type: 'application/json',
      allow: 'POST',
      body: JSON.stringify({
        error: 'method_not_allowed',
        reason: 'method_not_allowed',
        message: 'webhook deliveries are POST requests',
      }),
    });
    expect(records[0]).toMatchObject({ method: 'PUT', reason: 'method_not_allowed', status: 405 });
  });

  it('refuses a body over the limit with 413, counting its bytes, capturing nothing', async () => {
    const captured: string[] = [];
    const { listener, records } = await listen({
      maxBodyBytes: 10,
      capture: async (request) => {
        captured.push(request.head);
        return { headers: 'h', body: 'b' };
      },
    });
    const answer = await send(listener.url, { headers: signed('x'.repeat(11)), body: 'x'.repeat(11) });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({
      error: 'payload_too_large',
      reason: 'payload_too_large',
      message: 'the body is larger than 10 bytes',
    });
    expect(records[0]).toMatchObject({ bytes: 11, status: 413, reason: 'payload_too_large' });
    expect(records[0]!.capture).toBeUndefined();
    expect(captured).toEqual([]);
    // Exactly at the limit is fine.
    expect((await send(listener.url, { headers: signed('y'.repeat(10)), body: 'y'.repeat(10) })).status).toBe(
      200,
    );
  });

  it('verifies with a secret set after start', async () => {
    const { listener } = await listen({ secret: 'whsec_placeholder' });
    expect((await send(listener.url, { headers: signed(), body: BODY })).status).toBe(400);
    listener.setSecret(SECRET);
    expect((await send(listener.url, { headers: signed(), body: BODY })).status).toBe(200);
  });

  it('forwards a valid delivery with its headers (not hop-by-hop ones) and answers with the target’s answer', async () => {
    const calls: Array<{ body: string; headers: Record<string, string> }> = [];
    const { listener, records } = await listen({
      forward: async (body, headers): Promise<ForwardResult> => {
        calls.push({ body: body.toString('utf8'), headers });
        return { status: 202, headers: { 'content-type': 'text/plain' }, body: Buffer.from('queued') };
      },
    });
    const answer = await send(listener.url, {
      headers: { ...signed(), 'x-extra': ['a', 'b'], connection: 'keep-alive', te: 'trailers' },
      body: BODY,
    });
    expect(answer).toEqual({ status: 202, type: 'text/plain', allow: undefined, body: 'queued' });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toBe(BODY);
    expect(calls[0]!.headers).toEqual({
      'x-svc-signature': signed()['x-svc-signature'],
      'x-extra': 'a, b',
      'content-length': String(BODY.length),
    });
    expect(records[0]).toMatchObject({ status: 202, forwarded: { status: 202 }, valid: true });
  });

  it('forwards no hop-by-hop header (RFC 9110 §7.6.1) and no Host, whatever their case', async () => {
    const seen: Array<Record<string, string>> = [];
    const { listener } = await listen({
      forward: async (_body, headers) => {
        seen.push(headers);
        return { status: 204, headers: {}, body: Buffer.alloc(0) };
      },
    });
    const { port } = new URL(listener.url);
    const hop = [
      'Keep-Alive: timeout=5',
      'Proxy-Connection: keep-alive',
      'TE: trailers',
      'Trailer: X-Checksum',
      'Upgrade: h2c',
      'Proxy-Authorization: Basic abc',
      'Proxy-Authenticate: Basic',
    ];
    const request = [
      'POST /hooks HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      `X-SVC-Signature: ${signed()['x-svc-signature']}`,
      'X-Kept: yes',
      ...hop,
      'Transfer-Encoding: chunked',
      'Connection: close, Upgrade',
      '',
      `${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n`,
    ].join('\r\n');
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.end(request));
      let text = '';
      socket.on('data', (c) => {
        text += c.toString('utf8');
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 204 No Content');
    expect(seen).toEqual([{ 'x-svc-signature': signed()['x-svc-signature'], 'x-kept': 'yes' }]);
  });

  it('answers 502 forward_failed when the target cannot be reached, and octet-stream when it names no type', async () => {
    let fail = true;
    const { listener, records } = await listen({
      forward: async () => {
        if (fail) throw new Error('connect ECONNREFUSED 127.0.0.1:9');
        return { status: 200, headers: {}, body: Buffer.from('ok') };
      },
    });
    const failed = await send(listener.url, { headers: signed(), body: BODY });
    expect(failed.status).toBe(502);
    expect(JSON.parse(failed.body)).toEqual({
      error: 'forward_failed',
      message: 'connect ECONNREFUSED 127.0.0.1:9',
    });
    expect(records[0]).toMatchObject({
      status: 502,
      forwarded: { error: 'connect ECONNREFUSED 127.0.0.1:9' },
    });
    fail = false;
    const ok = await send(listener.url, { headers: signed(), body: BODY });
    expect([ok.status, ok.type, ok.body]).toEqual([200, 'application/octet-stream', 'ok']);
    expect(records).toHaveLength(2);
  });

  it('answers 500 rather than hang when handling a request fails', async () => {
    const { listener, records } = await listen({
      now: () => {
        throw new Error('clock broke');
      },
    });
    const answer = await send(listener.url, { headers: signed(), body: BODY });
    expect([answer.status, answer.body]).toEqual([500, '']);
    expect(records).toEqual([]);
  });

  it('never forwards an invalid delivery', async () => {
    let forwarded = 0;
    const { listener } = await listen({
      forward: async () => {
        forwarded++;
        return { status: 200, headers: {}, body: Buffer.alloc(0) };
      },
    });
    expect((await send(listener.url, { headers: {}, body: BODY })).status).toBe(400);
    expect(forwarded).toBe(0);
  });

  it('captures the request head as sent and the raw body, before answering; a failed capture is recorded and answered 503', async () => {
    const heads: string[] = [];
    const bodies: string[] = [];
    let fail = false;
    const { listener, records } = await listen({
      capture: async (request, record) => {
        if (fail) throw new Error('disk full');
        heads.push(request.head);
        bodies.push(request.body.toString('utf8'));
        return { headers: `${record.sha256}.head`, body: `${record.sha256}.body` };
      },
    });
    const header = signed()['x-svc-signature'];
    await send(listener.url, { headers: { 'X-SVC-Signature': header, 'X-Mixed-Case': 'v' }, body: BODY });
    expect(heads[0]).toBe(
      `POST /hooks?x=1 HTTP/1.1\r\nX-SVC-Signature: ${header}\r\nX-Mixed-Case: v\r\nHost: ${listener.url.slice(7)}\r\nConnection: close\r\nContent-Length: ${BODY.length}\r\n`,
    );
    expect(bodies).toEqual([BODY]);
    expect(records[0]!.capture).toEqual({ headers: `${SHA(BODY)}.head`, body: `${SHA(BODY)}.body` });
    // Not kept, so not acknowledged (attack19 F8): the sender retries it.
    fail = true;
    const answer = await send(listener.url, { headers: signed(), body: BODY });
    expect(answer).toMatchObject({ status: 503, retryAfter: '5' });
    expect(JSON.parse(answer.body)).toEqual({
      error: 'not_saved',
      message: 'the delivery could not be saved (disk full): try again',
    });
    expect(records[1]).toMatchObject({ valid: true, status: 503, capture: { error: 'disk full' } });
    expect(listener.counts).toMatchObject({ received: 2, valid: 2, notSaved: 1 });
    // An invalid one keeps its 400: a capture that failed changes nothing of its answer.
    await send(listener.url, { headers: signed(BODY, NOW_S, 'whsec_other'), body: BODY });
    expect(records[2]).toMatchObject({ valid: false, status: 400, capture: { error: 'disk full' } });
    expect(listener.counts.notSaved).toBe(1);
  });

  it('forwards nothing it could not save: the retry the 503 asks for is forwarded once saved', async () => {
    let forwarded = 0;
    const { listener, records } = await listen({
      capture: async () => {
        throw new Error('disk full');
      },
      forward: async () => {
        forwarded++;
        return { status: 200, headers: {}, body: Buffer.alloc(0) };
      },
    });
    expect((await send(listener.url, { headers: signed(), body: BODY })).status).toBe(503);
    expect(forwarded).toBe(0);
    expect(records[0]).toMatchObject({ valid: true, status: 503 });
    expect(records[0]!.forwarded).toBeUndefined();
  });

  // An IPv6 host's URL: webhooks-listen-ipv6.test.ts.
  it('refuses a port in use', async () => {
    const first = await listen();
    const port = Number(new URL(first.listener.url).port);
    await expect(listen({ port })).rejects.toThrow(/EADDRINUSE/);
  });

  it('closes with its connections', async () => {
    const { listener } = await listen();
    await send(listener.url, { headers: signed(), body: BODY });
    await listener.close();
    listeners.splice(listeners.indexOf(listener), 1);
    await expect(send(listener.url, { headers: signed(), body: BODY })).rejects.toThrow(/ECONNREFUSED/);
  });
});
