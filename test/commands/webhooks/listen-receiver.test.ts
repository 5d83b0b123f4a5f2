/**
 * `svc webhooks listen` as a receiver developer meets it (s10 receiver findings): --tolerance 0
 * says plainly that the timestamp is not checked (banner, --help, each line, NDJSON); a delivery
 * sent with `Expect: 100-continue` is forwarded (listen answered the 100 itself), and headers
 * named in Connection are not; "from the target" is said only when the target answered; a body
 * over the limit is refused as too large (not counted invalid), and --max-body raises the limit.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../../src/webhooks/signature.js';
import { startInProcess } from '../../helpers/context.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { startTarget, type Target } from '../../helpers/targets.js';

const svc = useSandboxContext();
const targets: Target[] = [];
afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
});
const SECRET = 'whsec_receiver';
const listen = (args: string[]) =>
  startInProcess(
    ['webhooks', 'listen', '--port', '0', ...args],
    { ...svc.env(), SVC_WEBHOOK_SECRET: SECRET },
    {
      now: Date.now(),
    },
  );
const address = async (run: ReturnType<typeof listen>) =>
  (await run.waitForStderr(/listening on (http:\/\/\S+) /))[1]!;
const BODY = '{"id":"evt_rcv","type":"webhook.test","data":{}}';

function post(
  url: string,
  options: {
    at?: number;
    body?: string | Buffer;
    headers?: Record<string, string>;
    abortAfterMs?: number;
  } = {},
): Promise<number> {
  const body = options.body ?? BODY;
  return new Promise((resolve) => {
    const headers: Record<string, string> = {
      'x-svc-signature': signatureHeader(SECRET, options.at ?? Math.floor(Date.now() / 1000), body),
      ...options.headers,
    };
    const req = httpRequest(`${url}/in`, { method: 'POST', headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    // Like curl: with Expect, the body goes once the 100 Continue came.
    if (headers.expect) req.on('continue', () => req.end(body));
    req.on('error', () => resolve(0));
    if (options.abortAfterMs !== undefined) setTimeout(() => req.destroy(), options.abortAfterMs);
    if (!headers.expect) req.end(body);
  });
}

describe('listen --tolerance 0: the timestamp is not checked, and svc says so everywhere', () => {
  it('banner, each line and --help say the timestamp is NOT checked; a 2001 signature is valid', async () => {
    const run = listen(['--tolerance', '0']);
    const url = await address(run);
    expect(run.stderr()).toContain(
      'checking the signature only: the timestamp is NOT checked (--tolerance 0), so a delivery of any age, a replayed one too, is accepted',
    );
    expect(run.stderr()).not.toContain('±0 s');
    expect(await post(url, { at: 1_000_000_000 })).toBe(200);
    await expect.poll(run.stdout, { timeout: 5000 }).toContain('evt_rcv');
    expect(run.stdout()).toContain('→ 200  (timestamp not checked)');
    run.interrupt();
    expect((await run.done).code).toBe(0);

    const machine = listen(['--tolerance', '0', '--ndjson']);
    expect(await post(await address(machine), { at: 1_000_000_000 })).toBe(200);
    await expect.poll(machine.stdout, { timeout: 5000 }).toContain('evt_rcv');
    expect(JSON.parse(machine.stdout())).toMatchObject({
      valid: true,
      timestamp: 1_000_000_000,
      timestamp_checked: false,
    });
    machine.interrupt();
    await machine.done;

    const help = await svc.run(['webhooks', 'listen', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      '--tolerance <seconds> allowed clock difference, both ways (default 300; 0: no check, so a delivery of any age is accepted',
    );
  }, 20_000);

  it('with a tolerance the banner names it and a valid line carries no note', async () => {
    const run = listen(['--tolerance', '5']);
    const url = await address(run);
    expect(run.stderr()).toContain('verifying the signature and the timestamp (tolerance ±5 s)');
    expect(await post(url)).toBe(200);
    expect(await post(url, { at: 1_000_000_000 })).toBe(400);
    run.interrupt();
    const done = await run.done;
    expect(done.stdout).not.toContain('not checked');
    expect(JSON.stringify(done.stdout)).not.toContain('timestamp_checked');
  });
});

describe('listen --forward-to: what is forwarded', () => {
  it('forwards a delivery sent with Expect: 100-continue (not the Expect header), and no header named in Connection', async () => {
    const target = await startTarget(() => ({ status: 200, body: 'ok' }));
    targets.push(target);
    const run = listen(['--forward-to', target.url]);
    const url = await address(run);
    expect(await post(url, { headers: { expect: '100-continue' } })).toBe(200);
    expect(
      await post(url, { headers: { connection: 'keep-alive, X-Drop', 'x-drop': 'hop', 'x-kept': 'yes' } }),
    ).toBe(200);
    run.interrupt();
    const done = await run.done;
    expect(done.stdout).not.toContain('forward failed');
    expect(target.received).toHaveLength(2);
    expect(target.received[0]!.headers.expect).toBeUndefined();
    expect(target.received[0]!.body.toString()).toBe(BODY);
    expect(target.received[1]!.headers['x-drop']).toBeUndefined();
    expect(target.received[1]!.headers['x-kept']).toBe('yes');
  });

  it('says "from the target" only when the target answered', async () => {
    const hang = await startTarget(() => 'hang');
    targets.push(hang);
    const run = listen(['--forward-to', hang.url, '--forward-timeout', '1']);
    expect(await post(await address(run), { abortAfterMs: 200 })).toBe(0);
    await expect.poll(run.stdout, { timeout: 5000 }).toContain('evt_rcv');
    expect(run.stdout()).not.toContain('→ 502 from the target');
    expect(run.stdout()).toContain(
      '→ 502: no answer from the target, and the sender had already given up: it will retry  (forward failed: the target did not answer within 1 s)',
    );
    run.interrupt();
    await run.done;
  }, 20_000);
});

describe('listen: the body size limit', () => {
  it('refuses a body over 5 MiB as too large (not invalid); --max-body raises the limit; --help says so', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 1, 'a');
    const run = listen([]);
    const url = await address(run);
    expect(await post(url, { body: big })).toBe(413);
    await expect.poll(run.stdout, { timeout: 5000 }).toContain('413');
    expect(run.stdout()).toContain('✗ too large');
    expect(run.stdout()).not.toContain('invalid');
    run.interrupt();
    const done = await run.done;
    expect(done.stderr).toContain(
      'stopped after 1 request: 0 valid, 0 invalid, 1 refused as too large (over 5 MiB: see --max-body)',
    );

    const roomy = listen(['--max-body', '6']);
    expect(await post(await address(roomy), { body: big })).toBe(200);
    roomy.interrupt();
    expect((await roomy.done).stderr).toContain('stopped after 1 request: 1 valid, 0 invalid\n');

    // --ndjson: the body was not read to its end, so no sha256 is claimed for it (review s10 b, 3).
    const lines = listen(['--ndjson']);
    expect(await post(await address(lines), { body: big })).toBe(413);
    lines.interrupt();
    const record = JSON.parse((await lines.done).stdout.trim());
    expect([record.reason, record.bytes, record.sha256]).toEqual(['payload_too_large', big.length, null]);

    const help = await svc.run(['webhooks', 'listen', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      '--max-body <MiB> refuse bodies larger than this, with 413 (default 5)',
    );
    const bad = await svc.run(['webhooks', 'listen', '--max-body', '0']);
    expect(bad.code).toBe(2);
  }, 30_000);
});
