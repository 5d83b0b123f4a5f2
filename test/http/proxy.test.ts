// The HTTP client behind HTTP(S)_PROXY: a small in-process forward proxy (CONNECT tunnels) that
// records every tunnel and every byte sent through it, in front of a real local target.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/errors.js';
import { ConnectionError } from '../../src/http/errors.js';
import { client, target as localTarget, REMOTE, TOKEN, useLocalServers } from '../helpers/proxy-kit.js';

const local = useLocalServers();
const listen = (server: Server) => local.listen(server);
const target = () => localTarget(listen);

/** A forward proxy: CONNECT host:port opens a tunnel to the target (REMOTE) or to host:port itself. */
async function fakeProxy(targetPort: number) {
  const tunnels: string[] = [];
  const bytes: Buffer[] = [];
  const server = createServer();
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    local.track(socket);
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = host === REMOTE ? connect(targetPort, '127.0.0.1') : connect(Number(port), host);
    local.track(upstream);
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
