/**
 * A webhook secret is bytes (an HMAC key): --secret-file is read as bytes (one final newline
 * removed), SVC_WEBHOOK_SECRET is its UTF-8 encoding, and sign, verify and listen use exactly
 * those bytes. And a timestamp outside the tolerance is said in the same words by verify and listen.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startListener } from '../../src/webhooks/listen.js';
import { clockOffsetText, signatureHeader } from '../../src/webhooks/signature.js';
import { runInProcess, useTempDirs } from '../helpers/context.js';
import { useTempFiles } from '../helpers/temp.js';

const { file } = useTempFiles('svc-secret-bytes-');
const dirs = useTempDirs();
const T = 1_700_000_000;
const body = '{"id":"evt_1","type":"webhook.test"}';
const svc = (args: string[], env: Record<string, string> = {}) =>
  runInProcess(args, { ...dirs(), NO_COLOR: '1', ...env }, { now: T * 1000 });

describe('webhook secrets are bytes', () => {
  const a = file('a.secret', Buffer.from('secret\xff', 'latin1'));
  const b = file('b.secret', Buffer.from('secret\xfe\n', 'latin1'));
  const payload = file('body.json', body);
  const sign = (secret: string) =>
    svc(['webhooks', 'sign', '--secret-file', secret, '--payload', payload, '--at', String(T)]);
  const verify = (secret: string, header: string) =>
    svc(['webhooks', 'verify', '--secret-file', secret, '--header', header, '--payload', payload]);

  it('sign uses the raw bytes of --secret-file (the final newline removed) as the HMAC key', async () => {
    const signed = await sign(b);
    expect(signed.code, signed.stderr).toBe(0);
    const expected = createHmac('sha256', Buffer.from('secret\xfe', 'latin1'))
      .update(`${T}.${body}`)
      .digest('hex');
    expect(signed.stdout).toBe(`t=${T},v1=${expected}\n`);
  });

  it("secrets 'secret\\xff' and 'secret\\xfe' do not verify each other", async () => {
    const signed = await sign(b);
    const header = signed.stdout.trim();
    const other = await verify(a, header);
    expect(other.code).toBe(8);
    const same = await verify(b, header);
    expect(same.code, same.stderr).toBe(0);
  });

  it('SVC_WEBHOOK_SECRET is UTF-8 encoded', async () => {
    const signed = await svc(['webhooks', 'sign', '--payload', payload, '--at', String(T)], {
      SVC_WEBHOOK_SECRET: 'sécret',
    });
    const expected = createHmac('sha256', Buffer.from('sécret', 'utf8')).update(`${T}.${body}`).digest('hex');
    expect(signed.stdout).toBe(`t=${T},v1=${expected}\n`);
  });

  it('listen verifies with the raw bytes too', async () => {
    const key = Buffer.from('secret\xff', 'latin1');
    const seen: boolean[] = [];
    const listener = await startListener({
      host: '127.0.0.1',
      port: 0,
      secret: key,
      toleranceSeconds: 300,
      maxBodyBytes: 1024,
      now: () => T * 1000,
      onDelivery: (r) => seen.push(r.valid),
    });
    try {
      for (const secret of [key, Buffer.from('secret\xfe', 'latin1')]) {
        await fetch(listener.url, {
          method: 'POST',
          body,
          headers: { 'x-svc-signature': signatureHeader(secret, T, body) },
        });
      }
    } finally {
      await listener.close();
    }
    expect(seen).toEqual([true, false]);
  });
});

describe('a timestamp outside the tolerance, in the same words everywhere', () => {
  it.each([
    [1000, "1000 s before the verifier's clock"],
    [-1000, "1000 s after the verifier's clock (in the future)"],
  ])('age %i: %s', (age, words) => {
    expect(clockOffsetText(age)).toBe(words);
  });

  it('listen says which way, with no bare negative number', async () => {
    const messages: Array<string | undefined> = [];
    const listener = await startListener({
      host: '127.0.0.1',
      port: 0,
      secret: 'whsec_x',
      toleranceSeconds: 300,
      maxBodyBytes: 1024,
      now: () => T * 1000,
      onDelivery: (r) => messages.push(r.message),
    });
    try {
      for (const t of [T + 1000, T - 1000]) {
        await fetch(listener.url, {
          method: 'POST',
          body,
          headers: { 'x-svc-signature': signatureHeader('whsec_x', t, body) },
        });
      }
    } finally {
      await listener.close();
    }
    expect(messages).toEqual([
      "the timestamp is 1000 s after the verifier's clock (in the future), outside the tolerance of 300 s",
      "the timestamp is 1000 s before the verifier's clock, outside the tolerance of 300 s",
    ]);
  });
});
