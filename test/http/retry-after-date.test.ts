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

/** A server whose clock is `offsetMs` from `now()`: 503 with Retry-After its time + 3 s, then 200. */
async function busyServer(now: () => number, offsetMs: number, sendDate: boolean) {
  let hits = 0;
  const server = createServer((_req, res: ServerResponse) => {
    hits++;
    const at = now() + offsetMs;
    res.sendDate = false;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (sendDate) headers.date = new Date(at).toUTCString();
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
  ])('from a server %s: waits the 3 s it asks for', async (_, offsetMs, sendDate) => {
    const clock = virtualClock(FIXED_NOW);
    const url = await busyServer(clock.now, offsetMs, sendDate);
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
});
