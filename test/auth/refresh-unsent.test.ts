/**
 * A refresh that failed before it was sent (the token endpoint refused the connection, a proxy
 * refused the tunnel) is a network problem, said with the network's fix, never "log in again":
 * the refresh token was not spent (review24c L2).
 */
import { rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { refreshingCredentials } from '../../src/auth/refresh.js';
import { ConfigStore, type StoredCredential } from '../../src/config/store.js';
import { ConnectionError, OutcomeUnknownError } from '../../src/http/errors.js';
import { client, REMOTE, useLocalServers } from '../helpers/proxy-kit.js';
import { tempDir } from '../helpers/temp.js';

const local = useLocalServers();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function refresh(tokenUrl: string, env: Record<string, string>) {
  const dir = tempDir('svc-refresh-unsent-');
  dirs.push(dir);
  const store = new ConfigStore(join(dir, 'config'));
  const api = client(new URL(tokenUrl).origin, { env, allowInsecureHttp: true });
  const stored: StoredCredential = {
    type: 'oauth',
    access_token: 'at-old',
    refresh_token: 'rt-old-0123456789',
    expires_at: new Date(Date.now() - 1000).toISOString(),
    client_id: 'client-1',
    token_url: tokenUrl,
    obtained_at: new Date().toISOString(),
  };
  await store.setCredential('p', stored);
  const source = refreshingCredentials(
    {
      store,
      profile: 'p',
      now: Date.now,
      api: async () => api,
      defaultTokenUrl: () => tokenUrl,
      loginCommand: () => 'svc -p p login',
      warn: () => {},
    },
    stored,
  );
  const error = await source.token().catch((e: unknown) => e);
  await api.close();
  return { error: error as ConnectionError, after: store.credential('p') };
}

describe('a refresh that was never sent', () => {
  it('the token endpoint refuses the connection: the network named, not a login', async () => {
    const closed = createTcpServer();
    const port = await local.listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const { error, after } = await refresh(`http://127.0.0.1:${port}/v1/oauth/token`, {});
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect([error.message, error.hint]).toEqual([
      `cannot reach http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
      'is the server running? check --base-url and your network or proxy settings',
    ]);
    // Not spent, not refused: the next run refreshes with it.
    expect(after).toMatchObject({ refresh_token: 'rt-old-0123456789' });
    expect(after?.refresh_refused).toBeUndefined();
  });

  it('a proxy refuses the tunnel (403): the proxy named, not a login', async () => {
    const proxy = createHttpServer();
    proxy.on('connect', (_req: IncomingMessage, socket: Socket) => {
      local.track(socket);
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    });
    const proxyUrl = `http://127.0.0.1:${await local.listen(proxy)}`;
    const { error } = await refresh(`http://${REMOTE}:8080/v1/oauth/token`, { HTTP_PROXY: proxyUrl });
    expect(error).toBeInstanceOf(ConnectionError);
    expect([error.message, error.hint]).toEqual([
      `the proxy ${proxyUrl} (HTTP_PROXY) answered 403 Forbidden to the tunnel for ${REMOTE}:8080`,
      `the proxy does not let svc through to ${REMOTE}:8080: check the proxy in HTTP_PROXY with its administrator, or NO_PROXY; nothing was sent`,
    ]);
  });
});
