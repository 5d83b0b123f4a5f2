// The HTTP client behind HTTP(S)_PROXY: a small in-process forward proxy (CONNECT tunnels) that
// records every tunnel and every byte sent through it, in front of a real local target.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { staticCredentials } from '../../src/auth/credentials.js';
import { exitCodeFor } from '../../src/errors.js';
import { ApiClient, type ClientConfig } from '../../src/http/client.js';
import { ConnectionError } from '../../src/http/errors.js';

const TOKEN = 'svc_sk_live_SECRETVALUE1234567890abcdef';
/** A name only the proxy knows: it tunnels it to the target, so a request reaching it came through the proxy. */
const REMOTE = 'svc.example.test';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** A local target that answers 200 and records the requests it got. */
async function target() {
  const seen: IncomingMessage['headers'][] = [];
  const port = await listen(
    createServer((req: IncomingMessage, res: ServerResponse) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }),
  );
  return { port, url: `http://127.0.0.1:${port}`, seen };
}

/** A forward proxy: CONNECT host:port opens a tunnel to the target (REMOTE) or to host:port itself. */
async function fakeProxy(targetPort: number) {
  const tunnels: string[] = [];
  const bytes: Buffer[] = [];
  const server = createServer();
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    sockets.push(socket);
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = host === REMOTE ? connect(targetPort, '127.0.0.1') : connect(Number(port), host);
    sockets.push(upstream);
    upstream.on('connect', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      bytes.push(head);
      upstream.write(head);
      socket.on('data', (chunk: Buffer) => bytes.push(chunk));
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, port, tunnels, sent: () => Buffer.concat(bytes).toString() };
}

function client(baseUrl: string, extra: Partial<ClientConfig> = {}) {
  return new ApiClient({
    baseUrl,
    credentials: staticCredentials(TOKEN, 'test'),
    userAgent: 'svc/9.9.9',
    env: {},
    retry: { maxRetries: 0 },
    ...extra,
  });
}

describe('ApiClient behind a proxy', () => {
  it.each(['HTTP_PROXY', 'http_proxy'])(
    'never sends a loopback request through %s: the credential goes straight to the target',
    async (name) => {
      const t = await target();
      const proxy = await fakeProxy(t.port);
      const traces: string[] = [];
      const api = client(t.url, { env: { [name]: proxy.url }, debug: (text) => traces.push(text) });
      await api.get('/v1/tenants');
      await api.close();
      expect(proxy.tunnels).toEqual([]);
      expect(proxy.sent()).not.toContain(TOKEN);
      expect(t.seen.map((h) => h.authorization)).toEqual([`Bearer ${TOKEN}`]);
      expect(traces.join('')).toContain('* direct, not through the proxy: 127.0.0.1 is loopback\n');
    },
  );

  it('refuses a credential to a plain-http host that is not loopback before reaching the proxy (exit 2)', async () => {
    const t = await target();
    const proxy = await fakeProxy(t.port);
    const api = client(`http://${REMOTE}`, { env: { HTTP_PROXY: proxy.url } });
    const error = await api.get('/v1/tenants').catch((e) => e);
    await api.close();
    expect(error.code).toBe('insecure_transport');
    expect(exitCodeFor(error)).toBe(2);
    expect(proxy.tunnels).toEqual([]);
    expect(t.seen).toEqual([]);
  });

  it('goes through the proxy to a host that is not loopback, and --debug names the proxy without its password', async () => {
    const t = await target();
    const proxy = await fakeProxy(t.port);
    const traces: string[] = [];
    const api = client(`http://${REMOTE}:8080`, {
      env: { HTTP_PROXY: `http://someone:proxy-password@127.0.0.1:${proxy.port}` },
      allowInsecureHttp: true,
      debug: (text) => traces.push(text),
    });
    await api.get('/v1/tenants');
    await api.close();
    expect(proxy.tunnels).toEqual([`${REMOTE}:8080`]);
    expect(t.seen).toHaveLength(1);
    const trace = traces.join('');
    expect(trace).toContain(`* through the proxy http://127.0.0.1:${proxy.port}\n`);
    expect(trace).not.toContain('proxy-password');
    expect(trace).not.toContain('someone');
  });

  it('does not use a host NO_PROXY names', async () => {
    const t = await target();
    const proxy = await fakeProxy(t.port);
    const api = client(`http://${REMOTE}`, {
      env: { HTTP_PROXY: proxy.url, NO_PROXY: 'example.test' },
      allowInsecureHttp: true,
    });
    const error = await api.get('/v1/tenants').catch((e) => e);
    await api.close();
    // Directly, the name does not resolve: the proxy was not asked.
    expect(error).toBeInstanceOf(ConnectionError);
    expect(proxy.tunnels).toEqual([]);
  });

  it("reads the proxy from the Context's environment only, never from process.env behind it", async () => {
    const t = await target();
    const proxy = await fakeProxy(t.port);
    const saved = process.env.HTTP_PROXY;
    process.env.HTTP_PROXY = proxy.url;
    try {
      const api = client(`http://${REMOTE}`, { env: {}, allowInsecureHttp: true });
      const error = await api.get('/v1/tenants').catch((e) => e);
      await api.close();
      expect(error).toBeInstanceOf(ConnectionError);
      expect(proxy.tunnels).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved;
    }
  });

  it('refuses a proxy variable that is not a proxy URL (exit 2), without repeating it', () => {
    const error = (() => {
      try {
        client('http://127.0.0.1:1', { env: { HTTPS_PROXY: 'ftp://me:hunter2@proxy' } });
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(error?.message).toBe('HTTPS_PROXY is not a proxy URL');
    expect(exitCodeFor(error)).toBe(2);
  });
});
