// The HTTP client behind a SOCKS5 proxy (HTTPS_PROXY=socks5://…): a small in-process SOCKS5 server
// (RFC 1928, with RFC 1929 user/password) that records what it was asked, in front of a real target.
import { connect, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/errors.js';
import {
  target as localTarget,
  client as proxyClient,
  REMOTE,
  TOKEN,
  useLocalServers,
} from '../helpers/proxy-kit.js';

const local = useLocalServers();
const target = () => localTarget((server) => local.listen(server));

/** Reads exactly `n` bytes from a socket in paused mode. */
function take(socket: Socket, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tryRead = () => {
      const chunk = socket.read(n) as Buffer | null;
      if (chunk) {
        socket.off('readable', tryRead);
        socket.off('error', failed);
        resolve(chunk);
      }
    };
    const failed = (error: Error) => {
      socket.off('readable', tryRead);
      reject(error);
    };
    socket.on('readable', tryRead);
    socket.once('error', failed);
    tryRead();
  });
}

/** A SOCKS5 server: CONNECT to REMOTE goes to the target; `login` demands that user and password. */
async function socks5(targetPort: number, login?: { user: string; password: string }, host = '127.0.0.1') {
  const asked: string[] = [];
  const logins: string[] = [];
  const server = createServer((socket) => {
    local.track(socket);
    socket.on('error', () => {});
    void (async () => {
      const [, methods] = await take(socket, 2);
      await take(socket, methods!);
      if (login) {
        socket.write(Buffer.from([5, 2]));
        const [, userLength] = await take(socket, 2);
        const user = (await take(socket, userLength!)).toString();
        const [passwordLength] = await take(socket, 1);
        const password = (await take(socket, passwordLength!)).toString();
        logins.push(`${user}:${password}`);
        const ok = user === login.user && password === login.password;
        socket.write(Buffer.from([1, ok ? 0 : 1]));
        if (!ok) return socket.end();
      } else {
        socket.write(Buffer.from([5, 0]));
      }
      const [, , , type] = await take(socket, 4);
      let host: string;
      if (type === 3) {
        const [length] = await take(socket, 1);
        host = (await take(socket, length!)).toString();
      } else {
        host = [...(await take(socket, 4))].join('.');
      }
      const port = (await take(socket, 2)).readUInt16BE(0);
      asked.push(`${host}:${port}`);
      const upstream = connect(host === REMOTE ? targetPort : port, host === REMOTE ? '127.0.0.1' : host);
      local.track(upstream);
      upstream.on('error', () => socket.destroy());
      upstream.on('connect', () => {
        socket.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
    })();
  });
  const port = await local.listen(server, host);
  return { port, asked, logins };
}

function client(baseUrl: string, extra: Parameters<typeof proxyClient>[1] = {}) {
  return proxyClient(baseUrl, { allowInsecureHttp: true, ...extra });
}

describe('ApiClient behind a SOCKS5 proxy', () => {
  // First in the file: undici's SOCKS5 agent warns once per process (no other file uses SOCKS).
  it("passes on no ExperimentalWarning of undici's SOCKS5 agent: stderr is svc's", async () => {
    const warnings: string[] = [];
    const heard = (warning: Error) => warnings.push(warning.message);
    process.on('warning', heard);
    try {
      const t = await target();
      const proxy = await socks5(t.port);
      const api = client(`http://${REMOTE}:8080`, {
        env: { HTTP_PROXY: `socks5://127.0.0.1:${proxy.port}` },
      });
      await api.get('/v1/tenants');
      await api.close();
      expect(proxy.asked).toEqual([`${REMOTE}:8080`]);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', heard);
    }
    expect(warnings).toEqual([]);
  });

  it.each(['socks5', 'socks5h', 'socks'])(
    'goes through a %s:// proxy, the name resolved by the proxy, and --debug names it without its password',
    async (scheme) => {
      const t = await target();
      const proxy = await socks5(t.port, { user: 'someone', password: 'proxy-password' });
      const traces: string[] = [];
      const api = client(`http://${REMOTE}:8080`, {
        env: { HTTP_PROXY: `${scheme}://someone:proxy-password@127.0.0.1:${proxy.port}` },
        debug: (text) => traces.push(text),
      });
      await api.get('/v1/tenants');
      await api.close();
      expect(proxy.asked).toEqual([`${REMOTE}:8080`]);
      expect(proxy.logins).toEqual(['someone:proxy-password']);
      expect(t.seen.map((h) => h.authorization)).toEqual([`Bearer ${TOKEN}`]);
      const trace = traces.join('');
      expect(trace).toContain(`* through the proxy ${scheme}://127.0.0.1:${proxy.port}\n`);
      expect(trace).not.toContain('proxy-password');
    },
  );

  it('never sends a loopback request through it', async () => {
    const t = await target();
    const proxy = await socks5(t.port);
    const api = client(`http://127.0.0.1:${t.port}`, {
      env: { HTTPS_PROXY: `socks5://127.0.0.1:${proxy.port}` },
    });
    await api.get('/v1/tenants');
    await api.close();
    expect(proxy.asked).toEqual([]);
    expect(t.seen.map((h) => h.authorization)).toEqual([`Bearer ${TOKEN}`]);
  });

  it.each(['socks4', 'socks4a'])(
    'refuses a %s:// proxy, which svc cannot speak, naming the variable (exit 2)',
    (scheme) => {
      let error: Error | undefined;
      try {
        client('http://127.0.0.1:1', { env: { HTTPS_PROXY: `${scheme}://me:hunter2@proxy:1080` } });
      } catch (e) {
        error = e as Error;
      }
      expect(error?.message).toBe(`HTTPS_PROXY is a ${scheme}:// proxy, which svc cannot use`);
      expect(exitCodeFor(error)).toBe(2);
    },
  );

  it('sends a user name and password given percent-encoded in the URL as they are meant (p%40ss is p@ss)', async () => {
    const t = await target();
    const proxy = await socks5(t.port, { user: 'some@one', password: 'p@ss:w%rd/x' });
    const api = client(`http://${REMOTE}:8080`, {
      env: { HTTP_PROXY: `socks5://some%40one:p%40ss%3Aw%25rd%2Fx@127.0.0.1:${proxy.port}` },
    });
    await api.get('/v1/tenants');
    await api.close();
    expect(proxy.logins).toEqual(['some@one:p@ss:w%rd/x']);
    expect(t.seen.map((h) => h.authorization)).toEqual([`Bearer ${TOKEN}`]);
  });

  it('reaches a proxy at an IPv6 address ([::1])', async () => {
    const t = await target();
    const proxy = await socks5(t.port, undefined, '::1');
    const api = client(`http://${REMOTE}:8080`, { env: { HTTP_PROXY: `socks5://[::1]:${proxy.port}` } });
    await api.get('/v1/tenants');
    await api.close();
    expect(proxy.asked).toEqual([`${REMOTE}:8080`]);
  });

  it('names the proxy and its variable when the proxy refuses the login, and does not try the password again', async () => {
    const t = await target();
    const proxy = await socks5(t.port, { user: 'alice', password: 'right' });
    const api = client(`http://${REMOTE}:8080`, {
      env: { HTTP_PROXY: `socks5h://alice:wrong-pa55word@127.0.0.1:${proxy.port}` },
      retry: { maxRetries: 3 },
    });
    const error = await api.get('/v1/tenants').catch((e) => e);
    await api.close();
    expect(proxy.logins).toEqual(['alice:wrong-pa55word']);
    expect(error.message).toBe(
      `the proxy socks5h://127.0.0.1:${proxy.port} (HTTP_PROXY) refused the request to http://${REMOTE}:8080: Authentication failed (UND_ERR_SOCKS5_AUTH_FAILED)`,
    );
    expect(error.hint).toBe('check the proxy, its user name and password in HTTP_PROXY, or NO_PROXY');
    expect(exitCodeFor(error)).toBe(1);
    expect(JSON.stringify(error)).not.toContain('pa55word');
  });

  it('says the proxy cannot be reached when it is down, not the server', async () => {
    const api = client(`http://${REMOTE}:8080`, { env: { HTTP_PROXY: 'socks5://127.0.0.1:1' } });
    const error = await api.get('/v1/tenants').catch((e) => e);
    await api.close();
    expect(error.message).toMatch(
      /^cannot reach the proxy socks5:\/\/127\.0\.0\.1:1 \(HTTP_PROXY\) for http:\/\/svc\.example\.test:8080: connect ECONNREFUSED/,
    );
    expect(error.hint).toBe('check the proxy in HTTP_PROXY, or NO_PROXY');
  });
});
