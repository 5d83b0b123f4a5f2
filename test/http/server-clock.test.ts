import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { staticCredentials } from '../../src/auth/credentials.js';
import { ApiClient } from '../../src/http/client.js';
import { FIXED_NOW, virtualClock } from '../helpers/context.js';

// review22c F4: the platform's clock (relative times on a terminal, --expires-in anchors, auth
// token's judgement) was learnt from the latest answer's Date, whatever it was: a shared cache's
// answer keeps the origin's Date from when it was made (RFC 9111 §4.2.3, its age in `Age`), so one
// answer an hour old set the platform's clock back an hour for the rest of the run. Likewise a
// gateway's own 502 and another host's answer (a token endpoint elsewhere) spoke for the platform.
const HOUR = 3_600_000;
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server answering each request as `answer(path)` says: status, and its headers (a Date among them). */
type Answer = { status: number; headers: Record<string, string> };

async function server(answer: (path: string) => Answer) {
  const s = createServer((req: IncomingMessage, res: ServerResponse) => {
    const { status, headers } = answer(req.url ?? '/');
    res.sendDate = false;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(status < 400 ? '{"ok":true}' : '{"error":{"code":"x","message":"x"}}');
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

const dateAt = (ms: number) => new Date(ms).toUTCString();

function client(baseUrl: string) {
  const clock = virtualClock(FIXED_NOW);
  return new ApiClient({
    baseUrl,
    credentials: staticCredentials('tok_canary_123456', 'test'),
    userAgent: 'svc/9.9.9',
    env: {},
    now: clock.now,
    sleep: clock.sleep,
    retry: { maxRetries: 0 },
  });
}

describe('which answers tell the platform’s clock', () => {
  it('a fresh answer tells it; a cached one (Age) an hour old does not move it, Age: 0 does', async () => {
    const url = await server((path): Answer => {
      if (path === '/v1/fresh') return { status: 200, headers: { date: dateAt(FIXED_NOW + 3 * HOUR) } };
      if (path === '/v1/cached')
        return { status: 200, headers: { date: dateAt(FIXED_NOW + 2 * HOUR), age: '3600' } };
      return { status: 200, headers: { date: dateAt(FIXED_NOW + 5 * HOUR), age: '0' } };
    });
    const api = client(url);
    await api.get('/v1/fresh');
    expect(api.serverClockOffsetMs).toBe(3 * HOUR);
    await api.get('/v1/cached');
    expect(api.serverClockOffsetMs).toBe(3 * HOUR);
    await api.get('/v1/age-zero');
    expect(api.serverClockOffsetMs).toBe(5 * HOUR);
  });

  it('an Age svc cannot read is a cached answer too: nothing learnt', async () => {
    const url = await server(() => ({
      status: 200,
      headers: { date: dateAt(FIXED_NOW - HOUR), age: 'soon' },
    }));
    const api = client(url);
    await api.get('/v1/x');
    expect(api.serverClockOffsetMs).toBeUndefined();
  });

  it.each([502, 503, 504])(
    'a %i (a gateway’s or proxy’s own page) is not the platform’s clock',
    async (status) => {
      const url = await server((path) =>
        path === '/v1/fresh'
          ? { status: 200, headers: { date: dateAt(FIXED_NOW + HOUR) } }
          : { status, headers: { date: dateAt(FIXED_NOW + 7 * HOUR) } },
      );
      const api = client(url);
      await api.get('/v1/fresh');
      await expect(api.get('/v1/down')).rejects.toMatchObject({ status });
      expect(api.serverClockOffsetMs).toBe(HOUR);
    },
  );

  it('a 4xx of the API is its clock (a 401 to an expired token tells auth token the time)', async () => {
    const url = await server(() => ({ status: 401, headers: { date: dateAt(FIXED_NOW + 3 * HOUR) } }));
    const api = client(url);
    await expect(api.get('/v1/me')).rejects.toMatchObject({ category: 'auth' });
    expect(api.serverClockOffsetMs).toBe(3 * HOUR);
  });

  it('an answer of another origin (a token endpoint elsewhere) is its own clock, not the platform’s', async () => {
    const api = client(await server(() => ({ status: 200, headers: { date: dateAt(FIXED_NOW) } })));
    const elsewhere = await server(() => ({ status: 200, headers: { date: dateAt(FIXED_NOW + 3 * HOUR) } }));
    await api.request({ method: 'GET', path: `${elsewhere}/token`, auth: false });
    expect(api.serverClockOffsetMs).toBeUndefined();
    const answer = await api.request({ method: 'GET', path: `${elsewhere}/token`, auth: false });
    // That host's own clock, for what it issues (a JWT's exp: auth/token-endpoint.ts).
    expect(api.clockOffsetOf(answer.headers)).toBe(3 * HOUR);
    await api.get('/v1/x');
    expect(api.serverClockOffsetMs).toBe(0);
  });
});
