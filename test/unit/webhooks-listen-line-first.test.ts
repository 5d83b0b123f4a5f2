// lineFirst (`svc webhooks listen` without --capture or --forward-to): a valid delivery is answered
// only once its line is written. Before, it was answered 200 and then its line failed to write:
// delivered for the platform, seen by nobody.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type Listener, type ReceivedDelivery, startListener } from '../../src/webhooks/listen.js';
import { signatureHeader } from '../../src/webhooks/signature.js';

const SECRET = 'whsec_line_first';
const NOW_MS = Date.parse('2026-01-15T12:00:00.250Z');
const BODY = '{"id":"evt_1","type":"webhook.test","data":{}}';

const listeners: Listener[] = [];
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((l) => l.close()));
});

function post(url: string, body: string, signature: string) {
  return new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
    const req = httpRequest(
      `${url}/hooks`,
      { method: 'POST', headers: { 'x-svc-signature': signature }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('startListener with lineFirst', () => {
  it.each<[string, boolean, number]>([
    ['written', true, 200],
    ['not written', false, 503],
  ])(
    'a valid delivery whose line was %s (%s) is answered %i, after onDelivery settled',
    async (_, written, status) => {
      const events: string[] = [];
      let release!: (value: boolean) => void;
      const listener = await startListener({
        host: '127.0.0.1',
        port: 0,
        secret: SECRET,
        toleranceSeconds: 300,
        maxBodyBytes: 1024 * 1024,
        now: () => NOW_MS,
        lineFirst: true,
        onDelivery: (record: ReceivedDelivery) => {
          events.push(`told ${record.status}`);
          return new Promise<boolean>((resolve) => {
            release = resolve;
          });
        },
      });
      listeners.push(listener);
      const answered = post(
        listener.url,
        BODY,
        signatureHeader(SECRET, Math.floor(NOW_MS / 1000), BODY),
      ).then((r) => {
        events.push(`answered ${r.status}`);
        return r;
      });
      await expect.poll(() => events).toEqual(['told 200']);
      events.push('line settled');
      release(written);
      const r = await answered;
      expect(events).toEqual(['told 200', 'line settled', `answered ${status}`]);
      expect(r.retryAfter).toBe(written ? undefined : '5');
    },
  );
});

describe('startListener with lineFirst: a line that went out after its connection did (review16b B2)', () => {
  it.each<[string, 'sender_gave_up' | 'listener_stopped']>([
    ['the sender gave up (its attempt timed out)', 'sender_gave_up'],
    ['the listener was stopped (Ctrl-C)', 'listener_stopped'],
  ])('%s: the delivery is told unanswered, not counted answered', async (_, why) => {
    let release!: (value: boolean) => void;
    const told: ReceivedDelivery[] = [];
    const unanswered: ReceivedDelivery[] = [];
    const listener = await startListener({
      host: '127.0.0.1',
      port: 0,
      secret: SECRET,
      toleranceSeconds: 300,
      maxBodyBytes: 1024 * 1024,
      now: () => NOW_MS,
      lineFirst: true,
      onDelivery: (record: ReceivedDelivery) => {
        told.push(record);
        return new Promise<boolean>((resolve) => {
          release = resolve;
        });
      },
      onUnanswered: (record) => unanswered.push(record),
    });
    listeners.push(listener);
    const req = httpRequest(`${listener.url}/hooks`, {
      method: 'POST',
      headers: { 'x-svc-signature': signatureHeader(SECRET, Math.floor(NOW_MS / 1000), BODY) },
      agent: false,
    });
    const closed = new Promise<void>((resolve) => req.on('close', () => resolve()));
    req.on('error', () => {});
    req.end(BODY);
    await expect.poll(() => told.length).toBe(1);
    if (why === 'sender_gave_up') req.destroy();
    else await listener.close();
    await closed;
    release(true);
    await expect.poll(() => unanswered.length).toBe(1);
    expect(unanswered[0]).toBe(told[0]);
    expect(unanswered[0]!.not_answered).toBe(why);
  });
});
