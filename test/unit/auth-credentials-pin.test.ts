// A command keeps the identity it started with (src/auth/credentials.ts, pinnedToSession): a
// refresh of the same login passes, another login stored meanwhile (another terminal's `svc login`)
// stops every request with an AuthError (exit 3) naming what changed. And an old credential bound
// to its origin on first use when the file changed while svc waited for its lock.
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { credentialBeingReplaced, credentialsFor, type RefreshOptions } from '../../src/auth/credentials.js';
import { ConfigStore, type StoredCredential } from '../../src/config/store.js';
import { AuthError } from '../../src/errors.js';
import { tempDir } from '../helpers/temp.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (sub: unknown) => `${b64({ alg: 'none' })}.${b64({ sub })}.sig`;
const store = () => new ConfigStore(join(tempDir('svc-pin-'), 'svc'));
const later = new Date(Date.now() + 3600_000).toISOString();
const oauth = (access_token: string, session: string | undefined): StoredCredential => ({
  type: 'oauth',
  access_token,
  refresh_token: `rt-${access_token}`,
  expires_at: later,
  ...(session === undefined ? {} : { session }),
  obtained_at: 'x',
});
const token = (access_token: string, session?: string): StoredCredential => ({
  type: 'token',
  access_token,
  ...(session === undefined ? {} : { session }),
  obtained_at: 'x',
});
const refresh = (loginCommand = 'svc -p p login'): RefreshOptions => ({
  now: Date.now,
  api: async () => {
    throw new Error('no request is expected');
  },
  defaultTokenUrl: () => 'http://127.0.0.1:9/v1/oauth/token',
  loginCommand: () => loginCommand,
  warn: () => {},
});

/**
 * The profile holds `initial` when the command starts and `now` when it next sends a request. With
 * refresh options (as every command has) an OAuth login's token is read from the file at each use;
 * a token login's is the one the command started with. `null`: no refresh options.
 */
async function afterChange(
  initial: StoredCredential,
  now: StoredCredential | undefined,
  options: RefreshOptions | null = refresh(),
) {
  const s = store();
  await s.setCredential('p', initial);
  const source = credentialsFor({}, s, 'p', options ?? undefined);
  if (now) await s.setCredential('p', now);
  else await s.removeCredential('p');
  return source.token().catch((error: unknown) => error);
}

const changed = (what: string) =>
  expect.objectContaining({
    message: `profile "p" now ${what} (logged in while this run was going); this run keeps the identity it started with`,
    code: 'credential_changed',
    exitCode: 3,
  });

describe('a command keeps the login it started with', () => {
  it.each([
    ['a refresh of the same session', oauth('at-1', 's1'), oauth('at-2', 's1'), 'at-2'],
    [
      'the same token logged in again (a new session id)',
      token('tok-1', 's1'),
      token('tok-1', 's2'),
      'tok-1',
    ],
    [
      'a refresh of an older OAuth login (no session id)',
      oauth('at-1', undefined),
      oauth('at-2', undefined),
      'at-2',
    ],
    ['an older token stored again', token('tok-1'), token('tok-1'), 'tok-1'],
    ['a refresh whose new token is opaque', oauth(jwt('alice'), 's1'), oauth('opaque', 's1'), 'opaque'],
    ['a refresh from an opaque token to a JWT', oauth('opaque', 's1'), oauth(jwt('bob'), 's1'), jwt('bob')],
    ['JWTs whose sub is no string', oauth(jwt(5), 's1'), oauth(jwt(6), 's1'), jwt(6)],
  ])('goes on after %s', async (_, initial, now, sent) => {
    expect(await afterChange(initial, now)).toBe(sent);
  });

  it.each([
    ['another OAuth session', oauth('at-1', 's1'), oauth('at-2', 's2')],
    ['another token', token('tok-1', 's1'), token('tok-2', 's2')],
    ['another older token (no session ids)', token('tok-1'), token('tok-2')],
    ['an OAuth login with the token the profile held', token('tok-1', 's1'), oauth('tok-1', 's2')],
    ['a token login with the OAuth access token the profile held', oauth('at-1', 's1'), token('at-1', 's2')],
    ['a new OAuth login where an older one was', oauth('at-1', undefined), oauth('at-2', 's2')],
  ])('stops on %s, which holds another login', async (_, initial, now) => {
    const error = await afterChange(initial, now);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toEqual(changed('holds another login'));
  });

  it('names the other user when the tokens are JWTs of two users, even within one session', async () => {
    expect(await afterChange(oauth(jwt('alice'), 's1'), oauth(jwt('bob'), 's1'))).toEqual(
      changed('belongs to bob'),
    );
    expect(await afterChange(oauth(jwt('alice'), 's1'), oauth(jwt('bob'), 's2'))).toEqual(
      changed('belongs to bob'),
    );
    // Another login of the same user is the same identity: see "another login of the same identity" below.
  });

  it('stops once the profile holds no credential, with the login command to run', async () => {
    const error = await afterChange(token('tok-1', 's1'), undefined, refresh('svc -p p login'));
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({
      message: 'not logged in: profile "p" has no credential any more',
      hint: 'run `svc -p p login` again',
    });
    expect(await afterChange(token('tok-1', 's1'), undefined, null)).toMatchObject({
      hint: 'run `svc login` again',
    });
  });

  it('checks a renewed token too: a 401 renewed from another login is refused', async () => {
    const s = store();
    await s.setCredential('p', oauth('at-1', 's1'));
    const source = credentialsFor({}, s, 'p', refresh());
    await s.setCredential('p', oauth('at-2', 's2'));
    // The file's token is no longer the rejected one: it is taken without a request, then refused.
    await expect(source.renew!('at-1')).rejects.toEqual(changed('holds another login'));
  });
});

describe('binding an old credential while the file changes under it', () => {
  const binding = { profileBaseUrl: () => undefined, notice: () => {}, loginCommand: () => 'svc login' };
  const target = new URL('http://127.0.0.1:4010/v1/me');

  /** The store's third read (the one under the lock) sees `meanwhile`; the others see the file. */
  function readUnderLock(s: ConfigStore, meanwhile: StoredCredential | undefined) {
    const real = s.credential.bind(s);
    let reads = 0;
    vi.spyOn(s, 'credential').mockImplementation((name) => (++reads === 3 ? meanwhile : real(name)));
  }

  it('writes nothing when the credential was removed meanwhile', async () => {
    const s = store();
    await s.setCredential('p', token('tok-1', 's1'));
    readUnderLock(s, undefined);
    expect(await credentialsFor({}, s, 'p', undefined, binding).token(target)).toBe('tok-1');
    expect(s.credential('p')).toEqual(token('tok-1', 's1'));
  });

  it('keeps the origin another process bound it to meanwhile, and refuses this one', async () => {
    const s = store();
    await s.setCredential('p', token('tok-1', 's1'));
    readUnderLock(s, { ...token('tok-1', 's1'), origin: 'https://api.example.com' });
    await expect(credentialsFor({}, s, 'p', undefined, binding).token(target)).rejects.toThrow(
      'profile "p" holds a credential for https://api.example.com, not for http://127.0.0.1:4010',
    );
    expect(s.credential('p')?.origin).toBeUndefined();
  });
});

/** A JWT with these claims over a user's usual ones (attack21 F9). */
const user = (claims: Record<string, unknown> = {}) =>
  `${b64({ alg: 'HS256' })}.${b64({
    iss: 'http://127.0.0.1:4010',
    sub: 'usr_ci',
    org_id: 'org_demo',
    tenants: [
      { id: 'ten_a', role: 'tenant_admin' },
      { id: 'ten_b', role: 'tenant_admin' },
    ],
    jti: Math.random().toString(36),
    ...claims,
  })}.sig`;
const at = (credential: StoredCredential, origin = 'http://127.0.0.1:4010') => ({ ...credential, origin });

describe('another login of the same identity while a command runs (attack21 F9)', () => {
  const first = user();
  it.each([
    [
      'a fresh token of the same user (a parallel CI job logging in)',
      at(token(first, 's1')),
      at(token(user(), 's2')),
    ],
    [
      'a token of the same user for fewer tenants',
      at(token(first, 's1')),
      at(token(user({ tenants: [{ id: 'ten_a', role: 'tenant_admin' }] }), 's2')),
    ],
    [
      'a token of the same user with narrower scopes',
      at(token(first, 's1')),
      at(token(user({ scope: 'read:tenants' }), 's2')),
    ],
    [
      'a token login of the same user where an OAuth login was',
      at(oauth(first, 's1')),
      at(token(user(), 's2')),
    ],
    [
      'another OAuth login of the same user (not read, not refreshed)',
      at(oauth(first, 's1')),
      at(oauth(user(), 's2')),
    ],
  ])('goes on with the token it holds after %s', async (_, initial, now) => {
    expect(await afterChange(initial, now)).toBe(first);
  });

  it.each([
    ['an API key where the user was', at(token(first, 's1')), at(token('svc_sk_live_abc123', 's2'))],
    [
      'the same user of another organization',
      at(token(first, 's1')),
      at(token(user({ org_id: 'org_other' }), 's2')),
    ],
    [
      // An organization's id as the token holds it: 1 and 2 are two, not one absent value.
      'the same user of another organization whose ids are numbers',
      at(token(user({ org_id: 1 }), 's1')),
      at(token(user({ org_id: 2 }), 's2')),
    ],
    [
      'the same subject from another issuer',
      at(token(first, 's1')),
      at(token(user({ iss: 'https://idp.example' }), 's2')),
    ],
    [
      "the same user through a third-party client's token",
      at(token(first, 's1')),
      at(token(user({ client_id: 'cli_thirdparty' }), 's2')),
    ],
    [
      'the same user at another base URL',
      at(token(first, 's1')),
      at(token(user(), 's2'), 'https://api.example.com'),
    ],
  ])('stops on %s: another identity', async (_, initial, now) => {
    expect(await afterChange(initial, now)).toEqual(changed('holds another login'));
  });

  it('stops on a user where an API key was, naming the user', async () => {
    expect(await afterChange(at(token('svc_sk_live_abc123', 's1')), at(token(first, 's2')))).toEqual(
      changed('belongs to usr_ci'),
    );
  });

  it('neither reads nor refreshes the other login: its expired token is not sent for a refresh', async () => {
    const s = store();
    await s.setCredential('p', at(oauth(first, 's1')));
    const source = credentialsFor({}, s, 'p', refresh());
    const expired = { ...at(oauth(user(), 's2')), expires_at: new Date(Date.now() - 60_000).toISOString() };
    await s.setCredential('p', expired);
    // refresh()'s api throws on any request: a refresh of the other login would fail the token.
    expect(await source.token()).toBe(first);
  });

  it('goes on with the token it last took from its own login (a refresh of it), not the first', async () => {
    const s = store();
    await s.setCredential('p', at(oauth(first, 's1')));
    const source = credentialsFor({}, s, 'p', refresh());
    const refreshed = user();
    await s.setCredential('p', at(oauth(refreshed, 's1')));
    expect(await source.token()).toBe(refreshed);
    await s.setCredential('p', at(oauth(user(), 's2')));
    expect(await source.token()).toBe(refreshed);
  });

  it('keeps its own token when the other login is stored while its token is being read', async () => {
    const s = store();
    await s.setCredential('p', at(oauth(first, 's1')));
    const source = credentialsFor({}, s, 'p', refresh());
    const other = at(oauth(user(), 's2'));
    const real = s.credential.bind(s);
    let reads = 0;
    // The first read (the check before the token) sees its own login; every later one the other.
    vi.spyOn(s, 'credential').mockImplementation((name) => (++reads === 1 ? real(name) : other));
    expect(await source.token()).toBe(first);
    expect(reads).toBeGreaterThan(2);
  });

  it('stops once the token it holds is refused, saying the profile holds another login of the same user', async () => {
    const s = store();
    await s.setCredential('p', at(oauth(first, 's1')));
    const source = credentialsFor({}, s, 'p', refresh());
    await s.setCredential('p', at(oauth(user(), 's2')));
    expect(await source.token()).toBe(first);
    await expect(source.renew!(first)).rejects.toMatchObject({
      message:
        'the token this run holds was refused, and profile "p" now holds another login of the same user (logged in while this run was going); this run keeps the login it started with',
      code: 'credential_changed',
      exitCode: 3,
    });
  });
});

// review23c H1: what a login replaces is bound before the login rewrites the profile's base_url.
describe('credentialBeingReplaced', () => {
  it('binds an older token to its profile’s base_url as it is now; with none, to nothing', async () => {
    const s = store();
    await s.setCredential('p', token('svc_pk_old'));
    expect(credentialBeingReplaced(s, 'p')).toEqual(token('svc_pk_old'));
    await s.setProfileValues('p', { base_url: 'https://a.example/api' });
    expect(credentialBeingReplaced(s, 'p')).toEqual({ ...token('svc_pk_old'), origin: 'https://a.example' });
  });

  it('leaves a recorded origin, and an OAuth session, as they are', async () => {
    const s = store();
    await s.setProfileValues('p', { base_url: 'https://a.example' });
    await s.setCredential('p', { ...token('svc_pk_old'), origin: 'https://b.example' });
    expect(credentialBeingReplaced(s, 'p')?.origin).toBe('https://b.example');
    await s.setCredential('p', oauth('at', 's1'));
    expect(credentialBeingReplaced(s, 'p')).toEqual(oauth('at', 's1'));
    expect(credentialBeingReplaced(s, 'none')).toBeUndefined();
  });
});
