// The refreshing credential source's edges (src/auth/refresh.ts) on a fixed clock, against a
// scripted token endpoint in-process (an ApiClient whose request() answers or throws as told):
// the 30-second margin exactly, a token without a refresh token, a credential removed or replaced
// while svc waited for the lock, refusals that are recorded and answers that are not, and the
// tokens of a refresh that could not be saved. refresh.test.ts has the main paths over HTTP.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withCredentialLock } from '../../src/auth/lock.js';
import {
  credentialSecrets,
  expiresSoon,
  refreshingCredentials,
  reloginHint,
} from '../../src/auth/refresh.js';
import type { StoreDisk } from '../../src/config/disk.js';
import { ConfigStore, type StoredCredential } from '../../src/config/store.js';
import { AuthError, InterruptedError } from '../../src/errors.js';
import type { ApiClient } from '../../src/http/client.js';
import { ApiError } from '../../src/http/errors.js';
import { fillableDisk } from '../helpers/disk.js';
import { tempDir } from '../helpers/temp.js';

const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();

type Answer = (form: Record<string, string | undefined>) => unknown;
const refusal = (status: number, code: string) =>
  new ApiError({ status, code, message: `refused: ${code}`, body: { error: code } });

function setup(
  answer: Answer = () => ({ access_token: 'at-new', token_type: 'bearer', expires_in: 600 }),
  disk?: StoreDisk,
) {
  const store = new ConfigStore(join(tempDir('svc-refresh-edges-'), 'config'), disk ? { disk } : {});
  const forms: Record<string, string | undefined>[] = [];
  const api = {
    request: async (options: { form: Record<string, string | undefined> }) => {
      forms.push(options.form);
      return { data: answer(options.form), headers: {} };
    },
    clockOffsetOf: () => undefined,
  } as unknown as ApiClient;
  const warnings: string[] = [];
  const full: StoredCredential = {
    type: 'oauth',
    access_token: 'at-old',
    refresh_token: 'rt-old',
    expires_at: at(-1000),
    client_id: 'client-1',
    token_url: 'http://127.0.0.1:9/v1/oauth/token',
    obtained_at: at(-3600_000),
  };
  const source = (initial: StoredCredential = full) =>
    refreshingCredentials(
      {
        store,
        profile: 'p',
        now: () => NOW,
        api: async () => api,
        defaultTokenUrl: () => 'http://127.0.0.1:9/v1/oauth/token',
        loginCommand: () => 'svc -p p login',
        warn: (message) => warnings.push(message),
      },
      initial,
    );
  /** Another process (or an older svc that takes no lock) writes the credential file. */
  const writeBehind = (credential: StoredCredential) =>
    writeFileSync(join(store.dir, 'credentials.json'), JSON.stringify({ profiles: { p: credential } }));
  return { store, source, full, forms, warnings, writeBehind };
}

describe('the parts', () => {
  it('reloginHint names the client only for a confidential client with its id', () => {
    expect(
      reloginHint('svc -p p login', { client_id: 'client-1', client_secret: 's' } as StoredCredential),
    ).toBe(
      'run `svc -p p login --client-id client-1 --client-secret-file FILE` again (a confidential client: its secret from --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET)',
    );
    expect(reloginHint('svc login', { client_secret: 's' } as StoredCredential)).toBe(
      'run `svc login` again',
    );
    expect(reloginHint('svc login', { client_id: 'client-1' } as StoredCredential)).toBe(
      'run `svc login` again',
    );
    expect(reloginHint('svc login', undefined)).toBe('run `svc login` again');
  });

  it('credentialSecrets lists the secrets a credential holds, no empty or absent one', () => {
    const c = { type: 'oauth', access_token: 'at', refresh_token: '', obtained_at: 'x' } as StoredCredential;
    expect(credentialSecrets(c)).toEqual(['at']);
    expect(credentialSecrets({ ...c, refresh_token: 'rt', client_secret: 'cs' })).toEqual(['at', 'rt', 'cs']);
    expect(credentialSecrets(undefined)).toEqual([]);
  });

  it('expiresSoon: under 30 seconds left, not at 30 seconds; never without a readable expiry', () => {
    const c = (expires_at: string | undefined) =>
      ({ type: 'oauth', access_token: 'a', expires_at, obtained_at: 'x' }) as StoredCredential;
    expect(expiresSoon(c(at(30_000)), NOW)).toBe(false);
    expect(expiresSoon(c(at(29_999)), NOW)).toBe(true);
    expect(expiresSoon(c(at(-5_000)), NOW)).toBe(true);
    expect(expiresSoon(c(undefined), NOW)).toBe(false);
    expect(expiresSoon(c('soon'), NOW)).toBe(false);
  });
});

describe('what token() hands out', () => {
  it('names itself by its profile, and hands out nothing once the profile holds no credential', async () => {
    const { source } = setup();
    const s = source();
    expect(s.origin).toBe('profile "p"');
    expect(await s.token()).toBeUndefined();
  });

  it.each([
    ['an OAuth token without an expiry', { expires_at: undefined }, 'at-old'],
    ['an OAuth token with 30 seconds left', { expires_at: at(30_000) }, 'at-old'],
    [
      'a token login stored meanwhile, expired or not',
      { type: 'token' as const, refresh_token: undefined },
      'at-old',
    ],
    [
      'an OAuth token without a refresh token, 10 seconds left',
      { refresh_token: undefined, expires_at: at(10_000) },
      'at-old',
    ],
  ])('hands out %s as stored, without a request', async (_, change, sent) => {
    const { store, source, full, forms } = setup();
    await store.setCredential('p', { ...full, ...change });
    expect(await source().token()).toBe(sent);
    expect(forms).toEqual([]);
  });

  it('refuses an OAuth token without a refresh token from the moment it expires (exit 3, token_expired)', async () => {
    const { store, source, full, forms } = setup();
    await store.setCredential('p', { ...full, refresh_token: undefined, expires_at: at(0) });
    const error = await source()
      .token()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({
      message: 'the access token of profile "p" has expired and there is no refresh token',
      code: 'token_expired',
      hint: 'run `svc -p p login` again',
      exitCode: 3,
    });
    expect(forms).toEqual([]);
  });

  it('refreshes a token with under 30 seconds left', async () => {
    const { store, source, full, forms } = setup();
    await store.setCredential('p', { ...full, expires_at: at(29_999) });
    expect(await source().token()).toBe('at-new');
    expect(forms).toHaveLength(1);
  });
});

describe('the file read again under the lock', () => {
  /** token() sees the file's expired credential, then `meanwhile` is written while it waits for the lock. */
  async function tokenWhileWaiting(meanwhile: StoredCredential) {
    const { store, source, full, forms, writeBehind } = setup();
    await store.setCredential('p', full);
    const s = source();
    let result: Promise<unknown> | undefined;
    await withCredentialLock(store, async () => {
      result = s.token().catch((e: unknown) => e);
      writeBehind(meanwhile);
    });
    return { result: await result, forms };
  }

  it('takes the tokens another process refreshed meanwhile, without a request', async () => {
    const { result, forms } = await tokenWhileWaiting({
      type: 'oauth',
      access_token: 'at-other',
      refresh_token: 'rt-other',
      expires_at: at(600_000),
      obtained_at: at(0),
    });
    expect(result).toBe('at-other');
    expect(forms).toEqual([]);
  });

  it('says the token has expired when the credential written meanwhile has no refresh token', async () => {
    const { result, forms } = await tokenWhileWaiting({
      type: 'oauth',
      access_token: 'at-other',
      expires_at: at(-1),
      obtained_at: at(0),
    });
    expect(result).toMatchObject({
      message: 'the access token of profile "p" has expired and there is no refresh token',
      code: 'token_expired',
    });
    expect(forms).toEqual([]);
  });
});

describe('renew() after a 401', () => {
  it('says the token was rejected when there is no refresh token to renew it with', async () => {
    const { store, source, full, forms } = setup();
    await store.setCredential('p', { ...full, refresh_token: undefined, expires_at: at(600_000) });
    const error = await source().renew!('at-old').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({
      message: 'the access token of profile "p" was rejected and there is no refresh token',
      code: 'token_expired',
      hint: 'run `svc -p p login` again',
    });
    expect(forms).toEqual([]);
  });

  it('says the profile is logged out when its credential was removed meanwhile', async () => {
    const { store, source, full } = setup();
    await store.setCredential('p', full);
    const s = source();
    await store.removeCredential('p');
    const error = await s.renew!('at-old').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({
      message: 'not logged in: profile "p" has no credential any more',
      hint: 'run `svc -p p login` again',
    });
  });
});

describe('a refused refresh', () => {
  it.each([
    ['only its access token', { access_token: 'at-other' }, 'at-other'],
    ['only its refresh token', { refresh_token: 'rt-other' }, 'at-old'],
  ])(
    'takes a credential written meanwhile that differs in %s over invalid_grant',
    async (_, change, sent) => {
      const { store, source, full, writeBehind } = setup(() => {
        writeBehind({ ...full, ...change, expires_at: at(600_000) });
        throw refusal(400, 'invalid_grant');
      });
      await store.setCredential('p', full);
      expect(await source().token()).toBe(sent);
      expect(store.credential('p')?.refresh_refused).toBeUndefined();
    },
  );

  // A writer that takes no lock (an older svc) stored a new login while the refresh was out: a
  // definite refusal of the old one must neither hide nor overwrite it (invalid_grant re-read
  // already; invalid_client recorded the old credential over the new login).
  it.each(['invalid_grant', 'invalid_client'])(
    'after %s, keeps the login written meanwhile instead of recording the refusal over it',
    async (code) => {
      const login = {
        ...setup().full,
        access_token: 'at-login',
        refresh_token: 'rt-login',
        expires_at: at(600_000),
      };
      const { store, source, full, writeBehind } = setup(() => {
        writeBehind(login);
        throw refusal(400, code);
      });
      await store.setCredential('p', full);
      expect(await source().token()).toBe('at-login');
      expect(store.credential('p')).toEqual(login);
    },
  );

  it('records no refusal from a 429, whatever its body says: the next use asks again', async () => {
    const { store, source, full, forms } = setup(() => {
      throw refusal(429, 'invalid_grant');
    });
    await store.setCredential('p', full);
    await expect(source().token()).rejects.toBeInstanceOf(ApiError);
    expect(store.credential('p')).toEqual(full);
    await expect(source().token()).rejects.toBeInstanceOf(ApiError);
    expect(forms).toHaveLength(2);
  });

  it('still reports the refusal when the disk is too full to record it', async () => {
    const { disk, full: diskFull } = fillableDisk();
    const { store, source, full } = setup(() => {
      diskFull.write = true;
      throw refusal(400, 'invalid_grant');
    }, disk);
    await store.setCredential('p', full);
    const error = await source()
      .token()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({
      message: 'the session of profile "p" could not be refreshed: refused: invalid_grant (invalid_grant)',
      code: 'invalid_grant',
    });
    // Neither recorded nor unmarked: the next run does not send the refresh token again either.
    expect(store.credential('p')).toEqual({
      ...full,
      refresh_sent: expect.objectContaining({ pid: process.pid }),
      // And the refusal an svc older than the mark honours (attack23b F3).
      refresh_refused: expect.objectContaining({ code: 'refresh_in_flight' }),
    });
  });
});

describe('refreshed tokens', () => {
  it('keep a credential without a client id without one: the next refresh sends no made-up id', async () => {
    let n = 0;
    const { store, source, full, forms } = setup(() => ({
      access_token: `at-${++n}`,
      token_type: 'bearer',
      expires_in: 10,
    }));
    await store.setCredential('p', { ...full, client_id: undefined });
    const s = source({ ...full, client_id: undefined });
    expect(await s.token()).toBe('at-1');
    expect(await s.token()).toBe('at-2');
    expect(forms.map((f) => f.client_id)).toEqual([undefined, '']);
  });

  it.each([
    ['another access token', { access_token: 'at-other' }, 'at-other'],
    ['another refresh token', { refresh_token: 'rt-other' }, 'at-old'],
  ])(
    'that could not be saved are used only while the file holds what they replaced, not once it holds %s',
    async (_, change, sent) => {
      const { disk, full: diskFull } = fillableDisk();
      const { store, source, full, warnings } = setup(() => {
        diskFull.write = true;
        return { access_token: 'at-new', token_type: 'bearer', expires_in: 600, refresh_token: 'rt-new' };
      }, disk);
      await store.setCredential('p', full);
      const s = source();
      expect(await s.token()).toBe('at-new');
      expect(warnings).toHaveLength(1);
      diskFull.write = false;
      await store.setCredential('p', { ...full, ...change, expires_at: at(600_000) });
      expect(await s.token()).toBe(sent);
      await store.removeCredential('p');
      expect(await s.token()).toBeUndefined();
    },
  );
});

/**
 * The `refresh_sent` mark outliving an outcome the run knows (review23a F8): its removal failing
 * on a disk that filled after the mark (a refresh never sent, or failed without a refusal) was
 * silent; and an answer whose expiry is past any date (a JWT `exp` of 1e13, an `expires_in` of
 * 1e300) threw a RangeError outside the guarded region, the mark left and the run's exit handler
 * armed.
 */
describe('the mark of a refresh sent', () => {
  it('that cannot be taken off after a refresh that ended without tokens: said, with what the next run will say', async () => {
    const { disk, full: diskFull } = fillableDisk();
    const { store, source, full, warnings } = setup(() => {
      diskFull.write = true;
      throw refusal(400, 'invalid_request');
    }, disk);
    await store.setCredential('p', full);
    await expect(source().token()).rejects.toThrow('invalid_request');
    expect(store.credential('p')?.refresh_sent).toBeDefined();
    expect(warnings).toEqual([
      `the refresh of profile "p" ended without new tokens, but svc could not take the mark of it off the stored login (cannot write ${join(store.dir, 'credentials.json')}: ENOSPC: no space left on device, write): the next run will take its refresh token as spent and ask for \`svc -p p login\``,
    ]);
  });

  const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;
  it.each([
    ['a JWT exp of 1e13', { access_token: jwt({ exp: 1e13 }), token_type: 'bearer' }],
    ['an expires_in of 1e300', { access_token: 'at-new', token_type: 'bearer', expires_in: 1e300 }],
  ])(
    'an answer whose expiry is past any date (%s): saved with no expiry, the mark off',
    async (_, answer) => {
      const { store, source, full } = setup(() => answer);
      await store.setCredential('p', full);
      expect(await source().token()).toBe(answer.access_token);
      const saved = store.credential('p');
      expect([saved?.access_token, saved?.expires_at, saved?.refresh_sent]).toEqual([
        answer.access_token,
        undefined,
        undefined,
      ]);
    },
  );
});

// review24e L2: a refresh a clean-up needs after the command's stop (listen's put-back, afterStop)
// had a stop that never came: its waits and retries were bounded only by --timeout × the retries.
describe('a refresh for clean-up after the stop (afterStop)', () => {
  it('honours the clean-up’s own limit: past it, not sent (the refresh token kept)', async () => {
    const { source, forms, store, full } = setup();
    await store.setCredential('p', full);
    const limit = new AbortController();
    limit.abort();
    const error = await source()
      .token(undefined, { afterStop: true, signal: limit.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as Error).message).toMatch(/^interrupted before the session of profile "p" was refreshed/);
    expect(forms).toEqual([]);
    expect(store.credential('p')?.refresh_token).toBe('rt-old');
  });

  it('is sent under a limit not reached', async () => {
    const { source, forms, store, full } = setup();
    await store.setCredential('p', full);
    const token = await source().token(undefined, { afterStop: true, signal: new AbortController().signal });
    expect([token, forms.length]).toEqual(['at-new', 1]);
  });
});
