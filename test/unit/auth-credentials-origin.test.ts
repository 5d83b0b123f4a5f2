// Where a stored credential may go (src/auth/credentials.ts): a stored API key asked about before
// it is forgotten (storedCredentialsOf: logout, profiles rm) and a credential a login replaced
// (replacedCredentials) go to the origin they were stored for, or to none; one stored before svc
// recorded origins goes to its profile's base_url, or nowhere (review23c H1, review23f M1). The
// errors are AuthErrors (exit 3) that name the profile and the way out.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  credentialBeingReplaced,
  OriginMismatchError,
  originOf,
  replacedCredentials,
  storedCredentialsOf,
  UnknownOriginError,
} from '../../src/auth/credentials.js';
import { ConfigStore, type StoredCredential } from '../../src/config/store.js';
import { AuthError } from '../../src/errors.js';
import { tempDir } from '../helpers/temp.js';

const store = () => new ConfigStore(join(tempDir('svc-origin-'), 'svc'));
const key = (origin?: string): StoredCredential => ({
  type: 'token',
  access_token: 'svc_pk_live_abc',
  obtained_at: 'x',
  ...(origin === undefined ? {} : { origin }),
});
const here = new URL('https://a.example/v1/me');
const elsewhere = new URL('https://b.example/v1/me');

const unknownOrigin = (what: string) => ({
  message: `${what} of profile "p" names no server (it was stored before svc recorded origins, in a profile with no base_url); svc sends it to none`,
  code: 'credential_origin_unknown',
  exitCode: 3,
});

/** storedCredentialsOf over a store holding `credential` for "p", the profile's base_url `base`. */
async function stored(
  credential: StoredCredential | undefined,
  base: string | undefined,
  login = 'svc login',
) {
  const s = store();
  if (credential) await s.setCredential('p', credential);
  const notices: string[] = [];
  const source = storedCredentialsOf(s, 'p', {
    profileBaseUrl: () => base,
    notice: (m) => notices.push(m),
    loginCommand: () => login,
  });
  return { s, source, notices };
}

describe('a stored key asked about before it is forgotten (storedCredentialsOf)', () => {
  it('goes to its own origin, and nowhere else, with the hint for the login command given', async () => {
    const { source } = await stored(key('https://a.example'), undefined, 'svc -p p login');
    expect(await source.token(here)).toBe('svc_pk_live_abc');
    const error = await source.token(elsewhere).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OriginMismatchError);
    expect(error).toMatchObject({
      message:
        'profile "p" holds a credential for https://a.example, not for https://b.example; svc sends a stored credential only to the origin it was stored for',
      code: 'credential_origin_mismatch',
      hint: 'log in there with `svc -p p login --base-url https://b.example` (or pass another -p NAME to keep this profile as it is), or set SVC_TOKEN',
      exitCode: 3,
      origin: 'https://a.example',
      target: 'https://b.example',
    });
    expect(source.origin).toBe('profile "p"');
    expect(source.secrets()).toEqual(['svc_pk_live_abc']);
  });

  it('one stored without an origin goes to its profile’s base_url only, and is not bound by it', async () => {
    const { s, source, notices } = await stored(key(), 'https://a.example/api');
    expect(await source.token(here)).toBe('svc_pk_live_abc');
    await expect(source.token(elsewhere)).rejects.toBeInstanceOf(OriginMismatchError);
    // This use is recorded nowhere: the credential stays unbound, and nothing is said.
    expect(s.credential('p')?.origin).toBeUndefined();
    expect(notices).toEqual([]);
  });

  it.each([
    ['no base_url', undefined],
    ['a base_url a hand edit left unreadable', 'not a url'],
  ])('one stored without an origin, in a profile with %s, goes to no server', async (_, base) => {
    const { s, source } = await stored(key(), base);
    const error = await source.token(here).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownOriginError);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject(unknownOrigin('the credential'));
    expect(s.credential('p')?.origin).toBeUndefined();
  });

  it('with no credential stored, hands out none and checks nothing', async () => {
    const { source } = await stored(undefined, undefined);
    expect(await source.token(here)).toBeUndefined();
    expect(source.secrets()).toEqual([]);
  });
});

describe('a credential a login replaced (replacedCredentials)', () => {
  it('goes to its own origin only; without a target it is handed out as it is', async () => {
    const source = replacedCredentials(key('https://a.example'), 'p', () => 'svc login');
    expect(source.origin).toBe('the replaced credential of profile "p"');
    expect(await source.token(here)).toBe('svc_pk_live_abc');
    expect(await source.token()).toBe('svc_pk_live_abc');
    await expect(source.token(elsewhere)).rejects.toMatchObject({
      code: 'credential_origin_mismatch',
      hint: 'log in there with `svc login --base-url https://b.example` (add -p NAME to keep this profile as it is), or set SVC_TOKEN',
    });
  });

  it('one without an origin goes to no server, even with no target named', async () => {
    const source = replacedCredentials(key(), 'p', () => 'svc login');
    const error = await source.token(here).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownOriginError);
    expect(error).toMatchObject(unknownOrigin('the replaced credential'));
    await expect(source.token()).rejects.toBeInstanceOf(UnknownOriginError);
  });
});

describe('originOf and credentialBeingReplaced', () => {
  it('a URL’s origin; nothing for a text that is no URL', () => {
    expect(originOf('https://a.example:8443/v1/x?y')).toBe('https://a.example:8443');
    expect(originOf('not a url')).toBeUndefined();
  });

  it('an older token in a profile whose base_url is unreadable is left unbound', async () => {
    const s = store();
    await s.setCredential('p', key());
    await s.setProfileValues('p', { base_url: 'not a url' });
    expect(credentialBeingReplaced(s, 'p')).toEqual(key());
  });
});
