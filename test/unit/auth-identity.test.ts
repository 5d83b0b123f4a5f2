// Who a credential acts as (src/auth/identity.ts): what a JWT says of its holder (jwtSubject, also
// a bulk run's caller), and loginNow, the one rule of what stops a running command when the
// profile's login changes under it (attack21 F9), with its exact answers.
import { describe, expect, it } from 'vitest';
import { jwtSubject, loginNow } from '../../src/auth/identity.js';
import type { StoredCredential } from '../../src/config/store.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (claims: Record<string, unknown>) => `${b64({ alg: 'none' })}.${b64(claims)}.sig`;
const token = (access_token: string, session?: string, origin?: string): StoredCredential => ({
  type: 'token',
  access_token,
  ...(session === undefined ? {} : { session }),
  ...(origin === undefined ? {} : { origin }),
  obtained_at: 'x',
});
const oauth = (access_token: string, session?: string): StoredCredential => ({
  ...token(access_token, session),
  type: 'oauth',
});
/** A user's JWT: these claims over a usual issuer, subject and organization. */
const user = (claims: Record<string, unknown> = {}) =>
  jwt({ iss: 'https://idp.example', sub: 'usr_a', org_id: 'org_1', jti: Math.random(), ...claims });

describe('jwtSubject', () => {
  it('is the issuer, the subject and every claim of a JWT with a subject', () => {
    const claims = { iss: 'https://idp.example', sub: 'usr_a', org_id: 'org_1' };
    expect(jwtSubject(jwt(claims))).toEqual({ iss: 'https://idp.example', sub: 'usr_a', claims });
  });

  it('has an empty issuer when the token has none, or one that is no string', () => {
    expect(jwtSubject(jwt({ sub: 'usr_a' }))).toEqual({ iss: '', sub: 'usr_a', claims: { sub: 'usr_a' } });
    expect(jwtSubject(jwt({ iss: 7, sub: 'usr_a' }))?.iss).toBe('');
  });

  it.each([
    ['an opaque token', 'svc_sk_live_abc123'],
    ['a JWT without a subject', jwt({ iss: 'https://idp.example' })],
    ['a JWT whose subject is empty', jwt({ iss: 'https://idp.example', sub: '' })],
    ['a JWT whose subject is no string', jwt({ iss: 'https://idp.example', sub: 5 })],
  ])('is undefined for %s', (_, text) => {
    expect(jwtSubject(text)).toBeUndefined();
  });
});

describe('loginNow', () => {
  const first = user();
  it.each([
    ['a refresh of the same session', oauth('at-1', 's1'), oauth('at-2', 's1')],
    ['an older OAuth login refreshed (no session ids)', oauth('at-1'), oauth('at-2')],
    ['the same token logged in again (a new session id)', token('tok-1', 's1'), token('tok-1', 's2')],
    ['the same JWT logged in again', token(first, 's1'), token(first, 's2')],
  ])('%s: the same login', (_, initial, now) => {
    expect(loginNow(initial, now)).toEqual({ same: 'login' });
  });

  it.each([
    ['a fresh token of the same user', token(first, 's1'), token(user(), 's2')],
    ['an OAuth login of the same user where a token login was', token(first, 's1'), oauth(user(), 's2')],
    ['a token of the same user for fewer tenants', token(first, 's1'), token(user({ tenants: [] }), 's2')],
  ])('%s: another login of the same identity', (_, initial, now) => {
    expect(loginNow(initial, now)).toEqual({ same: 'identity' });
  });

  it.each([
    [
      'another user, even within one session',
      oauth(first, 's1'),
      oauth(user({ sub: 'usr_b' }), 's1'),
      'usr_b',
    ],
    ['a user where an API key was', token('svc_sk_live_abc123', 's1'), token(first, 's2'), 'usr_a'],
    ['an API key where a user was', token(first, 's1'), token('svc_sk_live_abc123', 's2'), undefined],
    ['another API key', token('svc_sk_live_abc123', 's1'), token('svc_sk_live_def456', 's2'), undefined],
    ['another older token (no session ids)', token('tok-1'), token('tok-2'), undefined],
    [
      'an OAuth login with the token a token login held',
      token('tok-1', 's1'),
      oauth('tok-1', 's2'),
      undefined,
    ],
    ['a new OAuth login where an older one was', oauth('at-1'), oauth('at-2', 's2'), undefined],
    [
      'the same user of another organization',
      token(first, 's1'),
      token(user({ org_id: 'org_2' }), 's2'),
      undefined,
    ],
    [
      'the same user through another client',
      token(first, 's1'),
      token(user({ client_id: 'cli_x' }), 's2'),
      undefined,
    ],
    [
      'the same subject from another issuer',
      token(first, 's1'),
      token(user({ iss: 'https://b' }), 's2'),
      undefined,
    ],
    [
      'the same user at another origin',
      token(first, 's1'),
      token(user(), 's2', 'https://b.example'),
      undefined,
    ],
  ])('%s: another identity', (_, initial, now, named) => {
    expect(loginNow(initial, now)).toEqual({ other: true, user: named });
  });

  // A claim compared as the token holds it: two organizations (clients, issuers) whose ids are
  // numbers are two, not one absent value.
  it.each([
    ['organization', 'org_id', 1, 2],
    ['client', 'client_id', 10, 11],
    ['issuer', 'iss', 7, 8],
    ['organization (an id and its text)', 'org_id', 1, '1'],
  ])('the same user of another %s whose ids are no strings: another identity', (_, claim, a, b) => {
    const initial = token(user({ [claim]: a }), 's1');
    expect(loginNow(initial, token(user({ [claim]: a }), 's2'))).toEqual({ same: 'identity' });
    expect(loginNow(initial, token(user({ [claim]: b }), 's2'))).toEqual({ other: true, user: undefined });
  });
});
