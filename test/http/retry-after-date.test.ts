import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { staticCredentials } from '../../src/auth/credentials.js';
import { ApiClient } from '../../src/http/client.js';
import { FIXED_NOW, virtualClock } from '../helpers/context.js';

// attack22 F3: a Retry-After given as an HTTP-date is on the server's clock, so it is measured from
// the same answer's Date (RFC 9110 §10.2.3), and from this machine's clock only without one. From
// this machine's, a server 5 h ahead asking for 3 s was read as 5 h (given up at once) and one 5 h
// behind as nothing (retried with no wait).
const HOUR = 3_600_000;
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/**
 * A server whose clock is `offsetMs` from `now()`: 503 with Retry-After its time + 3 s, then 200.
 * `age`: the 503 as a cache in front of it serves it, with `Age: age`, 20 s after the origin made it
 * (its Date that much behind), or at once for `Age: 0`.
 */
async function busyServer(now: () => number, offsetMs: number, sendDate: boolean, age?: string) {
  let hits = 0;
  const server = createServer((_req, res: ServerResponse) => {
    hits++;
    const at = now() + offsetMs;
    res.sendDate = false;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    // Held 20 s by the cache unless it says Age: 0.
    const held = hits === 1 && age !== undefined && !/^0+$/.test(age) ? 20_000 : 0;
    if (sendDate) headers.date = new Date(at - held).toUTCString();
    if (hits === 1 && age !== undefined) headers.age = age;
    if (hits === 1) headers['retry-after'] = new Date(at + 3000).toUTCString();
    res.writeHead(hits === 1 ? 503 : 200, headers);
    res.end(JSON.stringify(hits === 1 ? { error: { code: 'busy', message: 'busy' } } : { done: true }));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('a Retry-After HTTP-date', () => {
  it.each([
    ['5 h ahead of this machine, with a Date', 5 * HOUR, true],
    ['5 h behind this machine, with a Date', -5 * HOUR, true],
    ['in step, without a Date (measured from this machine)', 0, false],
    // A cached answer: its Date is Age behind the server's clock (RFC 9111 §4.2.3, as
    // src/http/server-clock.ts reads it). Measured from its Date alone, svc waited 23 s.
    ['5 h ahead, its 503 served by a cache 20 s after it was made (Age: 20)', 5 * HOUR, true, '20'],
    ['5 h behind, its 503 served by a cache 20 s after it was made (Age: 20)', -5 * HOUR, true, '20'],
    ['in step, its 503 with Age: 0 (fresh)', 0, true, '0'],
  ])('from a server %s: waits the 3 s it asks for', async (_, offsetMs, sendDate, age?: string) => {
    const clock = virtualClock(FIXED_NOW);
    const url = await busyServer(clock.now, offsetMs, sendDate, age);
    const api = new ApiClient({
      baseUrl: url,
      credentials: staticCredentials('tok_canary_123456', 'test'),
      userAgent: 'svc/9.9.9',
      env: {},
      now: clock.now,
      sleep: clock.sleep,
    });
    const { data } = await api.get<{ done: boolean }>('/v1/x');
    expect(data.done).toBe(true);
    expect(clock.waits).toEqual([3000]);
  });

  it('served by a cache with an Age that is not delta-seconds: measured from its Date (the longer wait, never a sooner one)', async () => {
    // How long the cache held it is not said: 20 s here, waited on top of the 3 s.
    const clock = virtualClock(FIXED_NOW);
    const url = await busyServer(clock.now, 0, true, 'soon');
    const api = new ApiClient({
      baseUrl: url,
      credentials: staticCredentials('tok_canary_123456', 'test'),
      userAgent: 'svc/9.9.9',
      env: {},
      now: clock.now,
      sleep: clock.sleep,
    });
    expect((await api.get<{ done: boolean }>('/v1/x')).data.done).toBe(true);
    expect(clock.waits).toEqual([23_000]);
  });
});
