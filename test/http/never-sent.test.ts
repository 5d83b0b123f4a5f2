/**
 * A change whose request never left the machine is a plain failure, not an unknown outcome
 * (attack24a F1): the TLS handshake failed (an untrusted certificate), or the http proxy refused
 * the tunnel (502 to CONNECT). svc knows from undici whether the request went onto a connection
 * (send.ts `sent`): one that did not cannot have reached the platform, and is tried again as a
 * refused connection is, key or no key. One that did stays unknown.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/errors.js';
import { ConnectionError, ConnectionTimeoutError, OutcomeUnknownError } from '../../src/http/errors.js';
import { proxySettings } from '../../src/http/proxy.js';
import { exchange } from '../../src/http/send.js';
import { ProxyRouter } from '../../src/http/undici.js';
import type { Timer } from '../../src/system/clock.js';
import { needs } from '../helpers/needs.js';
import { client, REMOTE, useLocalServers } from '../helpers/proxy-kit.js';
import { selfSignedCertificate } from '../helpers/tls.js';

const local = useLocalServers();
const retry = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 };

/**
 * An http proxy that answers each CONNECT with `status` (or the statuses in turn, the last one
 * from then on); with 200 it opens the tunnel to the target port (whatever host was asked).
 */
async function tunnelProxy(statuses: number | number[], targetPort = 0) {
  const tunnels: string[] = [];
  const server = createHttpServer();
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    local.track(socket);
    tunnels.push(req.url ?? '');
    const turn = [statuses].flat();
    const status = turn[Math.min(tunnels.length, turn.length) - 1] as number;
    if (status !== 200) {
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    local.track(upstream);
    upstream.on('connect', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  const port = await local.listen(server as Server);
  return { url: `http://127.0.0.1:${port}`, port, tunnels };
}

describe('a change whose request never left the machine', () => {
  it('proxy answers 502 to the tunnel: a POST without a key is retried, and fails plainly (not unknown)', async () => {
    const proxy = await tunnelProxy(502);
    const api = client(`https://${REMOTE}:8443`, { env: { HTTPS_PROXY: proxy.url }, retry });
    const error = await api.post('/v1/roles', { name: 'x' }, { idempotencyKey: false }).catch((e) => e);
    await api.close();
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect([error.mayHaveArrived, error.outcome, exitCodeFor(error)]).toEqual([false, undefined, 1]);
    expect([error.message, error.hint]).toEqual([
      `the proxy ${proxy.url} (HTTPS_PROXY) answered 502 Bad Gateway to the tunnel for ${REMOTE}:8443`,
      `the proxy could not reach ${REMOTE}:8443: check the host and port of the base URL, the proxy in HTTPS_PROXY, or NO_PROXY; nothing was sent`,
    ]);
    expect(proxy.tunnels).toEqual([`${REMOTE}:8443`, `${REMOTE}:8443`, `${REMOTE}:8443`]);
  });

  it('proxy answers 403 to the tunnel: said, and not tried again (its policy will not change in seconds)', async () => {
    const proxy = await tunnelProxy(403);
    const api = client(`https://${REMOTE}:8443`, { env: { HTTPS_PROXY: proxy.url }, retry });
    const error = await api.get('/v1/tenants').catch((e) => e);
    await api.close();
    expect([error.message, error.hint, error.mayHaveArrived]).toEqual([
      `the proxy ${proxy.url} (HTTPS_PROXY) answered 403 Forbidden to the tunnel for ${REMOTE}:8443`,
      `the proxy does not let svc through to ${REMOTE}:8443: check the proxy in HTTPS_PROXY with its administrator, or NO_PROXY; nothing was sent`,
      false,
    ]);
    expect(proxy.tunnels).toHaveLength(1);
  });

  it('the tunnel opened and the connection dropped after the request: still unknown, not resent without a key', async () => {
    let requests = 0;
    const target = createHttpServer((req) => {
      requests++;
      req.socket.destroy();
    });
    const targetPort = await local.listen(target);
    const proxy = await tunnelProxy(200, targetPort);
    const api = client(`http://${REMOTE}:8080`, {
      env: { HTTP_PROXY: proxy.url },
      allowInsecureHttp: true,
      retry,
    });
    const error = await api.post('/v1/roles', { name: 'x' }, { idempotencyKey: false }).catch((e) => e);
    await api.close();
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.message).toBe(
      `the connection to http://${REMOTE}:8080, through the proxy ${proxy.url} (HTTP_PROXY), failed after the request was sent: other side closed (UND_ERR_SOCKET), so the outcome is unknown: the platform may have made this change`,
    );
    expect(requests).toBe(1);
  });

  // review24c H1: the first attempt reached the server and lost its answer; the retry's refusal
  // (not retried) proves only that the retry was not sent: the change may have been made.
  for (const second of [403, 407]) {
    it(`attempt 1 arrives and its connection drops, the retry's tunnel gets ${second}: unknown, not "nothing was sent"`, async () => {
      let requests = 0;
      const target = createHttpServer((req) => {
        requests++;
        req.socket.destroy();
      });
      const proxy = await tunnelProxy([200, second], await local.listen(target));
      const api = client(`http://${REMOTE}:8080`, {
        env: { HTTP_PROXY: proxy.url },
        allowInsecureHttp: true,
        retry,
      });
      const error = await api.post('/v1/roles', { name: 'x' }).catch((e) => e);
      await api.close();
      expect(requests).toBe(1);
      expect(proxy.tunnels).toHaveLength(2);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      // The proxy's own fix is kept, without its "nothing was sent" (true of the retry only).
      const fix =
        second === 403
          ? `the proxy does not let svc through to ${REMOTE}:8080: check the proxy in HTTP_PROXY with its administrator, or NO_PROXY`
          : 'check the proxy, its user name and password in HTTP_PROXY, or NO_PROXY';
      expect([error.outcome, error.hint, exitCodeFor(error)]).toEqual([
        'unknown',
        `${fix}, then check whether it was made before running the command again`,
        exitCodeFor(new OutcomeUnknownError(new ConnectionError('x'))),
      ]);
      const refused =
        second === 403
          ? `answered 403 Forbidden to the tunnel for ${REMOTE}:8080`
          : `refused the tunnel to ${REMOTE}:8080: it answered 407 Proxy Authentication Required`;
      // The lost first attempt is why the outcome is unknown; the refusal stopped the retry (review24f L2).
      expect(error.message).toBe(
        `an earlier attempt's answer was lost (the connection dropped), and the retry failed (the proxy ${proxy.url} (HTTP_PROXY) ${refused}), so the outcome is unknown: the platform may have made this change`,
      );
    });
  }
});

/**
 * A server that accepts connections and never says a word (a TLS handshake or a CONNECT
 * unanswered). Its `timer` (a client's) runs out when a request's first bytes arrive, so what svc
 * says of the wait does not hang on how fast the machine connects.
 */
async function mute() {
  let connections = 0;
  let expire = () => {};
  const server = createTcpServer((socket) => {
    connections++;
    local.track(socket);
    socket.once('data', () => setImmediate(expire));
  });
  const port = await local.listen(server);
  const timer: Timer = (_ms, fire) => {
    expire = fire;
    return () => {
      expire = () => {};
    };
  };
  return { port, connections: () => connections, timer };
}

describe('a change whose connection was not made within --timeout', () => {
  it('a TLS handshake never answered: "could not connect … nothing was sent", retried, not unknown', async () => {
    const server = await mute();
    const api = client(`https://127.0.0.1:${server.port}`, { retry, timeoutMs: 100 });
    const error = await api.post('/v1/roles', { name: 'x' }, { idempotencyKey: false }).catch((e) => e);
    await api.close();
    expect(error).toBeInstanceOf(ConnectionTimeoutError);
    expect([error.message, error.hint, error.mayHaveArrived, exitCodeFor(error)]).toEqual([
      `could not connect to https://127.0.0.1:${server.port} within 0.1 s`,
      'nothing was sent; check the server, your network, or raise the limit with --timeout',
      false,
      1,
    ]);
    expect(server.connections()).toBe(3);
  });

  // s25: it said "could not connect to … through the proxy", though the proxy took the connection.
  it('a proxy that never answers the CONNECT: said so, the proxy named, retried, not unknown', async () => {
    const proxy = await mute();
    const api = client(`https://${REMOTE}:8443`, {
      env: { HTTPS_PROXY: `http://127.0.0.1:${proxy.port}` },
      retry,
      timeoutMs: 100,
      timer: proxy.timer,
    });
    const error = await api.post('/v1/roles', { name: 'x' }, { idempotencyKey: false }).catch((e) => e);
    await api.close();
    expect(error).toBeInstanceOf(ConnectionTimeoutError);
    expect([error.message, error.hint, error.mayHaveArrived]).toEqual([
      `the proxy http://127.0.0.1:${proxy.port} (HTTPS_PROXY) did not answer svc's request for a tunnel to ${REMOTE}:8443 within 0.1 s`,
      'nothing was sent; check the proxy in HTTPS_PROXY (it took the connection and said nothing), or NO_PROXY, or raise the limit with --timeout',
      false,
    ]);
    expect(proxy.connections()).toBe(3);
  });

  // s25: a wait in the pool of tunnels (every connection busy) said "could not connect … through
  // the proxy"; it is said as the same wait without a proxy is (review24c L1).
  it.each([1, 2])(
    "a request that waited for a free tunnel of svc's own (%i): said so, the proxy named",
    async (connections) => {
      let got = 0;
      let all: () => void = () => {};
      const arrived = new Promise<void>((resolve) => {
        all = resolve;
      });
      const server = createHttpServer(() => {
        if (++got === connections) all();
      });
      const proxy = await tunnelProxy(200, await local.listen(server));
      const router = new ProxyRouter(proxySettings({ HTTP_PROXY: proxy.url }), { connections });
      const url = new URL(`http://${REMOTE}:8080/v1/x`);
      // The way as client.ts gives it (proxy.ts route).
      const way = { url: new URL(proxy.url), from: 'HTTP_PROXY' };
      const options = { timeoutMs: 5_000, maxBytes: 1024, signal: undefined, proxy: way };
      const hanging = Array.from({ length: connections }, () =>
        exchange(router, 'POST', url, {}, 'one', options).catch((e: unknown) => e),
      );
      await arrived;
      let expire = () => {};
      const timer: Timer = (_ms, fire) => {
        expire = fire;
        return () => {};
      };
      const waiting = exchange(router, 'POST', url, {}, 'two', { ...options, timeoutMs: 300, timer }).catch(
        (e: unknown) => e,
      );
      setImmediate(() => expire());
      const error = (await waiting) as ConnectionTimeoutError;
      expect([error.constructor.name, error.message, error.hint, error.mayHaveArrived]).toEqual([
        'ConnectionTimeoutError',
        `the request to http://${REMOTE}:8080 through the proxy ${proxy.url} (HTTP_PROXY) was not sent within 0.3 s: it waited for a free connection (svc had ${connections} open to it, all busy)`,
        'nothing was sent; the server was slow to answer the requests before it: raise the limit with --timeout, or send fewer at once (--concurrency)',
        false,
      ]);
      expect(proxy.tunnels).toHaveLength(connections);
      await router.destroy();
      await Promise.all(hanging);
    },
  );
});

needs('openssl').describe('a change over TLS the server does not pass', () => {
  /** An https server with a self-signed certificate: the requests and the connections it got. */
  async function untrusted(handler: Parameters<typeof createHttpsServer>[1] = (_req, res) => res.end('{}')) {
    const { key, cert } = await selfSignedCertificate('svc never-sent test');
    let requests = 0;
    let connections = 0;
    const server = createHttpsServer({ key, cert }, (req, res) => {
      requests++;
      handler?.(req, res);
    });
    server.on('connection', () => connections++);
    // A handshake the client refuses ends in an error on the server's side too.
    server.on('tlsClientError', () => {});
    const port = await local.listen(server as unknown as Server);
    return { server, port, requests: () => requests, connections: () => connections };
  }

  const trust =
    "if it is signed by your organisation's own certificate authority, give that CA's certificate to svc with NODE_EXTRA_CA_CERTS=/path/to/ca.pem; nothing was sent";

  it('an untrusted certificate: a plain failure naming the certificate and NODE_EXTRA_CA_CERTS, tried once', async () => {
    const server = await untrusted();
    const api = client(`https://127.0.0.1:${server.port}`, { retry });
    const error = await api.post('/v1/roles', { name: 'x' }).catch((e) => e);
    await api.close();
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect([error.message, error.hint, error.mayHaveArrived, exitCodeFor(error)]).toEqual([
      `the TLS certificate of https://127.0.0.1:${server.port} is not trusted: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)`,
      trust,
      false,
      1,
    ]);
    expect([server.requests(), server.connections()]).toEqual([0, 1]);
  });

  it('through an http proxy: the server’s certificate, reached through the proxy', async () => {
    const server = await untrusted();
    const proxy = await tunnelProxy(200, server.port);
    const api = client(`https://${REMOTE}:8443`, { env: { HTTPS_PROXY: proxy.url }, retry });
    const error = await api.get('/v1/tenants').catch((e) => e);
    await api.close();
    expect([error.message, error.hint, error.mayHaveArrived]).toEqual([
      `the TLS certificate of https://${REMOTE}:8443, reached through the proxy ${proxy.url} (HTTPS_PROXY), is not trusted: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)`,
      trust,
      false,
    ]);
    expect([server.requests(), proxy.tunnels.length]).toEqual([0, 1]);
  });

  it('a TLS 1.2 server that wants a client certificate: its refusal named as such, tried once (review24c L3)', async () => {
    const { key, cert } = await selfSignedCertificate('svc never-sent test');
    let connections = 0;
    const server = createHttpsServer(
      { key, cert, requestCert: true, rejectUnauthorized: true, maxVersion: 'TLSv1.2' },
      (_req, res) => res.end('{}'),
    );
    server.on('connection', () => connections++);
    server.on('tlsClientError', () => {});
    const port = await local.listen(server as unknown as Server);
    const api = client(`https://127.0.0.1:${port}`, { retry });
    const error = await api.post('/v1/roles', { name: 'x' }).catch((e) => e);
    await api.close();
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    // OpenSSL's code names the alert's protocol by version: SSLV3 on Node 20, SSL/TLS on Node 24.
    const code = /ERR_SSL_(?:SSLV3|SSL\/TLS)_ALERT_HANDSHAKE_FAILURE/.exec(error.message)?.[0];
    expect([error.message, error.hint, error.mayHaveArrived, exitCodeFor(error)]).toEqual([
      `the server https://127.0.0.1:${port} refused the TLS handshake: its alert "handshake failure" (${code})`,
      'it may require a client certificate, which svc does not send, or a TLS version or cipher svc does not offer: check its TLS settings; nothing was sent',
      false,
      1,
    ]);
    expect(connections).toBe(1);
  });

  it('an https:// proxy whose own certificate is not trusted: the proxy’s certificate named', async () => {
    const proxy = await untrusted();
    const api = client(`https://${REMOTE}:8443`, {
      env: { HTTPS_PROXY: `https://127.0.0.1:${proxy.port}` },
      retry,
    });
    const error = await api.get('/v1/tenants').catch((e) => e);
    await api.close();
    expect([error.message, error.hint]).toEqual([
      `the TLS certificate of the proxy https://127.0.0.1:${proxy.port} (HTTPS_PROXY) is not trusted: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)`,
      trust,
    ]);
    expect(proxy.connections()).toBe(1);
  });
});
