/**
 * `svc webhooks listen --forward-to https://…` and NODE_TLS_REJECT_UNAUTHORIZED=0 (review24c M1):
 * a forward carries the delivery and no credential of svc's, to the user's own app, often behind a
 * self-signed certificate; the variable is honoured for it, as Node would, and listen says so once
 * on stderr (Node's own warning is svc's to word). Without the variable, the certificate is checked.
 */

import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signatureHeader } from '../../../src/webhooks/signature.js';
import { startInProcess } from '../../helpers/context.js';
import { needs } from '../../helpers/needs.js';
import { useSandboxContext } from '../../helpers/sandbox.js';
import { selfSignedCertificate } from '../../helpers/tls.js';

const svc = useSandboxContext();
const SECRET = 'whsec_forward_tls';
const BODY = '{"id":"evt_tls","type":"webhook.test","data":{}}';

function post(url: string): Promise<number> {
  const headers = { 'x-svc-signature': signatureHeader(SECRET, Math.floor(Date.now() / 1000), BODY) };
  return new Promise((resolve) => {
    const req = httpRequest(`${url}/in`, { method: 'POST', headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end(BODY);
  });
}

needs('openssl').describe('listen --forward-to an https target with a self-signed certificate', () => {
  let target = '';
  let requests = 0;
  const server = createHttpsServer();
  beforeAll(async () => {
    const { key, cert } = await selfSignedCertificate('127.0.0.1');
    server.setSecureContext({ key, cert });
    server.on('request', (req, res) => {
      requests++;
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    target = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const run = async (env: Record<string, string>) => {
    const live = startInProcess(
      ['webhooks', 'listen', '--port', '0', '--forward-to', `${target}/hook`],
      { ...svc.env(), SVC_WEBHOOK_SECRET: SECRET, ...env },
      { now: Date.now() },
    );
    const url = (await live.waitForStderr(/listening on (http:\/\/\S+) /))[1]!;
    expect(await post(url)).toBeGreaterThan(0);
    await expect.poll(live.stdout, { timeout: 10_000 }).toContain('→');
    live.interrupt();
    return live.done;
  };

  it('NODE_TLS_REJECT_UNAUTHORIZED=0: forwarded, and one warning says the target is not checked', async () => {
    requests = 0;
    const done = await run({ NODE_TLS_REJECT_UNAUTHORIZED: '0' });
    expect(done.code).toBe(0);
    expect(requests).toBe(1);
    expect(done.stdout).toContain('→ 200  (forwarded → 200)');
    const warnings = done.stderr.split('\n').filter((l) => l.includes('NODE_TLS_REJECT_UNAUTHORIZED'));
    expect(warnings).toEqual([
      `warning: NODE_TLS_REJECT_UNAUTHORIZED=0: the TLS certificate of ${target} (--forward-to) is not checked; a forward carries no credentials of svc's, and svc's requests to the platform still check theirs`,
    ]);
  });

  // s25 fixtr 1: the refusal was Node's own words ("forward failed: self-signed certificate"); it is
  // said as the platform's is (connect-failure.ts), naming the target and the fix. Node 24 adds its
  // own --use-system-ca advice to the reason, which svc leaves out: the same line on 20 and 24.
  it('without it: the certificate is checked, the forward fails in svc words, and the variable is not warned of', async () => {
    requests = 0;
    const done = await run({});
    expect(requests).toBe(0);
    expect(done.stdout).toContain(
      `→ 502  (forward failed: the TLS certificate of ${target} (--forward-to) is not trusted: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT); give its certificate (or its CA's) to svc with NODE_EXTRA_CA_CERTS=/path/to/cert.pem, or set NODE_TLS_REJECT_UNAUTHORIZED=0, which svc honours for forwards only (they carry no credentials); nothing was sent)`,
    );
    expect(done.stderr).not.toContain('warning:');
  });
});
