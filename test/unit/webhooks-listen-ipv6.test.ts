// `svc webhooks listen --host ::1` says its URL with the host in brackets (src/webhooks/listen.ts;
// audit13 F6: the old test swallowed any failure of the listen and then asserted nothing). Skipped,
// by name, only on a machine with no IPv6 loopback; with CI=true it must run.
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { type Listener, startListener } from '../../src/webhooks/listen.js';

const hasIpv6Loopback = Object.values(networkInterfaces())
  .flat()
  .some((a) => a?.address === '::1');
const listeners: Listener[] = [];
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((l) => l.close()));
});

describe('a listener on an IPv6 host', () => {
  it('runs under CI=true: the machine has an IPv6 loopback', () => {
    if (process.env.CI === 'true') expect(hasIpv6Loopback, 'CI machines must have ::1').toBe(true);
  });

  it.skipIf(!hasIpv6Loopback)(
    'brackets ::1 in its URL, which answers (skipped: no IPv6 loopback here)',
    async () => {
      const listener = await startListener({
        host: '::1',
        port: 0,
        secret: 'whsec_listen_ipv6',
        toleranceSeconds: 300,
        maxBodyBytes: 1024,
        now: () => Date.now(),
        onDelivery: () => {},
      });
      listeners.push(listener);
      const port = (listener.server.address() as { port: number }).port;
      expect(listener.url).toBe(`http://[::1]:${port}`);
      const status = await new Promise<number>((resolve, reject) => {
        const r = request(`${listener.url}/hooks`, { method: 'POST' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        r.on('error', reject);
        r.end('{}');
      });
      // Unsigned: refused, but answered by this listener.
      expect(status).toBe(400);
    },
  );
});
