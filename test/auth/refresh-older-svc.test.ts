/**
 * A refresh in flight, as an svc older than the `refresh_sent` mark reads it (attack23b F3). Such
 * an svc (session 18 and every one before) does not know the mark: after this svc was killed with
 * its refresh sent and unanswered, it sent the marked refresh token again, and the platform revoked
 * the login's whole family. While a refresh is in flight the credential now also carries a
 * `refresh_refused` (known since session 8: such an svc hands out nothing of it and refreshes it
 * no more), which the saved answer clears with the mark; this svc still goes by the mark.
 */
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sentMark } from '../../src/auth/abandoned-refresh.js';
import { refreshingCredentials } from '../../src/auth/refresh.js';
import { ConfigStore, type StoredCredential } from '../../src/config/store.js';
import { ApiClient } from '../../src/http/client.js';
import { tempDir } from '../helpers/temp.js';

let server: Server;
let url: string;
let onToken: () => void = () => {};
let sent = 0;
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      sent++;
      onToken();
      const body = {
        access_token: 'at-new',
        token_type: 'bearer',
        expires_in: 600,
        refresh_token: 'rt-new-0123',
      };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const dirs: string[] = [];
afterEach(() => {
  sent = 0;
  onToken = () => {};
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function setup(expiresInMs: number, extra: Partial<StoredCredential> = {}) {
  const dir = tempDir('svc-refresh-older-');
  dirs.push(dir);
  const store = new ConfigStore(join(dir, 'config'));
  const api = new ApiClient({
    baseUrl: url,
    credentials: { origin: 'test', token: async () => undefined, secrets: () => [] },
    userAgent: 'test',
    env: {},
    retry: { maxRetries: 0 },
  });
  const full: StoredCredential = {
    type: 'oauth',
    access_token: 'at-old',
    refresh_token: 'rt-old-0123456789',
    expires_at: new Date(Date.now() + expiresInMs).toISOString(),
    client_id: 'client-1',
    token_url: `${url}/v1/oauth/token`,
    obtained_at: new Date().toISOString(),
  };
  await store.setCredential('p', { ...full, ...extra });
  const source = refreshingCredentials(
    {
      store,
      profile: 'p',
      now: Date.now,
      api: async () => api,
      defaultTokenUrl: () => `${url}/v1/oauth/token`,
      loginCommand: () => 'svc -p p login',
      warn: () => {},
    },
    full,
  );
  return { store, source, full, close: () => api.close() };
}

/** What every svc from session 8 to 22 does first with a credential (refusedError, git show 7cc66fb8:src/auth/refresh.ts). */
const olderSvcRefuses = (credential: StoredCredential | undefined) =>
  ['code', 'message', 'at'].every(
    (key) => typeof (credential?.refresh_refused as Record<string, unknown> | undefined)?.[key] === 'string',
  );

describe('a refresh in flight, for an svc older than its mark', () => {
  it('carries a refusal older svcs honour while it is sent; the saved answer clears it with the mark', async () => {
    const { store, source, close } = await setup(-1000);
    let during: StoredCredential | undefined;
    onToken = () => {
      during = store.credential('p');
    };
    expect(await source.token()).toBe('at-new');
    const mark = during?.refresh_sent;
    expect(mark).toMatchObject({ pid: process.pid });
    expect(during?.refresh_refused).toEqual({
      code: 'refresh_in_flight',
      message: `the session of profile "p" was being refreshed by svc process ${process.pid} at ${mark?.at}: if that process still runs, run the command again once it is done; if it ended before it saved the answer, the stored refresh token may be spent, and sending it again would make the platform revoke the login`,
      at: mark?.at,
    });
    expect(olderSvcRefuses(during)).toBe(true);
    const saved = store.credential('p');
    expect([saved?.access_token, saved?.refresh_sent, saved?.refresh_refused]).toEqual([
      'at-new',
      undefined,
      undefined,
    ]);
    await close();
  });

  it('left by a run killed after sending: this svc goes by the mark, sends nothing, and hands out a live token', async () => {
    const killed = (expiresInMs: number) => {
      const mark = { ...sentMark('rt-old-0123456789', Date.now()), pid: 999_999 };
      return setup(expiresInMs, {
        refresh_sent: mark,
        refresh_refused: { code: 'refresh_in_flight', message: 'in flight', at: mark.at },
      });
    };
    const expired = await killed(-1000);
    const error = await expired.source.token().catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'refresh_abandoned',
      message: expect.stringMatching(
        /^the session of profile "p" is not refreshed: svc process 999999 sent its refresh at \S+ and never saved the answer/,
      ),
    });
    expect(sent).toBe(0);
    await expired.close();
    // Its access token still live (another run's refresh in flight, seen without the lock): used.
    const live = await killed(3_600_000);
    expect(await live.source.token()).toBe('at-old');
    expect(sent).toBe(0);
    await live.close();
  });
});
