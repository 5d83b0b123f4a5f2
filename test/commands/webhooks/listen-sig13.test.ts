/**
 * `svc webhooks listen`, session 13's signature findings: nothing is judged before the secret is
 * known (503 with Retry-After while `--webhook` sets the webhook up; an empty key is refused
 * outright); a secret a sender put in the header is masked on stdout, human and NDJSON; a capture
 * directory used before carries on after its highest number; a --forward-to of the listener's own
 * address is refused at start, and a forward that comes back is answered 508, not counted.
 */
import { createHmac } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, createServer as httpServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { parseListen } from '../../../src/commands/webhooks/listen.js';
import { runListen } from '../../../src/commands/webhooks/listen-run.js';
import { startListener } from '../../../src/webhooks/listen.js';
import { signatureHeader, verifySignature } from '../../../src/webhooks/signature.js';
import { startInProcess } from '../../helpers/context.js';
import { reservedPort } from '../../helpers/ports.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { startTarget, type Target } from '../../helpers/targets.js';
import { useTempDir } from '../../helpers/temp.js';
import { createWebhook } from '../../helpers/webhooks.js';

const svc = useSandboxContext();
const tmp = useTempDir('svc-listen-sig13-');
const targets: Target[] = [];
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await Promise.all(targets.map((t) => t.close()));
});
const SECRET = 'whsec_sig13_secret_123456';
const BODY = '{"id":"evt_s13","type":"webhook.test","data":{}}';
const listen = (args: string[], env: Record<string, string> = { SVC_WEBHOOK_SECRET: SECRET }) =>
  startInProcess(['webhooks', 'listen', ...args], { ...svc.env(), ...env }, { now: Date.now() });
const address = async (run: ReturnType<typeof listen>) =>
  (await run.waitForStderr(/listening on (http:\/\/\S+) /))[1]!;
const now = () => Math.floor(Date.now() / 1000);
/** Signed with the empty key, as anybody can (svc's own signer refuses to). */
const forgedHeader = () => {
  const t = now();
  return `t=${t},v1=${createHmac('sha256', '').update(`${t}.${BODY}`).digest('hex')}`;
};

function post(
  url: string,
  headers: Record<string, string>,
  body = BODY,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', () => resolve({ status: 0, headers: {}, body: '' }));
    req.end(body);
  });
}

describe('nothing is judged before the secret is known (finding 0)', () => {
  it('the verifier refuses an empty secret outright', () => {
    const header = signatureHeader('whsec_x', now(), BODY).replace(/v1=[0-9a-f]+/, `v1=${'0'.repeat(64)}`);
    expect(() => verifySignature(BODY, header, '')).toThrow(/empty/);
    expect(() => verifySignature(BODY, header, Buffer.alloc(0))).toThrow(/empty/);
  });

  it('a listener without its secret yet answers 503 with Retry-After, counted as neither valid nor invalid', async () => {
    const records: unknown[] = [];
    const listener = await startListener({
      host: '127.0.0.1',
      port: 0,
      secret: undefined,
      toleranceSeconds: 300,
      maxBodyBytes: 1024 * 1024,
      now: () => Date.now(),
      onDelivery: (record) => records.push(record),
    });
    const forged = forgedHeader();
    const answer = await post(listener.url, { 'x-svc-signature': forged });
    expect([answer.status, answer.headers['retry-after']]).toEqual([503, '5']);
    expect(records).toEqual([expect.objectContaining({ valid: false, reason: 'not_ready', status: 503 })]);
    expect(listener.counts).toMatchObject({ received: 1, valid: 0, invalid: 0, notReady: 1 });
    expect(() => listener.setSecret('')).toThrow(/empty/);
    listener.setSecret(SECRET);
    expect((await post(listener.url, { 'x-svc-signature': forged })).status).toBe(400);
    expect(
      (await post(listener.url, { 'x-svc-signature': signatureHeader(SECRET, now(), BODY) })).status,
    ).toBe(200);
    await listener.close();
  });

  it('listen --webhook: a request signed with the empty key while W is set up is 503, never valid or forwarded', async () => {
    const { id } = await createWebhook(svc.sandbox(), 'http://127.0.0.1:9/none');
    const app = await startTarget(() => ({ status: 200, body: 'ok' }));
    targets.push(app);
    const port = await reservedPort();
    const stop = new AbortController();
    const { ctx, stdout, stderr } = svc.context({
      signal: stop.signal,
      now: Date.now(),
    });
    // Set-up cannot end while the rotation is held in the sandbox: every answer until it is let go
    // is one given during set-up, however slow the machine.
    const rotation = svc
      .sandbox()
      .faults.hold((method, url) => method === 'POST' && url === `/v1/webhooks/${id}/rotate-secret`);
    let forgedAnswer: Awaited<ReturnType<typeof post>>;
    const running = runListen(
      ctx,
      parseListen({ webhook: id, port: String(port), forwardTo: `${app.url}/fwd` }),
    );
    // However the test ends, the listener is stopped and its end awaited: never left running, or
    // rejecting unhandled into the next file once this file's client is closed.
    const stopped = () => {
      stop.abort();
      return running;
    };
    onTestFinished(() => stopped().catch(() => {}));
    try {
      const forged = forgedHeader();
      // Until the port answers at all, keep trying: the first answer is within set-up.
      for (;;) {
        forgedAnswer = await post(`http://127.0.0.1:${port}/`, { 'x-svc-signature': forged });
        if (forgedAnswer.status !== 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(stderr()).not.toContain('delivers here');
    } finally {
      rotation.release();
    }
    expect(forgedAnswer.status).toBe(503);
    expect(forgedAnswer.headers['retry-after']).toBe('5');
    await expect.poll(stderr, { timeout: 20_000 }).toContain(`webhook ${id} delivers here`);
    await stopped();
    expect(app.received).toEqual([]);
    // One human line: not judged (neither valid nor invalid), answered 503.
    expect(stdout()).toMatch(
      /^\S+ {2}✗ not ready {2}webhook\.test {2}evt_s13 {2}- {2}\d+ B {2}→ 503 {2}\(not_ready: the listener does not know its secret yet \(setting the webhook up\): try again\)\n$/,
    );
    expect(stderr()).toContain(
      'stopped after 1 request: 0 valid, 0 invalid, 1 answered 503 before the secret was known',
    );
  }, 40_000);
});

describe('a secret in the header is masked on stdout (finding 1)', () => {
  it.each([
    ['human lines', [], '(malformed_header: element 1 of the header ("[redacted]") is not key=value)'],
    ['NDJSON', ['--ndjson'], '"message":"element 1 of the header (\\"[redacted]\\") is not key=value"'],
  ])('%s', async (_name, flags, shown) => {
    const run = listen(['--port', '0', ...flags]);
    const url = await address(run);
    expect((await post(url, { 'x-svc-signature': SECRET })).status).toBe(400);
    expect((await post(url, { 'x-svc-signature': `t=1,v1=${SECRET}` })).status).toBe(400);
    await expect.poll(() => run.stdout().split('\n').length, { timeout: 5000 }).toBe(3);
    run.interrupt();
    const { stdout } = await run.done;
    expect(stdout).not.toContain('sig13_secret');
    expect(stdout).toContain(shown);
    expect(stdout).toContain('got "[redacted]"'.replace(/"/g, flags.length ? '\\"' : '"'));
  });
});

describe('--capture DIR used before (finding 2)', () => {
  it('carries on after the highest NNNN already there, never overwriting', async () => {
    const dir = join(tmp, 'again');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, '0001-request.headers'), 'old');
    writeFileSync(join(dir, '0001-request.body'), 'old');
    writeFileSync(join(dir, '0007-dlv_1-1.headers'), 'old');
    writeFileSync(join(dir, '0007-dlv_1-1.body'), 'old');
    writeFileSync(join(dir, 'notes.txt'), 'not a capture');
    const run = listen(['--port', '0', '--capture', dir]);
    const url = await address(run);
    expect((await post(url, { 'x-svc-signature': signatureHeader(SECRET, now(), BODY) })).status).toBe(200);
    await expect.poll(run.stdout, { timeout: 5000 }).toContain('(saved 0008-request)');
    run.interrupt();
    await run.done;
    expect(readdirSync(dir).sort()).toEqual([
      '0001-request.body',
      '0001-request.headers',
      '0007-dlv_1-1.body',
      '0007-dlv_1-1.headers',
      '0008-request.body',
      '0008-request.headers',
      'notes.txt',
    ]);
  });
});

const withoutHost = (headers: Record<string, unknown>) => {
  const { host: _host, ...rest } = headers;
  return rest as Record<string, string>;
};

describe('--forward-to the listener itself (finding 7)', () => {
  it('is refused at start (checked once the port is bound, so --port 0 too), before anything is received', async () => {
    const port = await reservedPort();
    for (const [args, shown] of [
      [['--port', String(port), '--forward-to', `http://localhost:${port}/`], `http://localhost:${port}/`],
      [
        ['--port', String(port), '--forward-to', `http://127.0.0.1:${port}/loop`],
        `http://127.0.0.1:${port}/loop`,
      ],
    ] as const) {
      const run = listen([...args]);
      // Old code listened on: stop it, so the test fails instead of hanging.
      const result = await Promise.race([
        run.done,
        run.waitForStderr(/listening on/).then(() => {
          run.interrupt();
          return run.done;
        }),
      ]);
      expect([result.code, result.stderr]).toEqual([
        2,
        `error: --forward-to ${shown} is this listener's own address (127.0.0.1:${port}): each delivery would be forwarded to itself without end; pass your app's URL\n`,
      ]);
    }
  });

  it('a forward that comes back (a longer loop) is answered 508 and not counted as a delivery', async () => {
    // A target that sends whatever it gets back to the listener: a loop through another process.
    let listenerUrl = '';
    const loopBack = await new Promise<{ url: string; close: () => Promise<void> }>((resolve) => {
      const server = httpServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const forward = httpRequest(
            listenerUrl,
            { method: 'POST', headers: withoutHost(req.headers), agent: false },
            (answer) => {
              res.writeHead(answer.statusCode ?? 502);
              answer.pipe(res);
            },
          );
          forward.end(Buffer.concat(chunks));
        });
      });
      server.listen(0, '127.0.0.1', () =>
        resolve({
          url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
          close: () => new Promise((done) => server.close(() => done())),
        }),
      );
    });
    const run = listen(['--port', '0', '--forward-to', loopBack.url, '--ndjson']);
    listenerUrl = await address(run);
    const answer = await post(listenerUrl, { 'x-svc-signature': signatureHeader(SECRET, now(), BODY) });
    expect(answer.status).toBe(508);
    run.interrupt();
    const { stdout, stderr } = await run.done;
    await loopBack.close();
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      expect.objectContaining({ valid: true, status: 508, forwarded: { status: 508 } }),
    ]);
    expect(stderr).toContain(
      'stopped after 1 request: 1 valid, 0 invalid; 1 request it forwarded came back and was refused (508 Loop Detected: check --forward-to)',
    );
  });
});
