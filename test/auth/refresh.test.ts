// Over 300 lines: the refreshing credential source against one scripted token endpoint, one
// behaviour per test (rotation, refusals, other writers, a full disk, the lock).
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { withCredentialLock } from '../../src/auth/lock.js';
import { refreshingCredentials } from '../../src/auth/refresh.js';
import { realDisk, type StoreDisk } from '../../src/config/disk.js';
import { ConfigStore, type StoredCredential } from '../../src/config/store.js';
import { AuthError, SvcError } from '../../src/errors.js';
import { ApiClient } from '../../src/http/client.js';
import { OutcomeUnknownError } from '../../src/http/errors.js';
import { outOfDescriptors } from '../../src/system/system-errors.js';
import { fillableDisk } from '../helpers/disk.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The refreshing credential source against a scripted token endpoint: what it does when the
 * server does not rotate refresh tokens, refuses one, or when another process wrote meanwhile.
 */
let server: Server;
let url: string;
let onToken: (form: URLSearchParams) => { status: number; body: unknown };
const seen: URLSearchParams[] = [];

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (d) => {
      body += d;
    });
    request.on('end', () => {
      const form = new URLSearchParams(body);
      seen.push(form);
      const { status, body: answer } = onToken(form);
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const dirs: string[] = [];
afterEach(() => {
  seen.length = 0;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(credential: Partial<StoredCredential>, disk?: StoreDisk) {
  const dir = tempDir('svc-refresh-');
  dirs.push(dir);
  const store = new ConfigStore(join(dir, 'config'), disk ? { disk } : {});
  const warnings: string[] = [];
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
    expires_at: new Date(Date.now() - 1000).toISOString(),
    client_id: 'client-1',
    client_secret: 'secret-1',
    token_url: `${url}/v1/oauth/token`,
    obtained_at: new Date().toISOString(),
    ...credential,
  };
  const source = refreshingCredentials(
    {
      store,
      profile: 'p',
      now: Date.now,
      api: async () => api,
      defaultTokenUrl: () => `${url}/v1/oauth/token`,
      loginCommand: () => 'svc -p p login',
      warn: (message) => warnings.push(message),
    },
    full,
  );
  return { store, source, full, warnings, close: () => api.close() };
}

describe('refreshing OAuth credentials', () => {
  it('refreshes an expired token with client_secret_post, and keeps a refresh token the server does not rotate', async () => {
    const { store, source, full, close } = setup({});
    await store.setCredential('p', full);
    onToken = () => ({
      status: 200,
      body: { access_token: 'at-new', token_type: 'bearer', expires_in: '600', id_token: 'x' },
    });
    expect(await source.token()).toBe('at-new');
    expect(Object.fromEntries(seen[0]!)).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'rt-old-0123456789',
      client_id: 'client-1',
      client_secret: 'secret-1',
    });
    const stored = store.credential('p')!;
    expect(stored).toMatchObject({
      access_token: 'at-new',
      refresh_token: 'rt-old-0123456789',
      client_secret: 'secret-1',
    });
    expect(Date.parse(stored.expires_at!) - Date.now()).toBeGreaterThan(590_000);
    expect(source.secrets()).toEqual(
      expect.arrayContaining(['at-old', 'rt-old-0123456789', 'secret-1', 'at-new']),
    );
    await close();
  });

  it('uses a token another process stored while it waited, without a request', async () => {
    const { store, source, full, close } = setup({});
    await store.setCredential('p', full);
    await store.setCredential('p', {
      ...full,
      access_token: 'at-other',
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    onToken = () => ({ status: 500, body: {} });
    expect(await source.renew!('at-old')).toBe('at-other');
    expect(seen).toHaveLength(0);
    await close();
  });

  it('re-reads on invalid_grant: a credential written meanwhile wins over giving up', async () => {
    const { store, source, full, close } = setup({});
    await store.setCredential('p', full);
    onToken = () => {
      // Another writer (e.g. an older svc that does not lock) stores new tokens meanwhile.
      const other = { ...full, access_token: 'at-login', refresh_token: 'rt-login' };
      const file = join(store.dir, 'credentials.json');
      writeFileSync(file, JSON.stringify({ profiles: { p: other } }));
      return {
        status: 400,
        body: { error: 'invalid_grant', error_description: 'refresh token already used' },
      };
    };
    expect(await source.token()).toBe('at-login');
    expect(store.credential('p')!.refresh_token).toBe('rt-login');
    await close();
  });

  it('gives up on invalid_grant with exit 3, never deleting the credential', async () => {
    const { store, source, full, close } = setup({});
    await store.setCredential('p', full);
    onToken = () => ({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'refresh token rt-old-0123456789 expired' },
    });
    const error = await source.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).exitCode).toBe(3);
    // The server's description echoed the token: it is scrubbed from the message.
    expect((error as AuthError).message).toBe(
      'the session of profile "p" could not be refreshed: refresh token [redacted] expired (invalid_grant)',
    );
    expect((error as AuthError).hint).toBe(
      'run `svc -p p login --client-id client-1 --client-secret-file FILE` again (a confidential client: its secret from --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET)',
    );
    // Kept, with the refusal recorded on it.
    expect(store.credential('p')).toEqual({
      ...full,
      refresh_refused: {
        code: 'invalid_grant',
        message: (error as AuthError).message,
        at: expect.any(String),
      },
    });
    await close();
  });

  it.each(['invalid_grant', 'invalid_client'])(
    'after %s, hands out nothing (not even an unexpired access token) until a new login',
    async (code) => {
      const { store, source, full, close } = setup({});
      await store.setCredential('p', full);
      onToken = () => ({ status: 400, body: { error: code, error_description: 'refused' } });
      const first = (await source.token().catch((e: unknown) => e)) as AuthError;
      expect(first.message).toBe(`the session of profile "p" could not be refreshed: refused (${code})`);
      // The access token has not expired, and the server is not asked again: the same refusal.
      await store.setCredential('p', {
        ...store.credential('p')!,
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
      });
      const again = (await source.token().catch((e: unknown) => e)) as AuthError;
      expect(again).toBeInstanceOf(AuthError);
      expect([again.message, again.hint, again.exitCode]).toEqual([first.message, first.hint, 3]);
      expect(seen).toHaveLength(1);
      // A new login stores a new credential: nothing refused any more.
      await store.setCredential('p', { ...full, access_token: 'at-new', expires_at: undefined });
      expect(await source.token()).toBe('at-new');
      await close();
    },
  );

  it('a server error is not recorded: the next use asks again', async () => {
    const { store, source, full, close } = setup({});
    await store.setCredential('p', full);
    onToken = () => ({ status: 503, body: { error: 'temporarily_unavailable' } });
    await source.token().catch(() => undefined);
    expect(store.credential('p')!.refresh_refused).toBeUndefined();
    await close();
  });

  it('a refresh whose answer says nothing of its outcome (a 5xx) says what that means for the login', async () => {
    const { store, source, full, close } = setup({});
    await store.setCredential('p', full);
    onToken = () => ({ status: 500, body: { error: 'server_error' } });
    const error = await source.token().catch((e: unknown) => e);
    // Not the command's outcome (it was never sent): a plain failure, no `outcome: unknown`.
    expect(error).toBeInstanceOf(SvcError);
    expect(error).not.toBeInstanceOf(OutcomeUnknownError);
    expect([(error as SvcError).category, (error as SvcError).code, (error as SvcError).message]).toEqual([
      'failure',
      'server_error',
      'the session of profile "p" could not be refreshed, and whether the platform acted on it is unknown: 500 Internal Server Error',
    ]);
    expect((error as SvcError).hint).toBe(
      'the command itself was not sent; run it again: if the platform did refresh the session, the new tokens were lost with its answer, and svc will say so and ask for `svc -p p login`',
    );
    await close();
  });

  it('fails with exit 3 when the token expired and there is no refresh token', async () => {
    const { store, source, full, close } = setup({ refresh_token: undefined });
    await store.setCredential('p', full);
    const error = await source.token().catch((e: unknown) => e);
    expect((error as AuthError).message).toBe(
      'the access token of profile "p" has expired and there is no refresh token',
    );
    expect(seen).toHaveLength(0);
    await close();
  });
});

describe('refreshing on a full disk', () => {
  it('spends nothing when the credential file could not be written: exit 1, the login kept', async () => {
    const { disk, full: diskFull } = fillableDisk();
    const { store, source, full, close } = setup({}, disk);
    await store.setCredential('p', full);
    diskFull.reserve = true;
    diskFull.write = true;
    onToken = () => ({
      status: 200,
      body: { access_token: 'at-new', token_type: 'bearer', expires_in: 600 },
    });
    const error = (await source.token().catch((e: unknown) => e)) as SvcError;
    expect(error).toBeInstanceOf(SvcError);
    expect([error.exitCode, error.message, error.hint]).toEqual([
      1,
      `the session of profile "p" was not refreshed: ${store.credentialsPath} cannot be written (ENOSPC: no space left on device, write)`,
      'its refresh token was not used, so the login is kept: make room (or make the directory writable), then run the command again',
    ]);
    expect(seen).toHaveLength(0);
    expect(store.credential('p')).toEqual(full);
    await close();
  });

  it('out of file descriptors at the proof: the limit named, never "make room" (review23e L3)', async () => {
    const emfile = Object.assign(new Error('EMFILE: too many open files, open'), { code: 'EMFILE' });
    let out = false;
    const disk: StoreDisk = {
      reserve(path, bytes) {
        if (out) throw emfile;
        realDisk.reserve(path, bytes);
      },
      write: realDisk.write,
    };
    const { store, source, full, close } = setup({}, disk);
    await store.setCredential('p', full);
    out = true;
    const error = (await source.token().catch((e: unknown) => e)) as SvcError;
    expect(error).toBeInstanceOf(SvcError);
    expect([error.exitCode, error.message, error.hint]).toEqual([
      1,
      `the session of profile "p" was not refreshed: ${store.credentialsPath} cannot be written (${outOfDescriptors(emfile)})`,
      'its refresh token was not used, so the login is kept: raise that limit, then run the command again',
    ]);
    expect(error.message).toMatch(/too many open files \(ulimit -n [^)]+\): raise the limit\)$/);
    expect(seen).toHaveLength(0);
    expect(store.credential('p')).toEqual(full);
    await close();
  });

  it('spends nothing when the mark of the refresh cannot be written (the disk filled after the proof): exit 1, the login kept', async () => {
    const { disk, full: diskFull } = fillableDisk();
    const { store, source, full, close } = setup({}, disk);
    await store.setCredential('p', full);
    diskFull.write = true;
    onToken = () => ({
      status: 200,
      body: { access_token: 'at-new', token_type: 'bearer', expires_in: 600 },
    });
    const error = (await source.token().catch((e: unknown) => e)) as SvcError;
    expect([error.exitCode, error.message, error.hint]).toEqual([
      1,
      `the session of profile "p" was not refreshed: cannot write ${store.credentialsPath}: ENOSPC: no space left on device, write`,
      'its refresh token was not used, so the login is kept: make room (or make the directory writable), then run the command again',
    ]);
    expect(seen).toHaveLength(0);
    expect(store.credential('p')).toEqual(full);
    await close();
  });

  it('a save that fails after the refresh: the run goes on with the new token, says once that a new login will be needed', async () => {
    const { disk, full: diskFull } = fillableDisk();
    const { store, source, full, warnings, close } = setup({}, disk);
    await store.setCredential('p', full);
    // Room for the scratch write and the mark of the refresh sent, none for the file once the
    // refresh is on its way (someone else filled the disk meanwhile).
    onToken = () => {
      diskFull.write = true;
      return {
        status: 200,
        body: {
          access_token: 'at-new',
          token_type: 'bearer',
          expires_in: 600,
          refresh_token: 'rt-new-0123456789',
        },
      };
    };
    expect(await source.token()).toBe('at-new');
    // The rotated refresh token is not spent again by the same run: its new access token is used.
    expect(await source.token()).toBe('at-new');
    expect(await source.renew!('at-old')).toBe('at-new');
    expect(seen).toHaveLength(1);
    expect(warnings).toEqual([
      `the refreshed login of profile "p" could not be saved (cannot write ${store.credentialsPath}: ENOSPC: no space left on device, write); this command goes on with it, but the next one will need \`svc -p p login\``,
    ]);
    // The spent refresh token, marked sent by this run: the next one does not send it again.
    expect(store.credential('p')).toEqual({
      ...full,
      refresh_sent: {
        refresh_token_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        pid: process.pid,
        at: expect.any(String),
      },
      // With the refusal an svc older than the mark honours: it does not send the token either (attack23b F3).
      refresh_refused: expect.objectContaining({ code: 'refresh_in_flight' }),
    });
    await close();
  });
});

describe('the credential lock', () => {
  it('serialises holders and takes over a lock abandoned by a crashed process', async () => {
    const dir = tempDir('svc-lock-');
    dirs.push(dir);
    const store = new ConfigStore(join(dir, 'config'));
    const order: string[] = [];
    const hold = (name: string) =>
      withCredentialLock(store, async () => {
        order.push(`${name}+`);
        await new Promise((r) => setTimeout(r, 30));
        order.push(`${name}-`);
      });
    await Promise.all([hold('a'), hold('b'), hold('c')]);
    for (let i = 0; i < order.length; i += 2) expect(order[i]!.replace('+', '-')).toBe(order[i + 1]);
    // A lock directory nobody touches while it is watched for 15 s (its mtime is no proof by
    // itself: another machine's clock may have set it): its holder is gone. The watch on a clock
    // that moves on 500 ms at each reading.
    const stale = join(store.dir, 'credentials.json.lock');
    mkdirSync(stale);
    const old = new Date(Date.now() - 60_000);
    utimesSync(stale, old, old);
    let now = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => (now += 500));
    try {
      expect(await withCredentialLock(store, async () => 'taken over')).toBe('taken over');
    } finally {
      vi.restoreAllMocks();
    }
  });
});
