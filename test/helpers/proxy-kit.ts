/**
 * What the proxy tests share (test/http/proxy*.test.ts): local servers closed after each test, a
 * target that records the requests it got, the name only a test proxy knows, and an ApiClient
 * holding a recognisable token.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { afterEach } from 'vitest';
import { staticCredentials } from '../../src/auth/credentials.js';
import { ApiClient, type ClientConfig } from '../../src/http/client.js';

export const TOKEN = 'svc_sk_live_SECRETVALUE1234567890abcdef';
/** A name only the proxy knows: it connects it to the target, so a request reaching it came through the proxy. */
export const REMOTE = 'svc.example.test';

/** Servers and sockets of one test, closed after it; `listen` starts one on an ephemeral loopback port. */
export function useLocalServers() {
  const servers: Array<Server | NetServer> = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });
  return {
    track(socket: Socket) {
      sockets.push(socket);
    },
    async listen(server: Server | NetServer, host = '127.0.0.1'): Promise<number> {
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, host, r));
      return (server.address() as AddressInfo).port;
    },
  };
}

/** A local target that answers 200 and records the headers of each request it got. */
export async function target(listen: (server: Server) => Promise<number>) {
  const seen: IncomingMessage['headers'][] = [];
  const port = await listen(
    createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }),
  );
  return { port, url: `http://127.0.0.1:${port}`, seen };
}

export function client(baseUrl: string, extra: Partial<ClientConfig> = {}) {
  return new ApiClient({
    baseUrl,
    credentials: staticCredentials(TOKEN, 'test'),
    userAgent: 'svc/9.9.9',
    env: {},
    retry: { maxRetries: 0 },
    ...extra,
  });
}
