/**
 * `svc webhooks listen` tells the truth about the webhook it takes over and the deliveries it
 * forwards: a second session on the same webhook is refused (exit 6) instead of taking the first
 * one's listener as "the URL to put back"; on exit W is put back only if it is still as this
 * session left it (its URL and its secret rotation), and otherwise left alone, saying so (exit 6)
 * with the right commands; the first Ctrl-C puts W back before waiting for a forward in flight, and
 * a second one abandons the forward, not the restore (exit 130); a forward answered after the
 * sender hung up says so; times carry their zone.
 *
 * Past 300 lines: its cases share one sandbox and the helpers at its top (a listen session, the
 * webhook as the platform has it, its signing secrets, forward targets); split, both halves would
 * carry them.
 */

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { request as httpRequest } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { type Clock, realTimer } from '../../../src/system/clock.js';
import { signatureHeader } from '../../../src/webhooks/signature.js';
import { startInProcess } from '../../helpers/context.js';
import { spawnSvc } from '../../helpers/oauth.js';
import { call, useSandboxContext } from '../../helpers/sandbox.js';
import { gate, startTarget, type Target } from '../../helpers/targets.js';
import { admin, createWebhook, emit, webhookNow } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const targets: Target[] = [];
afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
});

const webhookOf = (id: string) => webhookNow(svc.sandbox(), id);
const secrets = async (id: string) =>
  (await call(svc.sandbox(), 'GET', `/_sandbox/webhooks/${id}/secret`)).body;
const listen = (args: string[], env: Record<string, string | undefined> = {}, tty = false, clock?: Clock) =>
  startInProcess(
    ['webhooks', 'listen', '--port', '0', ...args],
    { ...svc.env(), ...env },
    {
      ...(clock ? { clock } : { now: Date.now() }),
      tty: { stdout: tty },
    },
  );

/**
 * A clock whose forward timeouts (`--forward-timeout 1`: 1,000 ms) end when the test says, not
 * after a real second; svc's other timers (its requests to the platform, 30 s) are real.
 */
function forwardClock(): { clock: Clock; expire: () => void; set: () => number } {
  const expiries = new Set<() => void>();
  return {
    clock: {
      now: () => Date.now(),
      timer: (ms, expire) => {
        if (ms !== 1000) return realTimer(ms, expire);
        expiries.add(expire);
        return () => expiries.delete(expire);
      },
    },
    expire: () => {
      for (const expire of expiries) expire();
      expiries.clear();
    },
    set: () => expiries.size,
  };
}

/** Resolves once svc has the head of an answer from `origin` (undici's own channel) and has read it. */
function headOf(origin: string): Promise<void> {
  return new Promise((resolve) => {
    const heard = (message: unknown) => {
      if ((message as { request: { origin: string } }).request.origin !== origin) return;
      unsubscribe('undici:request:headers', heard);
      // Told before svc's handler has the head: its turn first.
      setImmediate(resolve);
    };
    subscribe('undici:request:headers', heard);
  });
}

describe('listen --webhook W: one session at a time, and W put back only as it was left', () => {
  it('refuses a second session on W (exit 6), and the first still puts W back', async () => {
    const { id, secret } = await createWebhook(svc.sandbox(), 'https://hooks.example/a');
    const a = listen(['--webhook', id]);
    await a.waitForStderr(/delivers here/);
    const during = await webhookOf(id);
    expect(during.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\?svc-listen=[0-9a-f]{12}$/);

    const b = await svc.run(['webhooks', 'listen', '--webhook', id, '--port', '0'], { now: Date.now() });
    expect(b.code, b.stderr).toBe(6);
    expect(b.stderr.trim().split('\n')).toHaveLength(1);
    expect(b.stderr).toContain(
      `error: webhook ${id} is already taken over by another \`svc webhooks listen\` session (its URL is ${during.url});`,
    );
    expect(b.stderr).toContain('stop that session (Ctrl-C where it runs)');
    expect(b.stderr).toContain('--take-over');
    // B changed nothing.
    expect(await webhookOf(id)).toEqual(during);

    a.interrupt();
    const done = await a.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(
      `✓ webhook ${id} is back: https://hooks.example/a, signing with the secret it had before this session`,
    );
    expect((await webhookOf(id)).url).toBe('https://hooks.example/a');
    expect(await secrets(id)).toEqual({ id, secret, previous_secret: null });
  }, 30_000);

  it('leaves W alone when someone else changed its URL, and says so (exit 6): its secret, the secret-only fix, the full one', async () => {
    const { id, secret } = await createWebhook(svc.sandbox(), 'https://hooks.example/b');
    const a = listen(['--webhook', id]);
    await a.waitForStderr(/delivers here/);
    await admin(svc.sandbox(), 'PATCH', `/v1/webhooks/${id}`, { url: 'https://elsewhere.example/x' });
    const changed = await webhookOf(id);
    a.interrupt();
    const done = await a.done;
    expect(done.code, done.stderr).toBe(6);
    expect(done.stderr).not.toContain('✓');
    expect(done.stderr).toContain(
      `error: webhook ${id} was changed by someone else while this session ran (its URL is now https://elsewhere.example/x); ` +
        `svc left it alone, so it still signs with this session's secret, and with the one it had before only until ` +
        `${changed.previous_secret_expires_at}; to keep the new URL, undo only this session's rotation: ` +
        `svc api POST /v1/webhooks/${id}/restore-secret; to put it back as it was before this session: ` +
        `svc api PATCH /v1/webhooks/${id} -f url=https://hooks.example/b && svc api POST /v1/webhooks/${id}/restore-secret\n`,
    );
    expect(await webhookOf(id)).toEqual(changed);
    expect((await secrets(id)).secret).not.toBe(secret);
    // The secret-only fix, as printed: the other admin's URL stays, the old secret is back.
    expect((await svc.run(['api', 'POST', `/v1/webhooks/${id}/restore-secret`])).code).toBe(0);
    expect((await webhookOf(id)).url).toBe('https://elsewhere.example/x');
    expect(await secrets(id)).toEqual({ id, secret, previous_secret: null });
  }, 30_000);

  it('says W was deleted while it ran: nothing to put back, exit 6, no restore commands', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/gone');
    const a = listen(['--webhook', id]);
    await a.waitForStderr(/delivers here/);
    expect((await admin(svc.sandbox(), 'DELETE', `/v1/webhooks/${id}`)).status).toBe(200);
    a.interrupt();
    const done = await a.done;
    expect(done.code, done.stderr).toBe(6);
    const error = done.stderr.slice(done.stderr.indexOf('error:'));
    expect(error).toBe(
      `error: webhook ${id} was deleted while this session ran (webhook ${id} not found); there is nothing to put back\n` +
        'stopped after 0 requests: 0 valid, 0 invalid\n',
    );
  }, 30_000);

  it('leaves W alone when its secret was rotated again, and does not suggest undoing that rotation', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/c');
    const a = listen(['--webhook', id]);
    await a.waitForStderr(/delivers here/);
    // Another second on the platform's clock (its times are to the second), then someone rotates.
    await call(svc.sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: 2 } });
    await admin(svc.sandbox(), 'POST', `/v1/webhooks/${id}/rotate-secret`, {});
    const changed = await webhookOf(id);
    a.interrupt();
    const done = await a.done;
    expect(done.code, done.stderr).toBe(6);
    expect(done.stderr).not.toContain('✓');
    expect(done.stderr).toContain(`its secret was rotated or restored since this session rotated it`);
    expect(done.stderr).toContain(`svc api PATCH /v1/webhooks/${id} -f url=https://hooks.example/c`);
    const error = done.stderr.slice(done.stderr.indexOf('error:'));
    expect(error).toContain('restore-secret would undo the newer rotation');
    expect(error).not.toContain('svc api POST');
    expect(await webhookOf(id)).toEqual(changed);
  }, 30_000);

  it('--take-over takes W from another session; each then tells the truth about what it put back', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'https://hooks.example/d');
    const a = listen(['--webhook', id]);
    await a.waitForStderr(/delivers here/);
    const aUrl = (await webhookOf(id)).url;
    const b = listen(['--webhook', id, '--take-over']);
    await b.waitForStderr(/delivers here/);
    expect(b.stderr()).toContain(`taking webhook ${id} over from another \`svc webhooks listen\` session`);
    a.interrupt();
    expect((await a.done).code).toBe(6);
    b.interrupt();
    const done = await b.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).not.toContain('✓ webhook');
    expect(done.stderr).toContain(
      `webhook ${id} is back as it was when this session started: ${aUrl}, another listen session's listener`,
    );
  }, 30_000);
});

describe('listen: stopping, forwarding and times', () => {
  it('through the binary: the first SIGINT puts W back at once and says it waits for the forward; a second abandons it (130)', async () => {
    const slow: Target = await startTarget(() => 'hang');
    targets.push(slow);
    const { id, secret } = await createWebhook(svc.sandbox(), 'https://hooks.example/e');
    const live = spawnSvc(
      ['webhooks', 'listen', '--webhook', id, '--port', '0', '--forward-to', slow.url],
      svc.env(),
    );
    try {
      await live.waitForStderr(/delivers here/);
      await emit(svc.sandbox(), id, 1);
      // Through the spawned listener: a bound far above need (a spawned svc once ran 5 s late on CI).
      await expect.poll(() => slow.received.length, { timeout: 30_000 }).toBe(1);
      live.child.kill('SIGINT');
      await live.waitForStderr(/waiting for 1 forward in flight \(Ctrl-C again to abandon it\)/);
      expect(live.stderr()).toContain(`✓ webhook ${id} is back: https://hooks.example/e`);
      expect((await webhookOf(id)).url).toBe('https://hooks.example/e');
      live.child.kill('SIGINT');
    } finally {
      // A failed step above must not leave the listener running after the test.
      if (live.child.exitCode === null) setTimeout(() => live.child.kill('SIGKILL'), 30_000).unref();
    }
    const result = await live.done;
    expect(result.code, result.stderr).toBe(130);
    expect((await webhookOf(id)).url).toBe('https://hooks.example/e');
    expect((await secrets(id)).secret).toBe(secret);
  }, 60_000);

  const body = '{"id":"evt_truth","type":"webhook.test","data":{}}';
  /** A delivery to the listener; with `hangUp`, the sender gives up once that has settled. */
  const post = (url: string, hangUp?: () => PromiseLike<unknown>) =>
    new Promise<number>((resolve) => {
      const headers = {
        'x-svc-signature': signatureHeader('whsec_truth', Math.floor(Date.now() / 1000), body),
      };
      const req = httpRequest(`${url}/in`, { method: 'POST', headers, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      if (hangUp) void Promise.resolve(hangUp()).then(() => req.destroy());
      req.end(body);
    });
  /** Once the target has received `count` forwards (a bound far above need). */
  const forwarded = (target: Target, count: number) => () =>
    expect.poll(() => target.received.length, { timeout: 30_000 }).toBe(count);
  /**
   * Turns of the event loop, each with its I/O phase, for the in-process listener to take in the
   * hang-up the sender has just made on loopback (its socket's end, then its close): ordered by the
   * loop, not by a duration.
   */
  const hangUpTaken = async () => {
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
  };
  const address = async (run: ReturnType<typeof listen>) =>
    (await run.waitForStderr(/listening on (http:\/\/\S+) /))[1]!;

  it('a forward answered after the sender hung up says the sender gave up first', async () => {
    // The sender gives up once the forward has reached the target (never "after 150 ms", which a
    // loaded machine can spend before the listener has the delivery); the target answers after that.
    const held = gate();
    const late = await startTarget(() => ({ status: 200, until: held.until }));
    targets.push(late);
    const run = listen(['--forward-to', late.url], { SVC_WEBHOOK_SECRET: 'whsec_truth' });
    expect(await post(await address(run), forwarded(late, 1))).toBe(0);
    await hangUpTaken();
    held.open();
    await expect
      .poll(run.stdout, { timeout: 5000 })
      .toContain('→ 200 from the target, but the sender gave up first: it will retry');
    run.interrupt();
    expect((await run.done).code).toBe(0);
  }, 20_000);

  it.each([
    ['--ndjson', true],
    ['lines', false],
  ])(
    'says which came first, the sender hanging up or the listener stopping (%s)',
    async (_, machine) => {
      // The target holds each answer until the listener is stopped: the forward is still running.
      let held = gate();
      const late = await startTarget(() => ({ status: 200, until: held.until }));
      targets.push(late);
      const run = listen([...(machine ? ['--ndjson'] : []), '--forward-to', late.url], {
        SVC_WEBHOOK_SECRET: 'whsec_truth',
      });
      const url = await address(run);
      // The sender gives up, and only then is the listener stopped (the forward still running).
      expect(await post(url, forwarded(late, 1))).toBe(0);
      await hangUpTaken();
      run.interrupt();
      // Stopped (and waiting for the forward) before the target answers it.
      await run.waitForStderr(/waiting for 1 forward in flight/);
      held.open();
      const first = await run.done;
      expect(first.code, first.stderr).toBe(0);
      if (machine) expect(JSON.parse(first.stdout).not_answered).toBe('sender_gave_up');
      else
        expect(first.stdout).toContain('→ 200 from the target, but the sender gave up first: it will retry');

      // The listener is stopped while the sender still waits.
      held = gate();
      const again = listen([...(machine ? ['--ndjson'] : []), '--forward-to', late.url], {
        SVC_WEBHOOK_SECRET: 'whsec_truth',
      });
      const answered = post(await address(again));
      await expect.poll(() => late.received.length, { timeout: 5000 }).toBe(2);
      again.interrupt();
      await again.waitForStderr(/waiting for 1 forward in flight/);
      held.open();
      expect(await answered).toBe(0);
      const second = await again.done;
      if (machine) expect(JSON.parse(second.stdout).not_answered).toBe('listener_stopped');
      else
        expect(second.stdout).toContain(
          '→ 200 from the target, but the listener had stopped: the sender will retry',
        );
    },
    20_000,
  );

  it('gives the forward a timeout no longer than the platform attempt (10 s, or --forward-timeout)', async () => {
    const hang = await startTarget(() => 'hang');
    targets.push(hang);
    const timeout = forwardClock();
    const run = listen(
      ['--forward-to', hang.url, '--forward-timeout', '1'],
      { SVC_WEBHOOK_SECRET: 'whsec_truth' },
      false,
      timeout.clock,
    );
    const answered = post(await address(run));
    // The target has the delivery and the forward's second is running: it ends now.
    await expect.poll(() => hang.received.length + timeout.set(), { timeout: 10_000 }).toBe(2);
    timeout.expire();
    expect(await answered).toBe(502);
    await expect
      .poll(run.stdout, { timeout: 5000 })
      .toContain('→ 502  (forward failed: the target did not answer within 1 s)');
    run.interrupt();
    await run.done;
    const help = await svc.run(['webhooks', 'listen', '--help']);
    expect(help.stdout).toContain('--forward-timeout <seconds>');
    expect(help.stdout).toMatch(/default 10\)/);
    const bad = await svc.run(['webhooks', 'listen', '--forward-timeout', '0', '--forward-to', hang.url]);
    expect(bad.code).toBe(2);
  }, 20_000);

  // Review s10 b, 6: a target that sent its head and then hung got Node's "The operation was aborted
  // due to timeout"; it is said in svc's words, in every output mode, and still counts as a 502.
  it.each([
    ['lines', []],
    ['--json', ['--json']],
    ['--ndjson', ['--ndjson']],
  ])(
    'a target that starts its answer and never finishes it: svc says so (%s)',
    async (mode, flags) => {
      const stall = await startTarget(() => 'stall');
      targets.push(stall);
      const timeout = forwardClock();
      const run = listen(
        [...flags, '--forward-to', stall.url, '--forward-timeout', '1'],
        { SVC_WEBHOOK_SECRET: 'whsec_truth' },
        false,
        timeout.clock,
      );
      const head = headOf(new URL(stall.url).origin);
      const answered = post(await address(run));
      // svc has the target's head and waits for the rest: the forward's second ends now.
      await head;
      expect(timeout.set()).toBe(1);
      timeout.expire();
      expect(await answered).toBe(502);
      const said = 'the target answered 200 but did not finish its answer within 1 s';
      await expect.poll(run.stdout, { timeout: 5000 }).toContain('502');
      run.interrupt();
      const done = await run.done;
      expect(done.code, done.stderr).toBe(0);
      if (mode === 'lines') {
        expect(done.stdout).toContain(`→ 502  (forward failed: ${said})`);
      } else {
        const record = JSON.parse(done.stdout.trim().split('\n')[0]!);
        expect(record).toMatchObject({ status: 502, forwarded: { error: said } });
      }
      expect(done.stdout + done.stderr).not.toMatch(/aborted|Timeout/);
    },
    20_000,
  );

  it.each([
    [true, /^\d\d:\d\d:\d\dZ {2}✓ valid/],
    [false, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}✓ valid/],
  ])('prints times with their zone (terminal %s)', async (tty, pattern) => {
    const run = listen([], { SVC_WEBHOOK_SECRET: 'whsec_truth' }, tty);
    expect(await post(await address(run))).toBe(200);
    await expect.poll(run.stdout, { timeout: 5000 }).toContain('evt_truth');
    expect(run.stdout()).toMatch(pattern);
    run.interrupt();
    await run.done;
  });

  it('--help names the capture files as they are, and says how listen exits', async () => {
    const help = await svc.run(['webhooks', 'listen', '--help']);
    expect(help.stdout).toContain('NNNN-<delivery>-<attempt>.headers');
    expect(help.stdout).toContain('Exit 0 when stopped by Ctrl-C');
  });
});
