/**
 * An https:// proxy named by its IP address: undici gives the proxy's TLS connection the address
 * as its server name, which Node answers with a DEP0123 DeprecationWarning on stderr (docs12 7).
 * A server name is a DNS name (RFC 6066): svc gives none for an address, and stderr is svc's own.
 * Spawned: Node prints a deprecation once per process, so only a process of its own shows it.
 * An IPv6 address comes bracketed (`[::1]`), which Node does not take for an address: no warning,
 * but `[::1]` went out as the server name. That case is read from the ClientHello the proxy gets,
 * in-process (a name in the ClientHello is in the clear).
 */
import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { client, REMOTE } from '../helpers/proxy-kit.js';
import { svc, tempConfigDir } from '../helpers/svc.js';

const config = tempConfigDir();

describe('an https:// proxy at an IP address', () => {
  it.each(['https://127.0.0.1:1'])('%s: only svc’s line on stderr, no Node warning', async (proxy) => {
    const r = await svc(['--base-url', 'https://api.example.com', 'me'], {
      // One attempt: the warning comes with the first TLS dial, and the retries' real backoff
      // (a process has no clock to inject) only made the test wait.
      env: {
        SVC_CONFIG_DIR: config,
        SVC_TOKEN: 'dummy_token_value_123456',
        HTTPS_PROXY: proxy,
        SVC_MAX_RETRIES: '0',
      },
    });
    expect(r.stderr).not.toContain('DeprecationWarning');
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: cannot reach the proxy ${proxy.replace(/[[\]]/g, '\\$&')} \\(HTTPS_PROXY\\) for https://api\\.example\\.com: connect ECONNREFUSED [^\\n]*\\n$`,
      ),
    );
    expect(r.code).toBe(1);
  });

  it('https://[::1]: no server name in the ClientHello (the address unbracketed is still an address)', async () => {
    // The proxy: it keeps the TLS handshake's first record (the ClientHello) and hangs up.
    const hellos: Buffer[] = [];
    const sockets: Socket[] = [];
    const proxy = createServer((socket) => {
      sockets.push(socket);
      let got = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        got = Buffer.concat([got, chunk]);
        if (got.length < 5 || got.length < 5 + got.readUInt16BE(3)) return;
        hellos.push(got);
        socket.destroy();
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => proxy.listen(0, '::1', resolve));
    const port = (proxy.address() as { port: number }).port;
    const api = client(`https://${REMOTE}`, { env: { HTTPS_PROXY: `https://[::1]:${port}` } });
    try {
      const error = await api.get('/v1/me').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(hellos).toHaveLength(1);
      // A TLS handshake record (a ClientHello), read whole.
      expect(hellos[0]![0]).toBe(0x16);
      expect(hellos[0]!.includes('::1')).toBe(false);
    } finally {
      await api.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});
